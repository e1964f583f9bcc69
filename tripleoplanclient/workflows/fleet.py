"""The fleet after the deploy, from the client.

Manage and manual cleaning (``overcloud node manage``, ``overcloud node
clean``, ``overcloud node bios configure|reset``, ``overcloud raid
create``): the request built here, run and followed as every node
workflow (``nodes.run_followed``): ``Outcome(rows, status, execution)``.

Discovery (``overcloud node discover``): the addresses worked out here (a
range bounded before it is listed), then the ``node_discover`` action run
on its own, synchronously and unsaved, the credentials inline
(``nodes.register``'s way: Mistral keeps nothing of the run).
"""

import ipaddress

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions
from tripleoplanclient.workflows import nodes as nodes_mod

# the action's own bound (nodes.discovery.MAX_PROBES): a /22
MAX_ADDRESSES = 1024


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


def addresses(ips=None, cidr=None):
    """The addresses to probe: ``ips`` as given, or every host address of
    ``cidr``; CommandError naming the input when it is not one, or the
    range is larger than a /22."""
    if cidr is not None:
        try:
            network = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            raise exceptions.CommandError(
                '--range %r is not an address range: give one such as '
                '192.168.24.0/24. Nothing was probed.' % cidr)
        if network.num_addresses > MAX_ADDRESSES:
            raise exceptions.CommandError(
                '--range %s holds %d addresses: more than the %d (a /22) '
                'one discovery probes; split it. Nothing was probed.' % (
                    cidr, network.num_addresses, MAX_ADDRESSES))
        hosts = list(network.hosts()) or [network.network_address]
        return [str(a) for a in hosts]
    found = []
    for ip in ips or ():
        try:
            found.append(str(ipaddress.ip_address(ip)))
        except ValueError:
            raise exceptions.CommandError(
                '--ip %r is not an IP address. Nothing was probed.' % ip)
    return list(dict.fromkeys(found))


def credentials(pairs):
    """``[[user, password]]`` of ``USER:PASSWORD`` texts (the password may
    hold colons); CommandError naming the user only."""
    found = []
    for pair in pairs or ():
        user, sep, password = pair.partition(':')
        if not sep or not user or not password:
            raise exceptions.CommandError(
                'Each --credentials is USER:PASSWORD (%s is not). Nothing '
                'was probed.' % ('user %r' % user if sep else 'one given'))
        found.append([user, password])
    return found


def discover(workflows, ips, ports, pairs, ironic_url=None):
    """``(rows, probes made, requests to Ironic)``: a row per BMC that
    answered and per system found and registered. StillRunning when no
    answer came (registration may go on)."""
    request = protocol.request(
        'node_discover', addresses=ips, ports=ports or None,
        credentials=pairs, ironic_url=ironic_url,
        timeout=nodes_mod.REGISTER_WAIT)
    try:
        result = workflows.run_action('node_discover', request,
                                      nodes_mod.REGISTER_WAIT + 15)
    except executions.NoAnswer as exc:
        raise executions.StillRunning(
            'No answer from the node discovery in Mistral (%s): it may have '
            'registered nodes, or still be at it. Run the same discovery '
            'again to see each node (what Ironic has is not written '
            'twice).' % exc.why)
    result = result or {}
    return (result.get('nodes') or [], result.get('probed'),
            result.get('requests'))
