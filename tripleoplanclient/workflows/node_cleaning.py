"""Manage and manual cleaning from the client (``overcloud node manage``,
``overcloud node clean``, ``overcloud node bios configure|reset``,
``overcloud raid create``): the request built here, run and followed as
every node workflow (``nodes.run_followed``): ``Outcome(rows, status,
execution)``.
"""

from tripleoplanclient import protocol
from tripleoplanclient.workflows import nodes as nodes_mod


def manage(workflows, nodes, all_state=None, ironic_url=None,
           timeout=3600, wait=True, started=None):
    """Make ``nodes`` (names or uuids) or every node in ``all_state``
    (enroll or available) manageable."""
    return nodes_mod.run_followed(workflows, 'node_manage', protocol.request(
        'node_manage', nodes=list(nodes or []) or None, all_state=all_state,
        ironic_url=ironic_url, timeout=timeout), timeout, wait, started)


def clean(workflows, nodes, operation, configuration=None,
          all_manageable=False, provide=False, ironic_url=None,
          timeout=3600, wait=True, started=None):
    """Clean ``nodes`` (or every manageable node) with ``operation``'s
    clean steps (``nodes.cleaning``); with ``provide``, then make them
    available."""
    return nodes_mod.run_followed(workflows, 'node_clean', protocol.request(
        'node_clean', nodes=list(nodes or []) or None,
        all_manageable=all_manageable, operation=operation,
        configuration=configuration, provide=provide, ironic_url=ironic_url,
        timeout=timeout), timeout, wait, started)
