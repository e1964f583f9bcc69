"""The body of the ``tripleoplan.node_register`` action
(``node_actions.RegisterNodes``), in Mistral's executor; no mistral_lib
here, so unit tests run it with the context Mistral gives.

BMC passwords come inline, and only where Mistral keeps nothing of the
run (``input_saved``): the client runs the action on its own,
synchronously and unsaved. As a workflow's task, or an action execution
Mistral saves, a ``pm_password`` is refused before Ironic is asked
anything: the project can read what Mistral keeps.
"""

from tripleoplanclient.common import exceptions


def input_saved(context):
    """Whether Mistral keeps this action's input, readable by the project
    (``openstack action execution show``): it has an action execution.

    Mistral 23 (``engine/actions.py``,
    ``Action._prepare_execution_context``) gives the action an
    ``action_execution_id`` exactly when it created the action execution
    before the run: a task of a workflow (which also has a
    ``workflow_execution_id``), or an action run on its own and scheduled
    (``run_sync`` false, ``save_result`` true). An action run on its own
    with ``save_result`` false (``engine/default_engine.py``
    ``start_action``: ``engine_action.run(..., save=False)``) gets
    neither, and nothing is written. One case cannot be told from here:
    ``run_sync`` and ``save_result`` both true runs the action unsaved
    too, then writes its input and output (``start_action``, after the
    run); only a caller who asks for that keeps its own request.
    """
    execution = getattr(context, 'execution', None)
    return bool(getattr(execution, 'action_execution_id', None) or
                getattr(execution, 'workflow_execution_id', None))


def register(ironic, req, context):
    """The action's answer: ``nodes`` (a row per node, ``register``),
    ``requests`` to Ironic, ``failed``. CommandError (nothing registered)
    for a bad request, a wrong node file, or a password Mistral would
    keep."""
    from tripleoplanclient.nodes import nodes_json
    from tripleoplanclient.nodes import register as register_mod

    if not isinstance(req['nodes'], list):
        raise exceptions.CommandError(
            'Bad node_register request: nodes must be a list of node '
            'mappings. Nothing was registered.')
    timeout = register_mod.MANAGE_TIMEOUT if req['timeout'] is None \
        else req['timeout']
    if isinstance(timeout, bool) or not isinstance(
            timeout, (int, float)) or not 0 < timeout <= 3600:
        raise exceptions.CommandError(
            'Bad node_register request: timeout %r is not a number of '
            'seconds from 1 to 3600. Nothing was registered.'
            % (req['timeout'],))
    entries = nodes_json.read(req['nodes'], 'The request\'s nodes',
                              passwords=not input_saved(context))
    rows = register_mod.register(ironic, entries, timeout=timeout,
                                 validate_only=req['validate_only'])
    return {'nodes': rows, 'requests': ironic.requests,
            'failed': sum(1 for r in rows if r['action'] == 'failed')}
