"""The plan's workflows and actions: render, the stack step, the life
cycle and the deployment library (``protocol`` assembles them)."""

from tripleoplanclient.protocol.fields import REQUIRED

# workflow -> (action, description, {request field: default})
WORKFLOWS = {
    'render': (
        'tripleoplan.render',
        "Render the plan's jinja2 templates in place in Swift.",
        {'container': REQUIRED,
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
        {'container': REQUIRED,
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
         # [{hook: pre, group, run, status}]: the validations the client
         # ran before the step (--run-validations), recorded in it
         'validations': None,
         'render': True,            # False: a step that must render fails
         'force': False,            # ask Heat even if nothing changed
         'timeout': 240,            # minutes, Heat's stack timeout
         'validate': True,          # library.refuse_to_deploy first
         'command': None,
         'directory': None,         # as plan_create's
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
        {'container': REQUIRED,
         'swift_url': None,
         'environments': None,      # plan paths, in Heat's merge order
         'files': None,             # {path: {source, md5, machine,
                                    #  tag, name}}: user files
                                    #  (record.origin; name: as given)
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
         'command': None,
         # where the client ran: its relative names' base (a local path)
         'directory': None}),
    'plan_amend': (
        'tripleoplan.plan_amend',
        "Record a change of the plan's environment list, inputs and "
        "files (written already); render when a rendering input changed.",
        {'container': REQUIRED,
         'swift_url': None,
         'add': None,               # environment plan paths, appended
         'remove': None,            # environment plan paths
         'files': None,             # as plan_create's
         'tree': None,              # {path: md5} of the objects written
         'inputs': None,
         'render': True,
         'command': None,
         'directory': None}),       # as plan_create's
    'plan_restore': (
        'tripleoplan.plan_restore',
        "Make the plan what it was after a past step (copies inside "
        "Swift), recorded as a new step; refused while its stack works.",
        {'container': REQUIRED,
         'step': REQUIRED,         # a step number or id (show-history)
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
        {'containers': REQUIRED,   # plan names
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
        {'container': REQUIRED,
         'swift_url': None}),
    'capabilities_set': (
        'tripleoplan.capabilities_set',
        "Enable and disable environment files of the plan's capabilities: "
        "a recorded step, refused when it breaks a constraint.",
        {'container': REQUIRED,
         'swift_url': None,
         'enable': None,            # [plan path], appended in this order
         'disable': None,           # [plan path]
         'command': None}),         # the client's command line, recorded
    'roles': (
        'tripleoplan.roles',
        "The roles of the plan's roles data and those its templates offer "
        "(one role's details with ``name``).",
        {'container': REQUIRED,
         'swift_url': None,
         'name': None}),
    'parameters': (
        'tripleoplan.parameters',
        "Every parameter of the assembled plan (Heat's validation with "
        "nested stacks): type, default, the plan's value (hidden ones "
        "masked), description, declaring templates.",
        {'container': REQUIRED,
         'swift_url': None,
         'heat_url': None,
         'role': None,              # only the parameters of this role
         'all': False}),            # also those only templates pass
    'parameters_set': (
        'tripleoplan.parameters_set',
        "Give parameters values, checked against Heat's types and "
        "constraints: a recorded step in the plan's parameters file.",
        {'container': REQUIRED,
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
        {'container': REQUIRED,
         'swift_url': None,
         'heat_url': None}),
}

# action run on its own (no workflow, nothing saved in Mistral) ->
# (action, description, {request field: default})
ACTIONS = {
    'preview': (
        'tripleoplan.preview',
        "Heat's preview of the plan's stack operation, with the changes a "
        "step would make (the overlay) on top of the plan; writes nothing.",
        {'container': REQUIRED,
         'environments': REQUIRED,  # plan paths, in Heat's merge order
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
