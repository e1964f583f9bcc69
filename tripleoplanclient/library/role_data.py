"""Reading a plan's roles data and network data, checked role by role:
each problem a CommandError naming the file, the role and the remedy
(``roles`` builds its listing on what these return)."""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions


class Error:
    """Builds the CommandError of one call, naming the plan when known."""

    def __init__(self, plan):
        self.plan = plan
        self.prefix = 'Plan %s, ' % plan if plan else ''

    def __call__(self, where, problem, remedy=None):
        return exceptions.CommandError('%s%s: %s %s' % (
            self.prefix, where, problem,
            remedy or 'Fix the file, update the plan (openstack overcloud '
                      'plan amend) and run the command again.'))


def whole(value):
    """A count as Heat takes it (an integer, or its decimal digits in a
    string), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isascii() \
            and value.strip().isdigit():
        return int(value.strip())
    return None


def _name_problem(name):
    # The rule rendering applies to role names (they name rendered files).
    if not isinstance(name, str) or not name:
        return 'has no "name"'
    if '/' in name or '\\' in name or not name.strip('.') \
            or name != name.strip() or not name.isprintable():
        return ('has the name %r, not a plain name (letters, digits, "_", '
                '"-")' % name)
    return None


def _check_role(role, index, fail):
    """Refuse what would break a render or a deploy of ``role``;
    ``fail(problem)`` is the error to raise."""
    if not isinstance(role, dict):
        raise fail('item #%d is not a mapping (a role).' % (index + 1))
    problem = _name_problem(role.get('name'))
    if problem:
        raise fail('role #%d %s.' % (index + 1, problem))
    label = 'role %s' % role['name']
    count = role.get('CountDefault', 0)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        # THT writes it into the template as it is: an integer only.
        raise fail('%s has CountDefault %r, not a whole number of nodes '
                   '(0 or more).' % (label, count))
    networks = role.get('networks')
    if isinstance(networks, dict):
        for net, value in networks.items():
            if not isinstance(net, str) or not net:
                raise fail('%s has a network named %r.' % (label, net))
            if not isinstance(value, dict) or not isinstance(
                    value.get('subnet'), str) or not value['subnet']:
                raise fail('%s: network %s gives no subnet ({subnet: '
                           'NAME}).' % (label, net))
    elif networks is not None and not (
            isinstance(networks, list)
            and all(isinstance(n, str) and n for n in networks)):
        raise fail('%s: networks must be a list of network names or a '
                   'mapping of names to {subnet: NAME}.' % label)
    for key in ('tags', 'ServicesDefault', 'default_route_networks',
                'networks_skip_config'):
        value = role.get(key)
        if value is not None and not (
                isinstance(value, list)
                and all(isinstance(v, str) for v in value)):
            raise fail('%s: %s must be a list of strings.' % (label, key))
    for key in ('HostnameFormatDefault', 'description'):
        value = role.get(key)
        if value is not None and not isinstance(value, str):
            raise fail('%s: %s must be a string.' % (label, key))
    if not isinstance(role.get('RoleParametersDefault') or {}, dict):
        raise fail('%s: RoleParametersDefault must be a mapping.' % label)
    return role


def load_list(path, data, error, remedy=None):
    """The checked roles of the roles file at ``path``; ``remedy`` ends
    its errors (default: fix the file in the plan)."""
    def fail(problem):
        return error(path, problem, remedy)

    if data is None:
        raise error(path, 'the plan has no such object, so it has no roles '
                          'data.',
                    'Give it roles data (openstack overcloud plan amend -r '
                    'FILE) and run the command again.')
    roles = content.load_yaml(data, '%s%s' % (error.prefix, path))
    if not isinstance(roles, list):
        raise fail('it must hold a YAML list of roles.')
    return [_check_role(role, i, fail) for i, role in enumerate(roles)]


def load_networks(network_data, error):
    """``(path, {name: network})`` of the enabled networks, or None."""
    if network_data is None:
        return None
    path, data = network_data
    if data is None:        # no network data: no networks, as rendering
        return path, {}
    networks = content.load_yaml(data, '%s%s' % (error.prefix, path))
    if networks is None:
        networks = []
    if not isinstance(networks, list) or not all(
            isinstance(n, dict) and isinstance(n.get('name'), str)
            and n['name'] for n in networks):
        raise error(path, 'it must hold a YAML list of networks, each with '
                          'a name.')
    return path, {n['name']: n for n in networks
                  if n.get('enabled') is not False}
