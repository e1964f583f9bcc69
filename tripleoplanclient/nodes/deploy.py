"""What the deploy of a node provisioned into a plan sends Ironic, and
how many nodes deploy at once.

A deploy is two requests: the node's ``instance_info`` written whole
(``instance_info.fields``: image, checksum, kernel and ramdisk, root and
swap sizes; ``display_name``; and ``MARK``, this run's id), then ``PUT
.../states/provision`` ``active`` with the config drive as a mapping
(Ironic 1.56+ builds the ISO: ``config_drive.build``), the ctlplane
address in its network_data on the node's PXE port.

At most ``concurrency`` nodes deploy at once (python-tripleoclient's
``--concurrency``, default 20): the first task starts that many, each
follow round starts more as others come to rest. A node waiting its turn
is ours and still ``available`` (or ``deploy failed`` from an earlier
run) without this run's mark. Whatever the concurrency, ``Ironic.each``
keeps at most five requests in flight.
"""

import uuid

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import config_drive
from tripleoplanclient.nodes import instance_info

CONCURRENCY = 20
MAX_CONCURRENCY = 1000
# instance_info key: the run that asked for this node's deploy
MARK = 'tripleoplan_run'
# where a node waits its turn (not yet asked by this run)
WAITING = ('available', 'deploy failed')
# Ironic's states of a deploy under way
DEPLOYING = ('deploying', 'wait call-back', 'deploy hold')


def new_run():
    return uuid.uuid4().hex[:12]


def check_concurrency(value):
    if not isinstance(value, int) or isinstance(value, bool) or \
            not 1 <= value <= MAX_CONCURRENCY:
        raise exceptions.CommandError(
            'Bad node_provision request: concurrency must be a whole number '
            'from 1 to %d. Nothing was provisioned.' % MAX_CONCURRENCY)
    return value


def settings(roles, role, hostname, node):
    """The disk settings and config drive of ``hostname`` (of ``role``,
    on ``node``): its instance's in the file (by hostname, or by node
    when the instance names no hostname), else its role's defaults."""
    found = next((r for r in roles if r['name'] == role), None)
    if found is None:
        return {'config_drive': {}, **instance_info.merged({}, {})}
    instance = next((i for i in found['instances']
                     if i['hostname'] == hostname or
                     (not i['hostname'] and i['node'] in (
                         node.get('name'), node['uuid']))), {})
    return dict(instance_info.merged(found, instance),
                config_drive=config_drive.merged(found['config_drive'],
                                                 instance.get(
                                                     'config_drive')))


def problems(roles, instances, picks):
    """What the picked nodes cannot take (a partition image with no root
    size known), before any is allocated."""
    found = []
    for inst in instances:
        node = picks.get(inst['hostname'])
        if node is not None:
            found.append(instance_info.root_problem(settings(
                roles, inst['role'], inst['hostname'], node), node,
                inst['hostname']))
    return [p for p in found if p]


def start(ironic, items, roles, login, run):
    """Deploy each ``(node, record)`` of ``items`` (``record``: its
    ``extra.tripleoplan``); ``login``: ``{user, keys}`` or None (no login
    user in the config drive). ``[(node, error)]`` of those refused."""
    def one(item):
        node, ours = item
        found = settings(roles, ours.get('role'), ours['hostname'], node)
        info = dict(instance_info.fields(found, node),
                    display_name=ours['hostname'], **{MARK: run})
        ironic.patch_node(node['uuid'], [
            {'op': 'add', 'path': '/instance_info', 'value': info}])
        network = None
        if ours.get('ctlplane_ip') and ours.get('ctlplane_cidr'):
            macs = [p['address'] for p in ironic.ports(node=node['uuid'])
                    if p.get('pxe_enabled', True)]
            network = config_drive.network_data(
                ours['ctlplane_ip'], ours['ctlplane_cidr'],
                macs[0] if macs else None)
        user, keys = (login or {}).get('user'), (login or {}).get('keys')
        drive = config_drive.build(
            node, ours['hostname'], ours.get('role'), user, keys or (),
            found['config_drive'], network)
        ironic.provision(node['uuid'], 'active', configdrive=drive)
    return [(n, e) for (n, _), _, e in ironic.each(one, items) if e]


def next_turn(ironic, nodes, queued, records, roles, login, run,
              concurrency):
    """One follow round's turn: of ``queued`` (uuids, in order) those not
    yet asked by ``run`` start while fewer than ``concurrency`` of
    ``nodes`` (``{uuid: node}``, as just read) are deploying.
    ``(waiting, refused)``: the uuids that waited their turn at this
    look (started now or still waiting: the follow goes on), and
    ``[(node, error)]``."""
    waiting = [u for u in queued if u in nodes and
               nodes[u]['provision_state'] in WAITING and
               (nodes[u].get('instance_info') or {}).get(MARK) != run]
    busy = sum(1 for n in nodes.values()
               if n['provision_state'] in DEPLOYING)
    now = waiting[:max(0, concurrency - busy)]
    refused = start(ironic, [(nodes[u], records[u]) for u in now], roles,
                    login, run)
    return waiting, refused
