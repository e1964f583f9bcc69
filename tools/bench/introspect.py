#!/usr/bin/env python3
"""Benchmark introspection of a rack that misbehaves (issue 40).

N manageable fake-hardware nodes (default 50, ``agent`` inspection); a
thread plays their ramdisks: it posts each node's inventory once the node
waits in ``inspect wait``, except that every ``--flaky``-th node's first
inspection never hears from its ramdisk (it must time out, be aborted
and retried). Then:

* ours: ``openstack overcloud node introspect NODE... --node-timeout T
  --retry-timeout R --max-retries 1`` (our workflow: at most
  ``--concurrency`` inspections at once, one listing per follow round);
* naive: plain REST, one node at a time with the same policy: inspect,
  poll the node until it is manageable or T seconds passed, then abort,
  wait R seconds, inspect once more.

Both must end with every node manageable and inspected (checked). Ironic
requests are counted in its API log, those of a Keystone user made for
the run (``tools/bench/nodes.py``'s way: the agent's and other clients'
are left out). Prints wall time, Ironic requests and the ratios.

Needs the loopback Keystone, Swift, Mistral and Ironic, the workbook, and
``openstack`` on PATH. Usage: ``python3 tools/bench/introspect.py
[--nodes N] [--flaky K] [--node-timeout T] [--retry-timeout R]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tools.bench import nodes as node_bench  # noqa: E402


class Agent(threading.Thread):
    """The nodes' ramdisks: posts each node's inventory once it waits in
    ``inspect wait``; a node of ``silent`` is not answered the first
    time it waits."""

    def __init__(self, ironic, macs, silent):
        super().__init__(daemon=True)
        from tests.functional import ironic_base
        self.inventory = ironic_base.inventory
        self.ironic, self.macs, self.silent = ironic, macs, set(silent)
        self.waited = set()         # silent nodes seen waiting once
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            found = self.ironic('GET', '/nodes?fields=name,provision_state'
                                '&limit=1000')['nodes']
            for node in found:
                name = node['name']
                if name not in self.macs:
                    continue
                if node['provision_state'] != 'inspect wait':
                    if name in self.waited:
                        self.silent.discard(name)
                    continue
                if name in self.silent:
                    self.waited.add(name)
                    continue
                self.ironic('POST', '/continue_inspection', {
                    'inventory': self.inventory(self.macs[name]),
                    'root_disk': {'name': '/dev/sda',
                                  'size': 100 * 1024 ** 3}}, token=False)
            self.stop.wait(0.5)


def enroll(ironic, names, run):
    """Manageable, powered-off fake-hardware nodes with one port each;
    ``{name: mac}``."""
    macs = {}
    for i, name in enumerate(names):
        node = ironic('POST', '/nodes', {
            'name': name, 'driver': 'fake-hardware',
            'inspect_interface': 'agent'})
        macs[name] = node_bench.mac(i, run)
        ironic('POST', '/ports', {'node_uuid': node['uuid'],
                                  'address': macs[name]})
        ironic('PUT', '/nodes/%s/states/provision' % node['uuid'],
               {'target': 'manage'})
    for name in names:
        node_bench.wait(ironic, name, 'manageable')
        ironic('PUT', '/nodes/%s/states/power' % name,
               {'target': 'power off'})
    return macs


def ours(names, env, args):
    proc = subprocess.run(
        ['openstack', 'overcloud', 'node', 'introspect'] + names +
        ['--node-timeout', str(args.node_timeout), '--retry-timeout',
         str(args.retry_timeout), '--max-retries', '1', '--concurrency',
         str(args.concurrency), '-f', 'json'],
        env=env, capture_output=True, text=True, timeout=3600)
    rows = json.loads(proc.stdout)
    if proc.returncode or any(r['status'] != 'SUCCESS' for r in rows):
        raise RuntimeError('ours: exit %d: %s' % (proc.returncode,
                                                  proc.stderr[-2000:]))
    return {r['name']: r['attempts'] for r in rows}


def inspected(ironic, ident, timeout):
    """Polls the node until it is manageable again (True), or its
    inspection failed or ``timeout`` passed (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = ironic('GET', '/nodes/%s?fields=provision_state' % ident)[
            'provision_state']
        if state == 'manageable':
            return True
        if state == 'inspect failed':
            return False
        time.sleep(0.5)
    return False


def naive(ironic, names, args):
    """One node at a time, with the same timeout and one retry."""
    attempts = {}
    for name in names:
        for attempt in (1, 2):
            ironic('PUT', '/nodes/%s/states/provision' % name,
                   {'target': 'inspect'})
            if inspected(ironic, name, args.node_timeout):
                attempts[name] = attempt
                break
            ironic('PUT', '/nodes/%s/states/provision' % name,
                   {'target': 'abort'})
            node_bench.wait(ironic, name, 'inspect failed')
            time.sleep(args.retry_timeout)
        else:
            raise RuntimeError('naive: %s never inspected' % name)
    return attempts


def check(ironic, names):
    """Every node manageable with its inspected properties: a run that
    stopped short would look cheap."""
    wanted = set(names)
    found = [n for n in ironic('GET', '/nodes?fields=name,provision_state,'
                               'properties&limit=1000')['nodes']
             if n['name'] in wanted]
    wrong = [n['name'] for n in found
             if n['provision_state'] != 'manageable' or
             n['properties'].get('cpus') != 4]
    if len(found) != len(wanted) or wrong:
        raise RuntimeError('%d of %d nodes found; not inspected: %s'
                           % (len(found), len(wanted), wrong))


def measure(label, log, agent_ironic, macs, silent, fn, user):
    agent = Agent(agent_ironic, macs, silent)
    mark = log.mark()
    start = time.monotonic()
    agent.start()
    try:
        attempts = fn()
    finally:
        agent.stop.set()
        agent.join()
    seconds = time.monotonic() - start
    requests, others = log.since(mark, user)
    check(agent_ironic, list(macs))
    retried = sorted(n for n, a in attempts.items() if a > 1)
    if retried != sorted(silent):
        raise RuntimeError('%s: retried %s, not the silent nodes %s'
                           % (label, retried, sorted(silent)))
    print('%-44s %6.1f s %5d Ironic requests (%d retried; %d requests of '
          'the agent and others, not counted)' % (
              label, seconds, requests, len(retried), others))
    return seconds, requests


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=50)
    parser.add_argument('--flaky', type=int, default=10,
                        help='every K-th node times out once (default 10)')
    parser.add_argument('--node-timeout', type=int, default=15)
    parser.add_argument('--retry-timeout', type=int, default=5)
    parser.add_argument('--concurrency', type=int, default=20)
    args = parser.parse_args()
    from tests.functional import base
    env = dict(os.environ, **base.loopback_env())
    session = base.keystone_session(env)
    url = env['LOOPBACK_IRONIC_URL']
    log = node_bench.Log(os.path.join(REPO, '.loopback', 'ironic',
                                      'ironic.log'))
    run = uuid.uuid4().int % 200 + 16
    tag = 'bench-insp-%s' % uuid.uuid4().hex[:6]
    agent = node_bench.Ironic(url, session)
    print('%d fake-hardware nodes, every %dth silent once: introspect with '
          '--node-timeout %d --retry-timeout %d --max-retries 1' % (
              args.nodes, args.flaky, args.node_timeout,
              args.retry_timeout))
    with tempfile.TemporaryDirectory() as work:
        user, env, mine = node_bench.bench_user(session, env, work)
        client = node_bench.Ironic(url, mine)
        try:
            found = {}
            for way, offset in (('ours', 0), ('naive', 1)):
                names = ['%s-%s-%03d' % (tag, way, i)
                         for i in range(args.nodes)]
                macs = enroll(agent, names, run + offset)
                silent = names[args.flaky - 1::args.flaky]
                fn = (lambda: ours(names, env, args)) if way == 'ours' \
                    else (lambda: naive(client, names, args))
                found[way] = measure(
                    'ours (overcloud node introspect)' if way == 'ours'
                    else 'naive (one node at a time, same policy)', log,
                    agent, macs, silent, fn, user)
            print('ratio naive/ours: time %.1fx, requests %.1fx' % (
                found['naive'][0] / found['ours'][0],
                found['naive'][1] / max(found['ours'][1], 1)))
        finally:
            node_bench.cleanup(agent, tag)
            session.request(env['LOOPBACK_KEYSTONE_URL'] + '/users/%s'
                            % user, 'DELETE')


if __name__ == '__main__':
    main()
