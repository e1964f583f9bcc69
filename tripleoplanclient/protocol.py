"""What the client and our Mistral actions agree on, defined once.

The protocol number, the workbook and its workflows, the request each
workflow hands its action, the requests of the actions the client runs
on their own (``ACTIONS``: ad hoc, no workflow), and the summary a
recorded step is answered with (``result``). The workbook installed in
Mistral is generated from here, the client builds its requests here, and
the actions read them here: a field added or renamed in one place reaches
all three.
"""

import base64
import binascii
import zlib

from tripleoplanclient.common import exceptions

# Bumped whenever a request or a result changes incompatibly; the client
# refuses a workbook, and the actions a request, of another protocol.
PROTOCOL = 11
WORKBOOK = 'tripleoplan.v1'
TAG = 'tripleoplan-protocol-%d' % PROTOCOL
VERSION_ACTION = 'tripleoplan.version'

_REQUIRED = object()

# workflow -> (action, description, {request field: default})
WORKFLOWS = {
    'render': (
        'tripleoplan.render',
        "Render the plan's jinja2 templates in place in Swift.",
        {'container': _REQUIRED,
         # chooses among the actions' allowed endpoints (actions.endpoint)
         'swift_url': None,
         'roles_data': None,        # plan paths; else the templates' own
         'network_data': None,
         'tree': None}),            # the plan's recorded tree (plan.tree)
    # A stack step (``mistral.stack_step``): the files are in Swift
    # already, as for plan_amend; the action records the step, renders
    # when it must, asks Heat, and the follow task records the end.
    'deploy': (
        'tripleoplan.deploy',
        "Record a deploy, update or upgrade step of the plan (its files "
        "written already), then create or update the plan's Heat stack "
        "from it; the outcome is recorded when the stack ends.",
        {'container': _REQUIRED,
         'action': 'deploy',        # deploy, update or upgrade
         'stage': None,             # update/upgrade: prepare, converge
         'swift_url': None,
         'heat_url': None,
         'add': None,               # as plan_amend's
         'remove': None,
         'files': None,
         'tree': None,              # {path: md5, None: deleted} written
         'inputs': None,
         'templates': None,         # a new templates tree: where from,
         'release': None,           # and its release
         'plan_created': None,      # {step, rendered}: the command's create
         'render': True,            # False: a step that must render fails
         'force': False,            # ask Heat even if nothing changed
         'timeout': 240,            # minutes, Heat's stack timeout
         'validate': True,          # library.refuse_to_deploy first
         'command': None,
         # Worked out by the action from the step it records (a request
         # that sets them is refused); the follow task reads its own.
         'environments': None,      # plan paths, in Heat's merge order
         'plan_environment': None,  # the -p file's plan path
         'unchanged': None,         # the last deploy: skip Heat if same
         'step': None}),            # the recorded step: its outcome here
    # The plan's life cycle (``mistral.lifecycle``): the files are in
    # Swift already (whoever has them writes them, in one pass); the
    # request says what was written, the action records the step.
    'plan_create': (
        'tripleoplan.plan_create',
        "Record the creation of a plan whose files are in its container: "
        "passwords generated, tree snapshot, render, the create step.",
        {'container': _REQUIRED,
         'swift_url': None,
         'environments': None,      # plan paths, in Heat's merge order
         'files': None,             # {path: {source, md5, machine,
                                    #  tag}}: user files (record.origin)
         'tree': None,              # {path: md5} written; None: listing
         'inputs': None,            # {roles_data, network_data,
                                    #  plan_environment}: plan paths
         'templates': None,         # where the templates came from
         'release': None,           # templates.release; None: worked out
         # [name]: the parameters needing a generated value, as the
         # client found them in the tree it wrote (passwords.needed);
         # None: the action reads the templates to find them
         'passwords': None,
         'render': True,            # False: the step's render is SKIPPED
         'command': None}),
    'plan_amend': (
        'tripleoplan.plan_amend',
        "Record a change of the plan's environment list, inputs and "
        "files (written already); render when a rendering input changed.",
        {'container': _REQUIRED,
         'swift_url': None,
         'add': None,               # environment plan paths, appended
         'remove': None,            # environment plan paths
         'files': None,             # as plan_create's
         'tree': None,              # {path: md5} of the objects written
         'inputs': None,
         'render': True,
         'command': None}),
    'plan_restore': (
        'tripleoplan.plan_restore',
        "Make the plan what it was after a past step (copies inside "
        "Swift), recorded as a new step; refused while its stack works.",
        {'container': _REQUIRED,
         'step': _REQUIRED,         # a step number or id (show-history)
         'swift_url': None,
         'heat_url': None,
         'command': None}),
    'plan_list': (
        'tripleoplan.plan_list',
        "Every plan of the caller's project, with objects and bytes.",
        {'swift_url': None}),
    'plan_delete': (
        'tripleoplan.plan_delete',
        "Delete plans and every file in them; refused, for all, while a "
        "Heat stack of one's name exists.",
        {'containers': _REQUIRED,   # plan names
         'swift_url': None,
         'heat_url': None,
         'check_only': False}),     # check all, delete none
    # The deployment library: the same answers for every client. The CLI
    # runs these actions on their own (``ACTIONS``' way: one synchronous
    # request, nothing saved); a GUI may start the workflows.
    'capabilities': (
        'tripleoplan.capabilities',
        "The plan's capabilities: topics, groups and environment files, "
        "which are enabled, and their constraints.",
        {'container': _REQUIRED,
         'swift_url': None}),
    'capabilities_set': (
        'tripleoplan.capabilities_set',
        "Enable and disable environment files of the plan's capabilities: "
        "a recorded step, refused when it breaks a constraint.",
        {'container': _REQUIRED,
         'swift_url': None,
         'enable': None,            # [plan path], appended in this order
         'disable': None,           # [plan path]
         'command': None}),         # the client's command line, recorded
    'roles': (
        'tripleoplan.roles',
        "The roles of the plan's roles data and those its templates offer "
        "(one role's details with ``name``).",
        {'container': _REQUIRED,
         'swift_url': None,
         'name': None}),
    'parameters': (
        'tripleoplan.parameters',
        "Every parameter of the assembled plan (Heat's validation with "
        "nested stacks): type, default, the plan's value (hidden ones "
        "masked), description, declaring templates.",
        {'container': _REQUIRED,
         'swift_url': None,
         'heat_url': None,
         'role': None,              # only the parameters of this role
         'all': False}),            # also those only templates pass
    'parameters_set': (
        'tripleoplan.parameters_set',
        "Give parameters values, checked against Heat's types and "
        "constraints: a recorded step in the plan's parameters file.",
        {'container': _REQUIRED,
         'swift_url': None,
         'heat_url': None,
         'assignments': None,       # ['NAME=VALUE'], VALUE read as YAML
         'values': None,            # {name: value}, e.g. from --file
         # plan path under layout.STAGED_PARAMETERS of a YAML mapping the
         # client wrote (read, then removed): in a workflow execution,
         # Mistral keeps the input, so hidden values may come only so
         'staged': None,
         'command': None}),
    'validate': (
        'tripleoplan.validate',
        "Every problem the plan has before a deploy: Heat's validation, "
        "required parameters without value, missing references, broken "
        "capability constraints.",
        {'container': _REQUIRED,
         'swift_url': None,
         'heat_url': None}),
    # Bare metal (``nodes``): Ironic at the caller's (allowed) endpoint,
    # as the caller. BMC passwords never travel in a request (Mistral
    # keeps a workflow's input): they come only in a staged object the
    # action reads, then deletes (``nodes.staging``).
    'node_register': (
        'tripleoplan.node_register',
        "Register or update nodes from a TripleO nodes.json: every node "
        "checked first (nothing registered when one is wrong); a node "
        "already in Ironic (same uuid, name, MAC or BMC address) is "
        "updated.",
        {'nodes': None,             # [node mapping], no pm_password
         'staged': None,            # staged node file (nodes.staging)
         'ironic_url': None,
         'swift_url': None,         # where ``staged`` is
         'validate_only': False}),  # check, register nothing
    # Provisioning writes the deployed-server environment into the plan
    # and records the step (``plan_amend``'s way).
    'node_provision': (
        'tripleoplan.node_provision',
        "Allocate available nodes to the roles of a baremetal deployment, "
        "deploy them, and add the deployed-server environment to the plan "
        "as a recorded step; nothing allocated when too few match.",
        {'container': _REQUIRED,
         'roles': _REQUIRED,        # the baremetal_deployment.yaml list
         'environment': None,       # plan path of the environment written
         'ctlplane_cidr': '192.168.24.0/24',    # addresses from its .10
         'ironic_url': None,
         'swift_url': None,
         'timeout': 3600,
         'command': None}),
    'node_unprovision': (
        'tripleoplan.node_unprovision',
        "Release the nodes provisioned into the plan (all, or some "
        "instances), and record the plan's environment without them.",
        {'container': _REQUIRED,
         'instances': None,         # [hostname]; None: every one
         'environment': None,       # as node_provision's
         'ctlplane_cidr': '192.168.24.0/24',
         'ironic_url': None,
         'swift_url': None,
         'timeout': 3600,
         'command': None}),
    # Bare metal (``nodes``): Ironic at the caller's (allowed) endpoint,
    # as the caller. A node names a node by name or uuid.
    'node_introspect': (
        'tripleoplan.node_introspect',
        "Inspect manageable nodes (Ironic's inspection); the follow task "
        "waits for each to end: its properties, or its last error.",
        {'nodes': None,             # [name or uuid]
         'all_manageable': False,
         'provide': False,          # then make those that passed available
         'ironic_url': None,
         'timeout': 3600}),         # seconds, for the whole operation
    'node_provide': (
        'tripleoplan.node_provide',
        "Make manageable nodes available (powered off); the follow task "
        "waits for each: available, or its last error.",
        {'nodes': None,
         'all_manageable': False,
         'ironic_url': None,
         'timeout': 3600}),
    'node_configure': (
        'tripleoplan.node_configure',
        "Set nodes' deploy kernel and ramdisk and their root device hints.",
        {'nodes': None,
         'all_manageable': False,
         'deploy_kernel': None,
         'deploy_ramdisk': None,
         'root_device': None,       # hints mapping, smallest/largest, names
         'root_device_minimum_size': 4,     # GiB
         'overwrite_root_device_hints': False,
         'ironic_url': None}),
    'node_tag': (
        'tripleoplan.node_tag',
        "Give nodes a profile (capability profile:NAME), or take it away.",
        {'nodes': _REQUIRED,
         'profile': None,           # None: remove the profile
         'ironic_url': None}),
    'profiles_list': (
        'tripleoplan.profiles_list',
        "Every node with its state, its profile and the profiles its "
        "capabilities allow.",
        {'all': False,              # also nodes not available/active
         'ironic_url': None}),
    # Validations (``validations``): playbooks in the caller's
    # tripleo-validations container and a plan's custom-validations/, run
    # by ansible-playbook in the executor, results kept in Swift.
    'validation_install': (
        'tripleoplan.validation_install',
        "Install the shipped validations into the caller's "
        "tripleo-validations container (only new or changed objects).",
        {'swift_url': None}),
    'validation_list': (
        'tripleoplan.validation_list',
        "The validations (a plan's own too), their groups, and why a "
        "malformed one cannot run.",
        {'plan': None,              # its custom-validations/ override
         'group': None,
         'swift_url': None}),
    'validation_run': (
        'tripleoplan.validation_run',
        "Run validations (by name, or a group) with ansible-playbook "
        "against localhost or the plan's servers; results kept in Swift "
        "under the workflow execution's id.",
        {'names': None,
         'group': None,
         'plan': None,
         'timeout': 600,            # seconds, for the whole run
         'swift_url': None,
         'heat_url': None}),
    'validation_stop': (
        'tripleoplan.validation_stop',
        "Stop a validation run: its ansible-playbook's process group "
        "killed, the run recorded STOPPED.",
        {'run': _REQUIRED,
         'swift_url': None}),
    'validation_results': (
        'tripleoplan.validation_results',
        "The validation runs of the caller's project (of a plan), or one "
        "run with each validation's failed tasks.",
        {'run': None,
         'plan': None,
         'swift_url': None}),
}

# action run on its own (no workflow, nothing saved in Mistral) ->
# (action, description, {request field: default})
ACTIONS = {
    'preview': (
        'tripleoplan.preview',
        "Heat's preview of the plan's stack operation, with the changes a "
        "step would make (the overlay) on top of the plan; writes nothing.",
        {'container': _REQUIRED,
         'environments': _REQUIRED,  # plan paths, in Heat's merge order
         'swift_url': None,
         'heat_url': None,
         'plan_environment': None,
         'tree': None,              # the recorded tree the step builds on
         'unchanged': None,         # as deploy's: NONE without asking Heat
         'timeout': 240,            # minutes, Heat's stack timeout
         'overlay': None,           # {plan path: encode_overlay text}
         'deleted': None,           # [plan path]
         'render': None,            # {roles_data, network_data}: render
         'show_nested': True}),     # ask Heat for nested stacks' changes
}

# workflow -> (task, action) that runs after the workflow's own task, again
# every FOLLOW_DELAY seconds until it reports ``done``: the deploy workflow
# follows the stack to its end and records the outcome, whether or not
# its caller still waits.
FOLLOW = {'deploy': ('follow', 'tripleoplan.follow')}
# One Heat request a round while the stack works (``follow``): a deploy
# of minutes, a few dozen; the outcome is on record at most this late.
FOLLOW_DELAY = 10
FOLLOW_ROUNDS = 2500            # ~7 hours; the action ends sooner
# Node operations end in seconds on fake hardware, in minutes on real:
# their follow tasks look more often (one Ironic listing a round).
FOLLOW_DELAYS = {}
NODE_FOLLOW_DELAY = 2
FOLLOW.update(
    node_introspect=('follow', 'tripleoplan.node_introspect_follow'),
    node_provide=('follow', 'tripleoplan.node_provide_follow'))
FOLLOW_DELAYS.update(node_introspect=NODE_FOLLOW_DELAY,
                     node_provide=NODE_FOLLOW_DELAY)
FOLLOW.update(
    node_provision=('follow', 'tripleoplan.node_provision_follow'),
    node_unprovision=('follow', 'tripleoplan.node_unprovision_follow'))
FOLLOW_DELAYS.update(node_provision=NODE_FOLLOW_DELAY,
                     node_unprovision=NODE_FOLLOW_DELAY)


def workflow(name):
    """The full name of one of our workflows in Mistral."""
    return '%s.%s' % (WORKBOOK, name)


def action(name):
    """The Mistral action that reads request ``name``."""
    return _entry(name)[0]


def _entry(name):
    return WORKFLOWS[name] if name in WORKFLOWS else ACTIONS[name]


def request(name, /, **fields):
    """The request the client sends to workflow (or action) ``name``."""
    _, _, spec = _entry(name)
    unknown = sorted(set(fields) - set(spec))
    if unknown:
        raise TypeError('%s request: unknown field(s) %s'
                        % (name, ', '.join(unknown)))
    out = {k: fields.get(k, None if v is _REQUIRED else v)
           for k, v in spec.items()}
    out['protocol'] = PROTOCOL
    return out


def read(name, req):
    """A request as an action receives it: checked, defaults filled in."""
    req = dict(req or {})
    theirs = req.pop('protocol', None)
    if theirs != PROTOCOL:
        raise exceptions.CommandError(
            'The tripleoplan actions in this Mistral speak protocol %d, the '
            'client protocol %s: install the same tripleoplanclient version '
            'in Mistral\'s environment (pip install -U '
            '"tripleoplanclient[mistral]") and restart Mistral.'
            % (PROTOCOL, theirs))
    _, _, spec = _entry(name)
    unknown = sorted(set(req) - set(spec))
    missing = sorted(k for k, v in spec.items()
                     if v is _REQUIRED and req.get(k) is None)
    if unknown or missing:
        raise exceptions.CommandError(
            'Bad %s request: %s.' % (name, '; '.join(
                filter(None, ['unknown %s' % ', '.join(unknown) if unknown
                              else '', 'missing %s' % ', '.join(missing)
                              if missing else '']))))
    return {k: req.get(k, None if v is _REQUIRED else v)
            for k, v in spec.items()}


def workbook():
    """The workbook's definition (YAML text), as installed in Mistral.

    Each workflow passes its one ``request`` input to its action and
    publishes the action's result under the workflow's name.
    """
    import yaml

    workflows = {}
    for name, (action, description, _) in WORKFLOWS.items():
        tasks = {name: {
            'action': action,
            'input': {'request': '<% $.request %>'},
            'publish': {name: '<% task().result %>'}}}
        if name in FOLLOW:
            task, follower = FOLLOW[name]
            tasks[name]['on-success'] = [task]
            tasks[task] = {
                'action': follower,
                'input': {'request': '<% $.request %>',
                          'started': '<%% $.%s %%>' % name},
                'publish': {'followed': '<% task().result %>'},
                'retry': {'count': FOLLOW_ROUNDS,
                          'delay': FOLLOW_DELAYS.get(name, FOLLOW_DELAY),
                          'continue-on': '<% not $.followed.done %>'}}
        output = {name: '<%% $.%s %%>' % name}
        if name in FOLLOW:
            # the end its follow task saw
            output['followed'] = '<% $.followed %>'
        workflows[name] = {
            'description': description,
            'tags': [TAG],
            'input': ['request'],
            'output': output,
            'tasks': tasks,
        }
    book = {'version': '2.0', 'name': WORKBOOK,
            'description': 'tripleoplanclient plan workflows (generated '
                           'from tripleoplanclient.protocol)',
            'tags': [TAG], 'workflows': workflows}
    return yaml.safe_dump(book, default_flow_style=False, sort_keys=False)


# What an action that records a step answers (``result``) when the plan
# was already as asked: no step.
UNCHANGED = 'UNCHANGED'


def result(plan, step, state):
    """What the client shows of a step: its id, action, counts and
    outcome (or UNCHANGED: ``step`` None) and the plan's environment list
    after it (``state``: the record's state when nothing was written)."""
    if step is None:
        return {'plan': plan, 'id': None, 'action': None,
                'environments': list(state['environments']),
                'added': 0, 'changed': 0, 'removed': 0,
                'status': UNCHANGED}
    return {'plan': plan, 'id': step['id'], 'action': step['action'],
            'environments': list(step['state']['environments']),
            'added': step['objects']['added'],
            'changed': step['objects']['changed'],
            'removed': step['objects']['removed'],
            'status': step['outcome']['status']}


def render_entry(summary):
    """A step's render entry from the render action's summary
    (``hashes`` and ``removed_paths`` go into the step's tree, not into
    the entry)."""
    out = {'state': 'SUCCESS', 'outputs': summary.get('outputs', 0),
           'written': len(summary.get('written', [])),
           'removed': len(summary.get('removed', [])),
           'hashes': summary.get('hashes') or {},
           'removed_paths': summary.get('removed', [])}
    if summary.get('ignored'):
        out['info'] = '; '.join(summary['ignored'])
    return out


# Overlay: content a step would write, carried in a request (JSON: text).
# Each entry is the zlib-compressed bytes, base64-encoded; the reader bounds
# what the entries decompress to, all together.
MAX_OVERLAY_BYTES = 16 * 1024 * 1024


def encode_overlay(files):
    """``{plan path: bytes}`` -> the request's ``overlay``."""
    return {path: base64.b64encode(zlib.compress(data, 6)).decode('ascii')
            for path, data in files.items()}


def decode_overlay(overlay, limit=MAX_OVERLAY_BYTES):
    """The request's ``overlay`` -> ``{plan path: bytes}``.

    CommandError when it is malformed or decompresses to more than
    ``limit`` bytes in all (each entry is inflated only up to what is
    left, so a small entry that would inflate to gigabytes is refused
    without being inflated).
    """
    if overlay is None:
        return {}
    if not isinstance(overlay, dict):
        raise exceptions.CommandError(
            'Bad preview request: overlay is not a mapping.')
    out = {}
    left = limit
    for path in sorted(overlay, key=str):
        text = overlay[path]
        if not isinstance(path, str) or not isinstance(text, str):
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %r is not text.'
                % (path,))
        try:
            packed = base64.b64decode(text.encode('ascii'), validate=True)
            inflate = zlib.decompressobj()
            data = inflate.decompress(packed, left + 1)
        except (binascii.Error, UnicodeEncodeError, ValueError,
                zlib.error) as exc:
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %s is not zlib data in '
                'base64 (%s).' % (path, exc))
        if len(data) > left or inflate.unconsumed_tail:
            raise exceptions.CommandError(
                'The preview\'s changes are larger than %s once '
                'decompressed (at %s); preview a smaller change.'
                % (_size(limit), path))
        if not inflate.eof or inflate.unused_data:
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %s is not one complete '
                'zlib stream.' % path)
        left -= len(data)
        out[path] = data
    return out


def _size(count):
    mib = 1024 * 1024
    return '%d MiB' % (count // mib) if count % mib == 0 else \
        '%d bytes' % count
