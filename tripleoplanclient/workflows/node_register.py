"""``overcloud node import`` from the client: the node file staged in
Swift (``nodes.staging``: its BMC passwords never in a workflow's
input), the ``node_register`` workflow run, its rows read back."""

from tripleoplanclient import protocol
from tripleoplanclient.nodes import staging


def register(workflows, conn, data, swift_url, ironic_url=None,
             validate_only=False, timeout=600):
    """``(rows, requests to Ironic)`` of registering the node file
    ``data`` (bytes); ``conn``: a swiftclient Connection of the caller's
    project at ``swift_url``. The staged file is removed when the
    workflow could not take it."""
    staged = staging.put(conn, data)
    try:
        result = workflows.run_workflow('node_register', protocol.request(
            'node_register', staged=staged, swift_url=swift_url,
            ironic_url=ironic_url, validate_only=validate_only), timeout)
    finally:
        # the action deleted it; not when Mistral never ran it
        staging.discard(conn, staged)
    result = result or {}
    return result.get('nodes') or [], result.get('requests')
