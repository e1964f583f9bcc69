"""A plan's roles: those its roles data deploys and those its templates
offer, for ``overcloud plan roles list|show``.

Pure: the caller reads the objects ``paths`` names and hands in their
bytes, with the plan's merged parameter values (what Heat gets from
``parameter_defaults``); nothing here touches the network. Results are
plain JSON data (a Mistral action returns them).

What a role's values are, as tripleo-heat-templates (17, 18) make them:

* count: ``<Name>Count`` is declared with ``default:
  {{role.CountDefault|default(0)}}`` (``overcloud.j2.yaml``), so a value
  in the parameters wins, then the role's ``CountDefault``, then 0;
* services: ``<Name>Services``, else ``ServicesDefault`` (the resource
  registry's ``parameter_defaults``), else none;
* hostname format: ``<Name>HostnameFormat``, else
  ``HostnameFormatDefault``, else ``%stackname%-<name lower>-%index%``;
* networks: a list of names, or a mapping of names to ``{subnet: ...}``;
  listed names count only when the network data enables them, and a name
  in a list uses the subnet ``<name_lower>_subnet``;
* tags: as written, plus those the renderer adds by name (rendering).

A role the templates offer (``roles/<Name>.yaml``, one role a file) and
the roles data lacks is listed with no count: it is not deployed.
"""

import posixpath

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import suggestions
from tripleoplanclient.library import role_data
from tripleoplanclient.plan import rendering

OFFERED_DIR = 'roles/'
# The keys of a listing row, in the order a table shows them.
FIELDS = ('name', 'in_plan', 'count', 'count_parameter', 'count_from',
          'networks', 'tags', 'description', 'source', 'notes')
# Keys show() gives their own field; the rest of a role is under "other".
_SHOWN = frozenset([
    'name', 'description', 'CountDefault', 'networks', 'tags',
    'ServicesDefault', 'HostnameFormatDefault', 'default_route_networks',
    'networks_skip_config', 'RoleParametersDefault'])
_DEFAULT_ROUTE = ['ControlPlane']
# How to fix a role file of the templates.
_TEMPLATES = ('Fix it in the templates, move the plan to them (openstack '
              'overcloud deploy --templates DIR) and run the command again.')


def is_offered(path):
    """True for a role file the templates offer: ``roles/<Name>.yaml``."""
    folder, name = posixpath.split(path)
    return (folder + '/' == OFFERED_DIR and name.endswith('.yaml')
            and not name.startswith('.'))


def paths(listing, inputs=None):
    """``(roles data, network data, [offered role files])``: the plan
    paths listing() and show() read, among ``listing`` (the plan's paths).

    ``inputs`` is the record's (``roles_data`` / ``network_data``); the
    data paths are those a render uses. Hand a data path absent from
    ``listing`` in as ``(path, None)``: no roles data is an error, no
    network data means no networks, as when rendering.
    """
    roles_path, (networks_path,) = rendering.data_paths(inputs or {},
                                                        listing)
    return roles_path, networks_path, sorted(
        p for p in listing if is_offered(p))


class _Catalog:
    """The roles of the plan and of the templates, checked once."""

    def __init__(self, roles_data, offered, parameters, network_data, plan):
        self.error = error = role_data.Error(plan)
        self.roles_path, data = roles_data
        self.plan_roles = {}
        for index, role in enumerate(role_data.load_list(
                self.roles_path, data, error)):
            name = role['name']
            if name in self.plan_roles:
                raise error(self.roles_path, 'role %s appears twice (items '
                            '#%d and #%d); role names must be unique.' % (
                                name, self.plan_roles[name][0] + 1,
                                index + 1))
            self.plan_roles[name] = (index, role)
        self.offered = {}
        for path in sorted(offered):
            if offered[path] is None:
                continue
            found = role_data.load_list(path, offered[path], error, _TEMPLATES)
            if len(found) != 1:
                raise error(path, 'a role file must hold a list of one '
                                  'role; it holds %d.' % len(found),
                            _TEMPLATES)
            name = found[0]['name']
            if name in self.offered:
                raise error(path, 'role %s is also offered by %s.' % (
                    name, self.offered[name][0]), _TEMPLATES)
            self.offered[name] = (path, found[0])
        if parameters is not None and not isinstance(parameters, dict):
            raise error('parameters', 'they must be a mapping of names to '
                        'values.', 'Fix parameter_defaults and run the '
                        'command again.')
        self.parameters = parameters or {}
        self.networks = role_data.load_networks(network_data, error)

    def names(self):
        """Plan roles in their order, then offered-only ones by name."""
        plan = sorted(self.plan_roles, key=lambda n: self.plan_roles[n][0])
        return plan + sorted((n for n in self.offered
                              if n not in self.plan_roles),
                             key=lambda n: (n.lower(), n))

    def _parameter(self, name, what):
        """``(value, True)`` from the parameters, or ``(None, False)``."""
        key = name + what
        if key in self.parameters:
            return self.parameters[key], True
        return None, False

    def _count(self, name, role):
        value, given = self._parameter(name, 'Count')
        if given:
            count = role_data.whole(value)
            if count is None:
                raise self.error(
                    'parameter %sCount' % name,
                    'it is %r, not a whole number of %s nodes (0 or more).'
                    % (value, name),
                    'Set it in an environment file (parameter_defaults) '
                    'and run the command again.')
            return count, 'parameter'
        if 'CountDefault' in role:
            return role['CountDefault'], 'CountDefault'
        return 0, 'default'

    def _network_notes(self, role):
        if self.networks is None:
            return []
        path, enabled = self.networks
        networks = role.get('networks') or []
        notes = []
        absent = [n for n in networks if n not in enabled]
        if absent and not enabled:
            notes.append('the plan\'s network data (%s) enables no network: '
                         'its nodes are on the control plane only.' % path)
        elif absent:
            notes.append('network%s %s %s not enabled in the plan\'s network '
                         'data (%s): its nodes are not attached to %s.' % (
                             's' if len(absent) > 1 else '',
                             ', '.join(absent),
                             'are' if len(absent) > 1 else 'is', path,
                             'them' if len(absent) > 1 else 'it'))
        if isinstance(networks, dict):
            for net, value in networks.items():
                subnets = enabled.get(net, {}).get('subnets')
                if isinstance(subnets, dict) and \
                        value['subnet'] not in subnets:
                    notes.append('subnet %s of network %s is not in the '
                                 'plan\'s network data (%s).'
                                 % (value['subnet'], net, path))
        return notes

    def _notes(self, name, role, in_plan, source):
        notes = []
        if source and posixpath.basename(source) != name + '.yaml':
            notes.append('offered by %s (a file named after another role).'
                         % source)
        if in_plan:
            return notes + self._network_notes(role)
        for what in ('Count', 'Services', 'HostnameFormat'):
            value, given = self._parameter(name, what)
            if given:
                shown = repr(value)
                notes.append('%s%s is set (%s) but the role is not in the '
                             'plan\'s roles data (%s): Heat ignores it.' % (
                                 name, what, shown if len(shown) < 60
                                 else shown[:56] + '...', self.roles_path))
        return notes

    def row(self, name):
        in_plan = name in self.plan_roles
        source, offered_role = self.offered.get(name, (None, None))
        role = self.plan_roles[name][1] if in_plan else offered_role
        count, count_from = (self._count(name, role) if in_plan
                             else (None, None))
        written = list(role.get('tags') or [])
        tagged = [{'name': name, 'tags': list(written)}]
        rendering.tag_roles(tagged)
        return {
            'name': name,
            'in_plan': in_plan,
            'count': count,
            'count_parameter': name + 'Count',
            'count_from': count_from,
            'networks': list(role.get('networks') or []),
            'tags': tagged[0]['tags'],
            'description': ' '.join((role.get('description') or '').split()),
            'source': source,
            'notes': self._notes(name, role, in_plan, source),
        }, role, written

    def _subnets(self, role):
        networks = role.get('networks') or []
        if isinstance(networks, dict):
            return {n: v['subnet'] for n, v in networks.items()}
        # A listed network's subnet is <name_lower>_subnet, name_lower as
        # rendering defaults it; unknown without the network data.
        enabled = self.networks[1] if self.networks else {}
        subnets = {}
        for net in networks:
            subnets[net] = None
            if net in enabled:
                lower = enabled[net].get('name_lower')
                subnets[net] = '%s_subnet' % (
                    lower if isinstance(lower, str) and lower
                    else net.lower())
        return subnets

    def detail(self, name):
        result, role, written = self.row(name)
        in_plan = result['in_plan']

        def resolved(what, default):
            value, given = self._parameter(name, what)
            return (value, 'parameter') if in_plan and given else default

        services, services_from = resolved(
            'Services', (list(role['ServicesDefault']), 'ServicesDefault')
            if 'ServicesDefault' in role else ([], 'default'))
        if isinstance(services, str):      # a comma_delimited_list
            services = [s.strip() for s in services.split(',') if s.strip()]
        services = _plain(services)
        hostname, hostname_from = resolved(
            'HostnameFormat',
            (role['HostnameFormatDefault'], 'HostnameFormatDefault')
            if role.get('HostnameFormatDefault') else
            ('%%stackname%%-%s-%%index%%' % name.lower(), 'default'))
        offered = self.offered.get(name)
        result.update({
            'description': (role.get('description') or '').strip(),
            'services': services,
            'services_from': services_from,
            'hostname_format': _plain(hostname),
            'hostname_format_from': hostname_from,
            'subnets': self._subnets(role),
            'default_route_networks': list(
                role.get('default_route_networks') or _DEFAULT_ROUTE),
            'networks_skip_config': list(
                role.get('networks_skip_config') or []),
            'role_parameters_default': _plain(
                role.get('RoleParametersDefault') or {}),
            'tags_implied': [t for t in result['tags'] if t not in written],
            'deprecated': _plain({k: v for k, v in role.items()
                                  if _deprecated(k)}),
            'customized': (offered[1] != role if in_plan and offered
                           else None),
            'other': _plain({k: v for k, v in role.items()
                             if k not in _SHOWN and not _deprecated(k)}),
        })
        return result

    def unknown(self, name):
        known = self.names()
        guesses = suggestions.close_matches(str(name), known)
        in_plan = [n for n in known if n in self.plan_roles]
        offered_only = [n for n in known if n not in self.plan_roles]
        return exceptions.CommandError(
            '%sRole %r is neither in the plan\'s roles data (%s) nor '
            'offered by its templates (%s*.yaml).%s The plan\'s roles: %s. '
            'The templates also offer: %s.' % (
                'Plan %s: ' % self.error.plan if self.error.plan else '',
                name, self.roles_path, OFFERED_DIR,
                ' Did you mean %s?' % ', '.join(guesses) if guesses
                else '', ', '.join(in_plan) or 'none',
                ', '.join(offered_only) or 'no other role'))


def _deprecated(key):
    return key == 'uses_deprecated_params' or (
        isinstance(key, str) and key.startswith('deprecated_'))


def _plain(value):
    """``value`` as JSON data: YAML's dates, sets, binary and non-string
    keys become strings or lists."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): _plain(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=repr)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def listing(roles_data, offered, parameters=None, network_data=None,
            plan=None):
    """One dict per role (keys: FIELDS): the plan's in their roles data
    order, then those only the templates offer, by name.

    ``roles_data``: ``(plan path, bytes or None)``; ``offered``: ``{plan
    path: bytes}`` of the role files (``roles/*.yaml``); ``parameters``:
    the plan's merged parameter values; ``network_data``: ``(plan path,
    bytes or None)``, or None not to check the networks; ``plan`` names
    the plan in errors. Malformed input: CommandError naming the file
    and the role.
    """
    catalog = _Catalog(roles_data, offered, parameters, network_data, plan)
    return [catalog.row(name)[0] for name in catalog.names()]


def show(roles_data, offered, name, parameters=None, network_data=None,
         plan=None):
    """One role in detail: its listing row (a full description), plus
    ``services`` (+ ``services_from``), ``hostname_format`` (+
    ``_from``), ``subnets`` (network -> subnet; for a network in a list,
    None unless the network data given enables it),
    ``default_route_networks``, ``networks_skip_config``,
    ``role_parameters_default``,
    ``tags_implied`` (added by name), ``deprecated`` (its deprecated_*
    keys), ``customized`` (a plan role unlike the file the templates
    offer under its name; None when not both) and ``other`` (its
    remaining keys). An unknown ``name``: CommandError listing the known
    roles and the closest names.
    """
    catalog = _Catalog(roles_data, offered, parameters, network_data, plan)
    if name not in catalog.plan_roles and name not in catalog.offered:
        raise catalog.unknown(name)
    return catalog.detail(name)
