"""``overcloud node import`` from the client: the ``node_register``
action run on its own, synchronously and unsaved
(``executions.Workflows.run_action``), the nodes inline with their BMC
passwords: Mistral keeps nothing of that run (no execution, nothing in
Swift), so no member of the project can read them. Its rows read back.
"""

from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions

# Seconds the action may take before it answers (nodes still verifying
# their BMC then say so): below Mistral's rpc_response_timeout (60 s by
# default), past which its API drops the answer.
WAIT = 45


def register(workflows, nodes, ironic_url=None, validate_only=False,
             timeout=600):
    """``(rows, requests to Ironic)`` of registering ``nodes`` (the node
    file's list, checked): the action answers within ``timeout`` seconds
    (at most ``WAIT``), this client waits 15 s more for Mistral.
    StillRunning when no answer came: the action may have registered
    nodes, or still be at it."""
    request = protocol.request(
        'node_register', nodes=nodes, ironic_url=ironic_url,
        validate_only=validate_only, timeout=min(WAIT, timeout))
    try:
        result = workflows.run_action('node_register', request,
                                      timeout + 15)
    except executions.NoAnswer as exc:
        raise executions.StillRunning(
            'No answer from the node registration in Mistral (%s): it may '
            'have registered nodes, or still be at it. Run the same import '
            'again to see each node (what Ironic has is not written twice); '
            'if this repeats, raise Mistral\'s rpc_response_timeout '
            '([DEFAULT], 60 s by default) above %d s.' % (exc.why, WAIT + 15))
    result = result or {}
    return result.get('nodes') or [], result.get('requests')
