"""The bare metal workflows (``tripleoplanclient.nodes``)."""

from tripleoplanclient.protocol.fields import REQUIRED

# Where node_provision writes the deployed-server environment in the plan
# unless the request's ``environment`` says (the client reads it back).
PROVISION_ENVIRONMENT = 'baremetal-environment.yaml'
# and its servers' login user (nodes.login)
PROVISION_LOGIN = 'baremetal-login.yaml'
# node_introspect's per-node settings: (least, most) a request may ask
INTROSPECT_BOUNDS = {'node_timeout': (1, 86400), 'max_retries': (0, 10),
                     'retry_timeout': (0, 3600), 'concurrency': (1, 1000)}

WORKFLOWS = {
    # Bare metal (``nodes``): Ironic at the caller's (allowed) endpoint,
    # as the caller. BMC passwords come inline only when Mistral keeps
    # nothing of the request: the client runs the action on its own,
    # synchronously and unsaved (``executions.Workflows.run_action``);
    # as a workflow (whose input Mistral keeps) a pm_password is refused.
    'node_register': (
        'tripleoplan.node_register',
        "Register or update nodes from a TripleO nodes.json: every node "
        "checked first (nothing registered when one is wrong); a node "
        "already in Ironic (same uuid, name, MAC or BMC address) is "
        "updated. BMC passwords only in an unsaved run of the action "
        "(POST /v2/action_executions, params run_sync true, save_result "
        "false): refused here.",
        {'nodes': REQUIRED,         # [node mapping] (nodes_json)
         'ironic_url': None,
         'validate_only': False,    # check, register nothing
         # seconds the action takes at most before it answers (new nodes
         # still verifying their BMC then say so); None: 300. The client
         # gives less than Mistral's rpc_response_timeout (60 s default)
         'timeout': None}),
    # Provisioning writes the deployed-server environment into the plan
    # and records the step (``plan_amend``'s way).
    'node_provision': (
        'tripleoplan.node_provision',
        "Allocate available nodes to the roles of a baremetal deployment, "
        "deploy them (image, sizes, a config drive with the login user "
        "and its SSH public keys; at most concurrency at once), and add "
        "the deployed-server environment and the login user to the plan "
        "as a recorded step; nothing allocated when too few match.",
        {'container': REQUIRED,
         'roles': REQUIRED,        # the baremetal_deployment.yaml list
         'environment': None,       # plan path of the environment written
         'ctlplane_cidr': '192.168.24.0/24',    # addresses from its .10
         'ironic_url': None,
         'swift_url': None,
         'timeout': 3600,
         'command': None,
         # the config drive's login user (recorded in the plan) and its
         # SSH public keys (never a private key: Mistral keeps its input)
         'ssh_user': 'tripleo-admin',
         'ssh_keys': REQUIRED,
         'concurrency': 20}),        # nodes deploying at once
    'node_unprovision': (
        'tripleoplan.node_unprovision',
        "Release the nodes provisioned into the plan (all, or some "
        "instances), and record the plan's environment without them.",
        {'container': REQUIRED,
         'instances': None,         # [hostname]; None: every one
         'environment': None,       # as node_provision's
         'ctlplane_cidr': '192.168.24.0/24',
         'ironic_url': None,
         'swift_url': None,
         'timeout': 3600,
         'command': None}),
    # A scale down (``mistral.node_delete``): the servers named are
    # resolved from the stack, the plan's environment gains their removal
    # policies and lower counts, the deploy workflow records that update
    # step (its ``update`` task), then the released nodes are undeployed.
    'node_delete': (
        'tripleoplan.node_delete',
        "Remove servers from the plan's stack by name, node or Role/index: "
        "<Role>RemovalPolicies and a lower <Role>Count in the plan's "
        "environment, the stack updated as one recorded step (the deploy "
        "workflow), then their nodes released; nothing changed when a "
        "name is unknown or the stack is busy.",
        {'container': REQUIRED,
         'nodes': REQUIRED,         # [hostname, node name/uuid, Role/index]
         'provide': True,           # released nodes: available, else
                                    # manageable
         'environment': None,       # as node_provision's
         'ironic_url': None,
         'swift_url': None,
         'heat_url': None,
         'timeout': 240,            # minutes, Heat's stack timeout
         'config': 'auto',          # the update's configuration
         'config_timeout': 240,     # minutes
         'command': None}),
    'overcloud_delete': (
        'tripleoplan.overcloud_delete',
        "Delete the plan's stack and wait for its end; then delete the "
        "plan, or keep it with the delete on record; optionally release "
        "its nodes. The plan untouched when Heat fails.",
        {'container': REQUIRED,
         'keep_plan': False,
         'unprovision': False,
         'ironic_url': None,
         'swift_url': None,
         'heat_url': None,
         'timeout': 240,            # minutes
         'command': None}),
    # Bare metal (``nodes``): Ironic at the caller's (allowed) endpoint,
    # as the caller. A node names a node by name or uuid.
    'node_introspect': (
        'tripleoplan.node_introspect',
        "Inspect manageable nodes (Ironic's inspection), at most "
        "concurrency at once; the follow task aborts a node past its "
        "node_timeout, retries a failed one (max_retries, retry_timeout "
        "seconds after), starts the queued ones, and ends each: its "
        "properties, or its reason (the node then powered off).",
        {'nodes': None,             # [name or uuid]
         'all_manageable': False,
         'provide': False,          # then make those that passed available
         'ironic_url': None,
         'timeout': 3600,           # seconds, for the whole operation
         # per node, tripleoclient's defaults (``nodes.inspection``)
         'node_timeout': 1200,      # seconds an attempt may take
         'max_retries': 1,          # attempts after the first
         'retry_timeout': 120,      # seconds from a failure to its retry
         'concurrency': 20}),       # inspections at once
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
        {'nodes': REQUIRED,
         'profile': None,           # None: remove the profile
         'ironic_url': None}),
    'profiles_list': (
        'tripleoplan.profiles_list',
        "Every node with its state, its profile and the profiles its "
        "capabilities allow.",
        {'all': False,              # also nodes not available/active
         'ironic_url': None}),
    # After the deploy (``nodes.cleaning``): manage, and Ironic's manual
    # cleaning with an operation's clean steps; the follow task waits for
    # each node.
    'node_manage': (
        'tripleoplan.node_manage',
        "Make nodes manageable (from enroll, their BMC verified first, or "
        "available); the follow task waits for each: manageable, or its "
        "last error.",
        {'nodes': None,             # [name or uuid]
         'all_state': None,         # enroll or available: every such node
         'ironic_url': None,
         'timeout': 3600}),
    'node_clean': (
        'tripleoplan.node_clean',
        "Clean manageable nodes (Ironic's manual cleaning): erase their "
        "disks' metadata, apply or reset a BIOS configuration, or build a "
        "RAID configuration; the follow task waits for each: manageable "
        "(available with provide), or its last error.",
        {'nodes': None,
         'all_manageable': False,
         'operation': 'erase',      # erase, bios_configure, bios_reset,
                                    # raid_create
         'configuration': None,     # BIOS settings or RAID configuration
         'provide': False,
         'ironic_url': None,
         'timeout': 3600}),
    # Run as node_register: on its own, unsaved (BMC passwords inline);
    # as a workflow (whose input Mistral keeps) it is refused.
    'node_discover': (
        'tripleoplan.node_discover',
        "Probe addresses for Redfish BMCs (GET /redfish/v1/Systems) and "
        "register each system of those that took one of the credentials. "
        "BMC passwords only in an unsaved run of the action (POST "
        "/v2/action_executions, params run_sync true, save_result false): "
        "refused here.",
        {'addresses': REQUIRED,     # [IP address], at most 1024 probes
         'ports': None,             # [port]; None: 443 (https)
         'credentials': REQUIRED,   # [[user, password]], tried in order
         'ironic_url': None,
         'timeout': None}),         # seconds for probes and registration
}

# Node operations end in seconds on fake hardware, in minutes on real:
# their follow tasks look more often (one Ironic listing a round).
NODE_FOLLOW_DELAY = 2
FOLLOW = {name: ('follow', 'tripleoplan.%s_follow' % name) for name in (
    'node_introspect', 'node_provide', 'node_provision', 'node_unprovision')}
FOLLOW.update({name: ('follow', 'tripleoplan.%s_follow' % name)
               for name in ('node_manage', 'node_clean')})
# A scale down: the deploy workflow between its start and its follow
# (the release), given the request its start answers under 'deploy'.
FOLLOW['node_delete'] = ('release', 'tripleoplan.node_delete_release')
FOLLOW['overcloud_delete'] = ('follow', 'tripleoplan.overcloud_delete_follow')
SUBWORKFLOWS = {'node_delete': ('update', 'deploy')}
FOLLOW_DELAYS = {name: NODE_FOLLOW_DELAY for name in FOLLOW}
# A stack delete takes as long as a deploy may: followed at a deploy's pace
# (FOLLOW_ROUNDS of them last as long as a deploy's ``--timeout`` may)
FOLLOW_DELAYS['overcloud_delete'] = 10
