"""What the progress lines call each workflow and action: the operator's
words for what happens to their plan, stack or nodes ("Amending plan
overcloud"), never Mistral's names (``tripleoplan.v1.plan_amend``)."""

# name -> what is being done; {plan}: the request's container, {nodes}:
# the nodes it names ("3 nodes", or "the manageable nodes")
_DOING = {
    'render': 'Rendering plan {plan}',
    'plan_create': 'Creating plan {plan}',
    'plan_amend': 'Amending plan {plan}',
    'plan_restore': 'Restoring plan {plan}',
    'plan_list': 'Listing the plans',
    'plan_delete': 'Deleting {plans}',
    'capabilities': 'Reading the capabilities of plan {plan}',
    'capabilities_set': 'Setting the capabilities of plan {plan}',
    'roles': 'Reading the roles of plan {plan}',
    'parameters': 'Reading the parameters of plan {plan}',
    'parameters_set': 'Setting parameters of plan {plan}',
    'validate': 'Validating plan {plan}',
    'preview': 'Previewing the stack operation of plan {plan}',
    'config_download': 'Building the configuration of {plan}',
    'node_register': 'Registering {nodes}',
    'node_discover': 'Discovering BMCs',
    'node_introspect': 'Introspecting {nodes}',
    'node_provide': 'Providing {nodes}',
    'node_manage': 'Making {nodes} manageable',
    'node_clean': 'Cleaning {nodes}',
    'node_configure': 'Configuring {nodes}',
    'node_tag': 'Tagging {nodes}',
    'profiles_list': 'Listing the nodes\' profiles',
    'node_provision': 'Provisioning nodes for {plan}',
    'node_unprovision': 'Unprovisioning nodes of {plan}',
    'node_delete': 'Deleting {nodes} of {plan}',
    'overcloud_delete': 'Deleting overcloud {plan}',
    'validation_install': 'Installing the validations',
    'validation_list': 'Listing the validations',
    'validation_run': 'Running validations',
    'validation_stop': 'Stopping validation run {run}',
    'validation_results': 'Reading validation results',
    'validation_seal': 'Sealing the validations\' secret variables',
}
_DEPLOY = {'deploy': 'Deploying {plan}', 'update': 'Updating {plan}',
           'upgrade': 'Upgrading {plan}'}
# Workflows whose first task only starts the work (a follow task, or Heat,
# goes on): its end is not the work's, the caller tells what started
STARTS = ('deploy', 'node_introspect', 'node_provide', 'node_manage',
          'node_clean', 'node_provision', 'node_unprovision', 'node_delete',
          'overcloud_delete')


def doing(name, request):
    """What workflow (or action) ``name`` does with ``request``, in the
    operator's words."""
    request = request if isinstance(request, dict) else {}
    if name == 'deploy':
        form = _DEPLOY.get(request.get('action'), 'Deploying {plan}')
    elif name == 'node_register' and request.get('validate_only'):
        form = 'Checking {nodes}'
    else:
        form = _DOING.get(name, name.replace('_', ' ').capitalize())
    nodes = request.get('nodes')
    plans = request.get('containers') or []
    return form.format(
        plan=request.get('container') or 'the plan',
        plans=('plan ' if len(plans) == 1 else 'plans ') + ', '.join(plans),
        run=request.get('run'),
        nodes=('%d node%s' % (len(nodes), '' if len(nodes) == 1 else 's')
               if isinstance(nodes, list) else 'the %s nodes' % (
                   request.get('all_state') or 'manageable')))


def state(doing, state, seconds):
    """A progress line: the work ``doing`` in Mistral's ``state`` (how
    long it took once it ended)."""
    ended = {'SUCCESS': 'done in', 'ERROR': 'failed after',
             'CANCELLED': 'cancelled after'}
    return '%s: %s' % (doing, '%s %.1f s' % (ended[state], seconds)
                       if state in ended else state.lower())
