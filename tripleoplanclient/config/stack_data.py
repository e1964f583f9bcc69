"""What the configuration tree and the inventory need from Heat, read in a
bounded number of requests.

tripleo-common 18.0.0 asked Heat twice per software deployment (the
deployment, then its derived config) and three more times for each one
named by an integer. Here the requests are a constant (the stack, its
environment, one listing of the ``TripleODeployment`` resources, one of
the software deployments) plus one metadata request per server the
software deployments name: THT's config-download templates deploy every
config to ``fake_server_id``, so that is one request for the whole stack.
Heat's metadata answers with the derived configs of every deployment of
that server id in the project (other stacks' too): where it would answer
with many more than this stack needs, the configs are asked for one by
one instead, so the total never passes the constant plus one per
deployment. Path-valued references and integer names cost one listing
each at most, whatever their number.
"""

import json

from tripleoplanclient.common import exceptions

NESTED_DEPTH = 7
DEPLOYMENT_RESOURCE = 'TripleODeployment'
SOFTWARE_DEPLOYMENT_RESOURCE = 'TripleOSoftwareDeployment'
HOST_NETWORK = 'ctlplane'
# The stack environment's parameter defaults the inventory reads; nothing
# else of the environment (it holds the plan's passwords) is kept.
ENVIRONMENT_KEYS = ('AdminPassword', 'ContainerCli')
# A THT 18 stack's outputs are a few MB; its derived configs KBs each.
MAX_OUTPUTS_BYTES = 64 * 1024 * 1024
MAX_CONFIG_BYTES = 8 * 1024 * 1024
MAX_DEPLOYMENTS = 20000
# Metadata is asked for when it answers with at most this many more
# configs than needed (per server id): beyond, one request per config.
METADATA_SLACK = 2


class _Heat:
    """heatclient calls counted by kind; Heat's refusals CommandErrors."""

    def __init__(self, heat, stack):
        self.heat = heat
        self.stack = stack
        self.counts = {}

    def __call__(self, kind, fn, *args, missing=False, **kwargs):
        """``fn(*args, **kwargs)``; ``missing`` when Heat answers 404 and
        ``missing`` is not False (then a CommandError)."""
        from heatclient import exc as heat_exc
        self.counts[kind] = self.counts.get(kind, 0) + 1
        try:
            return fn(*args, **kwargs)
        except heat_exc.HTTPNotFound as exc:
            if missing is not False:
                return missing
            raise exceptions.CommandError(
                'Heat lost part of stack %s while it was read (%s): %s: '
                'try again when the stack is complete.' % (
                    self.stack, kind, _message(exc)))
        except heat_exc.HTTPException as exc:
            raise exceptions.CommandError(
                'Heat refused to show the configuration of stack %s (%s): '
                '%s' % (self.stack, kind, _message(exc)))
        except Exception as exc:
            if exceptions.unreachable(exc):
                raise exceptions.CommandError(
                    'Heat is unreachable: the configuration of stack %s '
                    'cannot be read (%s).' % (self.stack, type(exc).__name__))
            raise


def _message(exc):
    error = getattr(exc, 'error', None)
    inner = error.get('error') if isinstance(error, dict) else None
    if isinstance(inner, dict) and inner.get('message'):
        return str(inner['message'])[:500]
    return str(exc)[:500]


def _size(value):
    return len(json.dumps(value, default=str))


def servers(outputs):
    """``{server id: {'name', 'role'}}`` of the stack's servers as
    tripleo-common named them: the short ctlplane hostname, lowercase, in
    ``RoleNetHostnameMap``'s order next to ``ServerIdData``'s ids; the role
    the first one of ``ServerIdData`` listing the id."""
    ids = (outputs.get('ServerIdData') or {}).get('server_ids') or {}
    found = {}
    for role, hostnames in (outputs.get('RoleNetHostnameMap') or {}).items():
        names = (hostnames or {}).get(HOST_NETWORK) or []
        for name, server_id in zip(names, ids.get(role) or []):
            if server_id is not None and isinstance(name, str):
                found[server_id] = name.split('.%s.' % HOST_NETWORK)[0]
    roles = {}
    for role, role_ids in ids.items():
        for server_id in role_ids or []:
            roles.setdefault(server_id, role)
    return {server_id: {'name': name.lower(), 'role': roles.get(server_id)}
            for server_id, name in found.items()}


def _stack_of(resource):
    """The id of the stack holding ``resource`` (its 'stack' link)."""
    for link in resource.get('links') or []:
        if link.get('rel') == 'stack':
            return link.get('href', '').rstrip('/').split('/')[-1]
    return None


def read(heat, stack):
    """Everything the tree and the inventory need from stack ``stack``.

    :param heat: a heatclient v1 client
    :returns: ``{'stack_name', 'stack_id',
      'outputs': {key: value},
      'environment': {'parameter_defaults': {AdminPassword, ContainerCli
      (those set)}},
      'deployments': [{'name', 'server_id', 'server', 'role',
      'resource' (the TripleODeployment's physical id), 'creation_time',
      'config': the derived config as Heat shows it: {'id', 'name',
      'group', 'config', 'inputs' (with values), 'outputs', 'options',
      'creation_time'}}] in tripleo-common's order (the resources'
      creation times), deployments of servers not in the outputs
      (excluded ones) left out,
      'skipped': [{'resource', 'reason'}],
      'requests': {'heat': calls, 'by_kind': {kind: calls}}}``: the
      calls made (Heat answers a stack's name with a redirect: one HTTP
      request more). ``data`` holds the plan's secrets (outputs, the
      admin password): it goes into files, never into a result or log.
    """
    call = _Heat(heat, stack)
    found = call('stack', heat.stacks.get, stack, missing=None)
    if found is None:
        raise exceptions.CommandError(
            'Stack %s does not exist: deploy the plan first.' % stack)
    body = found.to_dict()
    outputs = {o.get('output_key'): o.get('output_value')
               for o in body.get('outputs') or []}
    if _size(outputs) > MAX_OUTPUTS_BYTES:
        raise exceptions.CommandError(
            'The outputs of stack %s are larger than %d MiB: check the '
            'templates\' outputs.' % (stack, MAX_OUTPUTS_BYTES >> 20))
    path = '%s/%s' % (body['stack_name'], body['id'])
    data = {'stack_name': body['stack_name'], 'stack_id': body['id'],
            'outputs': outputs, 'environment': _environment(call, path),
            'skipped': []}
    data['deployments'] = _deployments(call, path, outputs, data['skipped'])
    data['requests'] = {'heat': sum(call.counts.values()),
                        'by_kind': dict(sorted(call.counts.items()))}
    return data


def _environment(call, path):
    env = call('environment', call.heat.stacks.environment, path,
               missing={})
    defaults = (env or {}).get('parameter_defaults') or {}
    return {'parameter_defaults': {k: defaults[k] for k in ENVIRONMENT_KEYS
                                   if k in defaults}}


def _deployments(call, path, outputs, skipped):
    heat = call.heat
    resources = [r.to_dict() for r in call(
        'resources', heat.resources.list, path, nested_depth=NESTED_DEPTH,
        filters={'name': DEPLOYMENT_RESOURCE}, with_detail=True)]
    if len(resources) > MAX_DEPLOYMENTS:
        raise exceptions.CommandError(
            'Stack %s has %d deployments, more than %d.' % (
                call.stack, len(resources), MAX_DEPLOYMENTS))
    # sorted() keeps Heat's order among equal times, as tripleo-common did
    resources.sort(key=lambda r: r.get('creation_time') or '')
    known = servers(outputs)
    found = []
    for res in resources:
        value = (res.get('attributes') or {}).get('value')
        ref = value.get('deployment') if isinstance(value, dict) else None
        if not ref or ref == SOFTWARE_DEPLOYMENT_RESOURCE:
            skipped.append({'resource': res.get('physical_resource_id'),
                            'reason': 'no software deployment'})
            continue
        server_id = value.get('server')
        if server_id not in known:
            skipped.append({'resource': res.get('physical_resource_id'),
                            'reason': 'server %s not in the outputs' %
                                      server_id})
            continue
        found.append({
            'name': value.get('name') or res.get('parent_resource'),
            'server_id': server_id,
            'server': known[server_id]['name'],
            'role': known[server_id]['role'],
            'resource': res.get('physical_resource_id') or '',
            'creation_time': res.get('creation_time'),
            'ref': str(ref), 'stack': _stack_of(res)})
    _resolve_paths(call, path, found)
    _resolve_numbers(call, path, found)
    configs = _configs(call, found)
    for dep in found:
        dep['config'] = configs[dep.pop('deployment_id')]
        del dep['ref'], dep['stack']
    return found


def _resolve_paths(call, path, found):
    """A reference that is a stack path names the nested stack holding
    the software deployment: one listing finds them all."""
    for dep in found:
        dep['deployment_id'] = dep['ref']
    paths = [d for d in found if '/' in d['ref']]
    if not paths:
        return
    listed = call('resources', call.heat.resources.list, path,
                  nested_depth=NESTED_DEPTH,
                  filters={'name': SOFTWARE_DEPLOYMENT_RESOURCE})
    by_stack = {}
    for res in listed:
        res = res.to_dict()
        by_stack[_stack_of(res)] = res.get('physical_resource_id')
    for dep in paths:
        dep['deployment_id'] = by_stack.get(dep['ref'].split('/')[-1])
        if not dep['deployment_id']:
            raise exceptions.CommandError(
                'Deployment %s of server %s: Heat shows no %s in stack %s.'
                % (dep['name'], dep['server'], SOFTWARE_DEPLOYMENT_RESOURCE,
                   dep['ref']))


def _is_number(name):
    try:
        int(name)
    except (TypeError, ValueError):
        return False
    return True


def _holder(dep):
    """The stack holding a deployment (its reference's, when a path)."""
    return dep['ref'].split('/')[-1] if '/' in dep['ref'] else dep['stack']


def _resolve_numbers(call, path, found):
    """A deployment named by an integer is a ResourceGroup's member: its
    name is the group's, the resource whose nested stack holds the
    member's. Two listings (by physical id) find every one of them."""
    for dep in found:
        if not dep['name']:
            raise exceptions.CommandError(
                'A deployment of server %s has no name: set the name '
                'property of its deployment resource in the templates.'
                % dep['server'])
    numbered = [d for d in found if _is_number(d['name'])]
    if not numbered:
        return
    holders = set()
    for dep in numbered:
        holders.add(_holder(dep))
    holders.discard(None)
    members = call('resources', call.heat.resources.list, path,
                   nested_depth=NESTED_DEPTH,
                   filters={'physical_resource_id': sorted(holders)})
    parents = {}
    for res in members:
        res = res.to_dict()
        parents[res.get('physical_resource_id')] = _stack_of(res)
    groups = call('resources', call.heat.resources.list, path,
                  nested_depth=NESTED_DEPTH,
                  filters={'physical_resource_id': sorted(
                      set(p for p in parents.values() if p))})
    names = {}
    for res in groups:
        res = res.to_dict()
        names.setdefault(res.get('physical_resource_id'),
                         res.get('resource_name'))
    for dep in numbered:
        name = names.get(parents.get(_holder(dep)))
        if not name:
            raise exceptions.CommandError(
                'Deployment %s of server %s: its group\'s name cannot be '
                'found: set the name property of its deployment resource '
                'in the templates.' % (dep['name'], dep['server']))
        dep['name'] = name


def _configs(call, found):
    """{software deployment id: its derived config}."""
    heat = call.heat
    wanted = {d['deployment_id'] for d in found}
    if not wanted:
        return {}
    listed = {}
    per_server = {}
    for sd in call('deployments', heat.software_deployments.list):
        sd = sd.to_dict()
        per_server[sd.get('server_id')] = per_server.get(
            sd.get('server_id'), 0) + 1
        if sd.get('id') in wanted:
            listed[sd['id']] = sd
    missing = wanted - set(listed)
    if missing:
        dep = next(d for d in found if d['deployment_id'] in missing)
        raise exceptions.CommandError(
            'Deployment %s of server %s: Heat has no software deployment '
            '%s.' % (dep['name'], dep['server'], dep['deployment_id']))
    needed = {}
    for sd in listed.values():
        needed.setdefault(sd.get('server_id'), set()).add(sd['config_id'])
    configs = {}
    for server_id in sorted(needed, key=str):
        ids = needed[server_id]
        if server_id is None or (per_server[server_id] >
                                 METADATA_SLACK * len(ids) + 8):
            continue
        for config in call('metadata', heat.software_deployments.metadata,
                           server_id) or []:
            if isinstance(config, dict) and config.get('id') in ids:
                configs[config['id']] = config
    for sd_id, sd in sorted(listed.items()):
        if sd['config_id'] not in configs:
            configs[sd['config_id']] = call(
                'config', heat.software_configs.get,
                sd['config_id']).to_dict()
    result = {}
    for sd_id, sd in listed.items():
        config = configs[sd['config_id']]
        if _size(config) > MAX_CONFIG_BYTES:
            raise exceptions.CommandError(
                'The config of software deployment %s is larger than %d '
                'MiB.' % (sd_id, MAX_CONFIG_BYTES >> 20))
        result[sd_id] = config
    return result
