#!/usr/bin/env python3
"""How ``overcloud node provision`` claims nodes, measured against the
loopback Ironic (issue 29): our matching and one PATCH per node
(``nodes.provision``: instance_uuid + extra, 409 when taken) against
Ironic's allocation API (POST /v1/allocations with the candidate node,
polled until the conductor answers, DELETE on release).

N fake-hardware nodes (default 20) of a resource class of their own are
made available, claimed one way, released, claimed the other way,
released, then deleted. Prints wall time and Ironic requests of each
claim and release (our client's counter).

Needs the loopback Keystone and Ironic (``python3 tools/loopback start
keystone ironic``). Usage: ``python3 tools/bench/provision.py [--nodes N]``.
"""

import argparse
import os
import sys
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)


def wait(ironic, uuids, state):
    left = set(uuids)
    while left:
        for node in ironic.nodes(('uuid', 'provision_state')):
            if node['uuid'] in left and node['provision_state'] == state:
                left.discard(node['uuid'])
        time.sleep(0.1 if left else 0)


def measure(ironic, fn):
    before, started = ironic.requests, time.monotonic()
    fn()
    return time.monotonic() - started, ironic.requests - before


def main():
    from tests.functional import base
    from tripleoplanclient.nodes import baremetal_file
    from tripleoplanclient.nodes import ironic as ironic_mod
    from tripleoplanclient.nodes import provision

    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=20)
    args = parser.parse_args()
    env = base.loopback_env()
    ironic = ironic_mod.Ironic(base.keystone_session(env),
                               base.ironic_url(env))
    rc = 'tpc-bench-%s' % uuid.uuid4().hex[:8]
    uuids = [n['uuid'] for _, n, _ in ironic.each(
        lambda i: ironic.create_node({
            'name': '%s-%d' % (rc, i), 'driver': 'fake-hardware',
            'resource_class': rc, 'inspect_interface': 'no-inspect'}),
        range(args.nodes))]
    try:
        ironic.each(lambda u: ironic.provision(u, 'manage'), uuids)
        wait(ironic, uuids, 'manageable')
        ironic.each(lambda u: ironic.power(u, 'power off'), uuids)
        ironic.each(lambda u: ironic.provision(u, 'provide'), uuids)
        wait(ironic, uuids, 'available')
        roles = baremetal_file.read([{
            'name': 'Compute', 'count': args.nodes,
            'defaults': {'resource_class': rc}}])
        plan = 'bench-%s' % rc

        def ours():
            # the claim only: the two listings and a PATCH per node
            instances, _ = provision.wanted(roles, plan)
            current = provision.plan_nodes(ironic, plan)
            free = [n for n in ironic.nodes(
                provision.FIELDS, provision_state='available',
                associated='False') if provision.usable(n)]
            picks = provision.pick_nodes(instances, current, free, [])
            provision.claim_nodes(
                ironic, plan, instances, picks, provision.ctlplane_addresses(
                    instances, current, provision.CTLPLANE_CIDR),
                provision.CTLPLANE_CIDR, None, {})

        def ours_release():
            provision.release(ironic, [
                dict(n, provision_state='available')
                for n in provision.plan_nodes(ironic, plan).values()])

        made = []

        def allocations():
            def one(u):
                alloc = ironic.call('POST', '/allocations', {
                    'resource_class': rc, 'candidate_nodes': [u]})
                while alloc['state'] == 'allocating':
                    time.sleep(0.05)
                    alloc = ironic.call('GET', '/allocations/%s'
                                        % alloc['uuid'])
                if alloc['state'] != 'active':
                    raise RuntimeError(alloc.get('last_error'))
                made.append(alloc['uuid'])
            for _, _, error in ironic.each(one, uuids):
                if error:
                    raise error

        def allocations_release():
            ironic.each(lambda a: ironic.call('DELETE', '/allocations/%s'
                                              % a), made)

        rows = [('PATCH claim', measure(ironic, ours)),
                ('PATCH release', measure(ironic, ours_release)),
                ('allocation API claim', measure(ironic, allocations)),
                ('allocation API release',
                 measure(ironic, allocations_release))]
        print('%d nodes' % args.nodes)
        for name, (seconds, requests) in rows:
            print('%-24s %6.2f s %5d requests' % (name, seconds, requests))
    finally:
        ironic.each(ironic.delete_node, uuids)


if __name__ == '__main__':
    main()
