"""The configuration tree of a stack: the files tripleo-common 18.0.0's
``Config.download_config`` wrote, from what ``stack_data.read`` read.

- ``<Role>/<key>.yaml`` for each ``RoleData`` key (``step_config.pp`` as
  text, ``param_config.json`` as JSON), and for the per-step task lists
  ``<key>_step<N>.yaml`` with the tasks of step N (those whose ``when``
  says ``step|int == N``, and those that name no step);
- ``<key>.yaml`` (or ``<key>`` when it has a dot) for each ``RoleConfig``
  key, with the per-step files of the external tasks;
- ``<Role>/<server>/<deployment>`` for each software deployment,
  ``group_vars/<Role>``, ``host_vars/<server>``;
- ``deployments.yaml``, ``templates/heat-config.j2``, ``.gitignore``.

Where tripleo-common crashed on an output it did not expect (a role of
``ServerIdData`` missing from ``RoleGroupVars``, a ``--config-type`` key a
role lacks, host vars missing for a server), the part is left empty or
out; a value that cannot become a file is a CommandError naming it.
"""

import json
import os
import re

from tripleoplanclient.common import exceptions
from tripleoplanclient.config import stack_data
from tripleoplanclient.config import writing

STEPS = 6
# The RoleData keys written once per step too, and their step count.
PER_STEP = {'upgrade_tasks': STEPS, 'deploy_steps_tasks': STEPS,
            'update_tasks': STEPS, 'post_update_tasks': 4}
# Undercloud tasks: in RoleConfig, one list for all roles.
EXTERNAL_TASKS = ('external_deploy_tasks', 'external_deploy_steps_tasks')
# Empty folders tripleo-common made for ansible-runner (not files).
RUNNER_DIRS = ('artifacts', 'env', 'inventory', 'profiling_data',
               'project', 'roles')
PRIVATE = 0o600
PUBLIC = 0o644
MAX_FILES = 50000
MAX_BYTES = 512 * 1024 * 1024
HEAT_CONFIG = b'[{{ deployment }}]\n'
_STEP = re.compile(r'\(?step(\|int)?\)?==([0-9]+)')
# Software deployments run after the deploy steps, and before the network.
_POST = ('ExtraConfigPost', 'PostConfig')
_PRE_NETWORK = 'PreNetworkConfig'


def _deployments_yaml():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'deployments.yaml')
    with open(path, 'rb') as f:
        return f.read()


def files(data, config_type=None):
    """``{relative path: (bytes, mode)}`` of the tree of ``data`` (what
    ``stack_data.read`` answers); ``config_type``: the ``RoleData`` keys to
    write (a name or a list of names; None: all)."""
    if isinstance(config_type, str):
        config_type = [config_type]
    outputs = data['outputs']
    tree = {'.gitignore': (b'*.tar.gz\n', PUBLIC)}
    _role_data(tree, outputs, config_type)
    _role_config(tree, outputs)
    _servers(tree, data)
    tree['templates/heat-config.j2'] = (HEAT_CONFIG, PUBLIC)
    tree['deployments.yaml'] = (_deployments_yaml(), PUBLIC)
    _check(tree)
    return dict(sorted(tree.items()))


def _encoded(text, what):
    try:
        return text.encode('utf-8')
    except UnicodeEncodeError:
        raise exceptions.CommandError(
            '%s is not valid text (a lone surrogate): check the '
            'templates.' % what)


def _mapping(value, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise exceptions.CommandError(
            'The stack output %s is not a mapping: check the templates\' '
            'outputs.' % what)
    return value


def _in_step(task, step, what):
    if not isinstance(task, dict):
        raise exceptions.CommandError(
            'A task of %s is not a mapping: check the templates.' % what)
    when = task.get('when')
    if when is None:
        return True
    when = when if isinstance(when, list) else [when]
    text = ''.join(re.sub(r'\s+', '', w) for w in when if isinstance(w, str))
    steps = [m.group(2) for m in _STEP.finditer(text)]
    return not steps or str(step) in steps


def _steps(tree, prefix, tasks, count, what):
    if tasks is None:
        tasks = []
    if not isinstance(tasks, list):
        raise exceptions.CommandError(
            '%s is not a list of tasks: check the templates.' % what)
    for step in range(count):
        tree['%s_step%d.yaml' % (prefix, step)] = (writing.dump(
            [t for t in tasks if _in_step(t, step, what)]), PRIVATE)


def _role_data(tree, outputs, config_type):
    for role, keys in _mapping(outputs.get('RoleData'), 'RoleData').items():
        writing.name('role', role)
        keys = _mapping(keys, 'RoleData of role %s' % role)
        for key in config_type or list(keys):
            if key in EXTERNAL_TASKS or key not in keys:
                continue
            writing.name('RoleData key', key)
            value = keys[key]
            what = 'RoleData %s of role %s' % (key, role)
            if key == 'step_config':
                if not isinstance(value, str):
                    raise exceptions.CommandError(
                        '%s is not text: check the templates.' % what)
                tree[role + '/step_config.pp'] = (_encoded(value, what),
                                                  PRIVATE)
            elif key == 'param_config':
                tree[role + '/param_config.json'] = (
                    json.dumps(value).encode('ascii'), PRIVATE)
            else:
                if key in PER_STEP:
                    _steps(tree, '%s/%s' % (role, key), value,
                           PER_STEP[key], what)
                tree['%s/%s.yaml' % (role, key)] = (writing.dump(value),
                                                    PRIVATE)


def _role_config(tree, outputs):
    for key, value in _mapping(outputs.get('RoleConfig'),
                               'RoleConfig').items():
        writing.name('RoleConfig key', key)
        if key in EXTERNAL_TASKS:
            _steps(tree, key, value, STEPS, 'RoleConfig %s' % key)
        path = key if '.' in key else key + '.yaml'
        if isinstance(value, (list, dict)):
            tree[path] = (writing.dump(value), PRIVATE)
        elif isinstance(value, str):
            tree[path] = (_encoded(value, 'RoleConfig %s' % key), PRIVATE)
        else:
            raise exceptions.CommandError(
                'RoleConfig %s is neither text, a list nor a mapping: check '
                'the templates.' % key)


def deployment_document(dep):
    """The data of a deployment's file: its derived config, the config
    text as tripleo-common showed it (JSON pretty-printed; a hiera config
    as data), the inputs' values as Python text, ``deploy_server_id`` the
    real server's."""
    config = dep['config']
    text = config.get('config')
    if isinstance(text, str):
        try:
            text = json.loads(text)
        except ValueError:
            pass
    if not isinstance(text, str):
        text = json.dumps(text, indent=2)
    if config.get('group') == 'hiera':
        try:
            shown = json.loads(text)
        except ValueError:
            shown = writing.plain(text)
    else:
        shown = writing.literal(text, keep_end=True)
    inputs = [dict(i) for i in config.get('inputs') or []
              if isinstance(i, dict)]
    server_inputs = [i for i in inputs if i.get('name') == 'deploy_server_id']
    if server_inputs:
        server_inputs[-1]['value'] = dep['server_id']
    shown_inputs = [{
        'name': writing.plain(str(i.get('name'))),
        'description': writing.plain(str(i.get('description'))),
        'type': writing.plain(str(i.get('type'))),
        'value': writing.literal(str(i.get('value')), keep_end=False)}
        for i in inputs]
    shown_outputs = [{
        'name': writing.plain(str(o.get('name'))),
        'description': writing.plain(str(o.get('description'))),
        'type': writing.plain(str(o.get('type')))}
        for o in config.get('outputs') or [] if isinstance(o, dict)]
    return {writing.plain(dep['name']): {
        'config': shown,
        'creation_time': str(config.get('creation_time')),
        'deployment_name': writing.plain(dep['name']),
        'group': writing.plain(str(config.get('group'))),
        'id': writing.plain(str(config.get('id'))),
        'inputs': shown_inputs or None,
        'name': writing.plain(str(config.get('name'))),
        'options': writing.python_text(config.get('options')),
        'outputs': shown_outputs or None}}


def _servers(tree, data):
    outputs = data['outputs']
    listed = {}      # server: {'pre_network': [...], ...}
    roles = {}       # server: role
    for dep in data['deployments']:
        server = writing.name('server', dep['server'])
        role = writing.name('role', dep['role'])
        name = writing.name('deployment', dep['name'])
        lists = listed.setdefault(server, {'pre_network': [],
                                           'pre_deployments': [],
                                           'post_deployments': []})
        roles[server] = role
        resource = dep['resource']
        if any(word in resource for word in _POST):
            kind = 'post_deployments'
        elif _PRE_NETWORK in resource:
            kind = 'pre_network'
        else:
            kind = 'pre_deployments'
        if name not in lists[kind]:
            lists[kind].append(name)
        tree['%s/%s/%s' % (role, server, name)] = (
            writing.dump(deployment_document(dep)), PUBLIC)
    known = stack_data.servers(outputs)
    for server in known.values():
        roles.setdefault(server['name'], server['role'])
    group_vars = _mapping(outputs.get('RoleGroupVars'), 'RoleGroupVars')
    for role in sorted(set(r for r in roles.values() if r is not None)):
        tree['group_vars/' + writing.name('role', role)] = (
            writing.dump(group_vars.get(role) or {}), PUBLIC)
    host_vars = _mapping(outputs.get('AnsibleHostVarsMap'),
                         'AnsibleHostVarsMap')
    for server in known.values():
        name = writing.name('server', server['name'])
        role = roles[name]
        lists = listed.get(name, {})
        doc = {writing.plain('%s_%s' % (kind, role)): [
            writing.plain(d) for d in lists.get(kind, [])]
            for kind in ('pre_network', 'pre_deployments',
                         'post_deployments')}
        own = (host_vars.get(role) or {}).get(name) if host_vars else None
        if own and not isinstance(own, dict):
            raise exceptions.CommandError(
                'AnsibleHostVarsMap of server %s is not a mapping: check '
                'the templates.' % name)
        doc.update(own or {})
        tree['host_vars/' + name] = (writing.dump(doc), PUBLIC)


def _check(tree):
    """No path both a file and a folder; the tree within its caps."""
    if len(tree) > MAX_FILES:
        raise exceptions.CommandError(
            'The configuration tree would hold %d files, more than %d: '
            'check the templates\' outputs.' % (len(tree), MAX_FILES))
    total = sum(len(body) for body, _ in tree.values())
    if total > MAX_BYTES:
        raise exceptions.CommandError(
            'The configuration tree would hold %d MiB, more than %d MiB: '
            'check the templates\' outputs.' % (
                total >> 20, MAX_BYTES >> 20))
    folders = set()
    for path in tree:
        parts = path.split('/')
        folders.update('/'.join(parts[:i]) for i in range(1, len(parts)))
    clash = sorted(folders & set(tree))
    if clash:
        raise exceptions.CommandError(
            'The configuration tree would have %r as both a file and a '
            'folder: rename the role, server or deployment in the '
            'templates.' % clash[0][:200])
