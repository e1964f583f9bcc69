#!/usr/bin/env python3
"""Benchmark the node commands against the loopback Ironic (issue 29).

Import + introspect + provide of N fake-hardware nodes (default 50):

* ours: ``openstack overcloud node import nodes.json --introspect
  --provide`` (our Mistral workflows: bounded parallel requests, one
  listing per follow round);
* naive: the same REST steps one node at a time (create, port, manage,
  inspect, power off, provide, each waited for by polling the node), as
  a script without our commands would.

In both, a thread plays the ramdisk agent: it posts an inventory for
every node waiting in ``inspect wait`` (its requests are the hardware's,
not counted). Ironic requests are counted where Ironic sees them: its
API log lines since a mark, of a Keystone user made for the run (the
admin role in the cloud's project; our Mistral actions call Ironic as
the caller, the follow task through a trust impersonating it), so the
agent's requests (no token, or the cloud's own user) and any other
client of the shared Ironic are left out; the count of those is printed
too. Without Keystone every request since the mark counts, the agent's
taken off. Both ways must end with every node available and powered
off, checked. Prints wall time, requests and the ratios.

Needs the loopback Keystone, Swift, Mistral and Ironic (``python3
tools/loopback start keystone swift mistral heat ironic``), the workbook,
and ``openstack`` on PATH. Usage: ``python3 tools/bench/nodes.py
[--nodes N]``.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

API_VERSION = '1.89'
PASSWORD_AUTH = ('auth_url', 'username', 'password', 'project_name',
                 'user_domain_name', 'project_domain_name')
# one API log line per request Ironic answered: [None req-ID USER PROJECT
# ...] (USER is - without a token) ADDRESS - METHOD PATH - STATUS
_REQUEST = re.compile(r' ironic\.api \[\S+ req-\S+ (\S+) .*\] \S+ - '
                      r'(?:GET|HEAD|POST|PUT|PATCH|DELETE) /')


class Log:
    """Ironic's log: requests answered since a mark."""

    def __init__(self, path):
        self.path = path

    def mark(self):
        return os.path.getsize(self.path)

    def since(self, mark, user=None):
        """(requests of ``user`` (every one when None), the others)."""
        time.sleep(0.5)     # the last lines are written after the answer
        with open(self.path, 'rb') as f:
            f.seek(mark)
            text = f.read().decode('utf-8', 'replace')
        users = [m.group(1) for m in map(_REQUEST.search, text.splitlines())
                 if m]
        mine = sum(1 for u in users if user is None or u == user)
        return mine, len(users) - mine


class Ironic:
    """Plain REST as the loopback cloud's user; counts its requests."""

    def __init__(self, url, session):
        self.url = url.rstrip('/') + '/v1'
        self.session = session
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, method, path, body=None, token=True):
        with self.lock:
            self.count += 1
        headers = {'X-OpenStack-Ironic-API-Version': API_VERSION}
        resp = self.session.request(
            self.url + path, method, json=body, headers=headers,
            raise_exc=False, authenticated=bool(token))
        if resp.status_code >= 400:
            raise RuntimeError('%s %s: %d %s' % (method, path,
                                                 resp.status_code, resp.text))
        return resp.json() if resp.content else None


def mac(i, run):
    return '52:54:%02x:%02x:%02x:%02x' % (run, (i >> 16) & 255,
                                          (i >> 8) & 255, i & 255)


def node_entries(count, prefix, run):
    return [{'name': '%s-%03d' % (prefix, i), 'pm_type': 'fake-hardware',
             'inspect_interface': 'agent',
             'ports': [{'address': mac(i, run)}]} for i in range(count)]


class Agent(threading.Thread):
    """Posts an inventory for each node of ``macs`` in ``inspect wait``."""

    def __init__(self, ironic, macs):
        super().__init__(daemon=True)
        from tests.functional import ironic_base
        self.inventory = ironic_base.inventory
        self.ironic = ironic
        self.macs = macs            # node name -> mac
        self.stop = threading.Event()

    def run(self):
        posted = set()
        while not self.stop.is_set():
            waiting = self.ironic('GET', '/nodes?provision_state=inspect%20'
                                  'wait&fields=uuid,name&limit=1000')
            for node in waiting['nodes']:
                name = node['name']
                if name in self.macs and node['uuid'] not in posted:
                    posted_by_agent = {
                        'inventory': self.inventory(self.macs[name]),
                        'root_disk': {'name': '/dev/sda',
                                      'size': 100 * 1024 ** 3}}
                    self.ironic('POST', '/continue_inspection',
                                posted_by_agent, token=False)
                    posted.add(node['uuid'])
            self.stop.wait(0.5)


def wait(ironic, ident, state, timeout=300):
    deadline = time.monotonic() + timeout
    while True:
        node = ironic('GET', '/nodes/%s?fields=provision_state,last_error'
                      % ident)
        if node['provision_state'] == state:
            return
        if node['last_error'] or time.monotonic() > deadline:
            raise RuntimeError('%s: %s (%s)' % (ident, node['provision_state'],
                                                node['last_error']))
        time.sleep(0.2)


def naive(ironic, entries):
    """One node at a time, each step waited for."""
    for entry in entries:
        node = ironic('POST', '/nodes', {
            'name': entry['name'], 'driver': 'fake-hardware',
            'inspect_interface': 'agent'})
        ironic('POST', '/ports', {'node_uuid': node['uuid'],
                                  'address': entry['ports'][0]['address']})
        ironic('PUT', '/nodes/%s/states/provision' % node['uuid'],
               {'target': 'manage'})
        wait(ironic, node['uuid'], 'manageable')
        ironic('PUT', '/nodes/%s/states/provision' % node['uuid'],
               {'target': 'inspect'})
        wait(ironic, node['uuid'], 'manageable')
        ironic('PUT', '/nodes/%s/states/power' % node['uuid'],
               {'target': 'power off'})
        ironic('PUT', '/nodes/%s/states/provision' % node['uuid'],
               {'target': 'provide'})
        wait(ironic, node['uuid'], 'available')


def ours(entries, work, env):
    path = os.path.join(work, 'nodes.json')
    with open(path, 'w') as f:
        json.dump({'nodes': entries}, f)
    subprocess.run(['openstack', 'overcloud', 'node', 'import', path,
                    '--introspect', '--provide', '-f', 'value'],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def cleanup(ironic, prefix):
    nodes = ironic('GET', '/nodes?fields=uuid,name,provision_state'
                   '&limit=1000')['nodes']
    for node in nodes:
        if (node['name'] or '').startswith(prefix):
            ironic('PATCH', '/nodes/%s' % node['uuid'],
                   [{'op': 'replace', 'path': '/maintenance',
                     'value': True}])
            ironic('DELETE', '/nodes/%s' % node['uuid'])


def check_available(ironic, entries):
    """Every node of ``entries`` available and powered off: a run that
    stopped short would look cheap."""
    names = {e['name'] for e in entries}
    ended = [(n['provision_state'], n['power_state']) for n in ironic(
        'GET', '/nodes?fields=name,provision_state,power_state'
        '&limit=1000')['nodes'] if n['name'] in names]
    wrong = [e for e in ended if e != ('available', 'power off')]
    if len(ended) != len(names) or wrong:
        raise RuntimeError('%d of %d nodes found, not available and off: '
                           '%s' % (len(ended), len(names), wrong))


def bench_user(session, env, work):
    """A Keystone user of its own, with the admin role in the cloud's
    project, whose requests Ironic's log tells apart: (its id, the CLI's
    environment as it, a session as it)."""
    from keystoneauth1.identity import v3
    from keystoneauth1 import session as ksa_session
    identity = env['LOOPBACK_KEYSTONE_URL']

    def keystone(method, path, body=None):
        resp = session.request(identity + path, method, json=body)
        return resp.json() if resp.content else None

    name = 'tpc-bench-%s' % uuid.uuid4().hex[:8]
    password = uuid.uuid4().hex
    user = keystone('POST', '/users', {'user': {
        'name': name, 'domain_id': 'default',
        'password': password}})['user']['id']
    try:
        role = keystone('GET', '/roles?name=admin')['roles'][0]['id']
        keystone('PUT', '/projects/%s/users/%s/roles/%s' % (
            session.get_project_id(), user, role))
        with open(env['OS_CLIENT_CONFIG_FILE']) as f:
            clouds = yaml.safe_load(f)
        cloud = clouds['clouds'][env['OS_CLOUD']]
        cloud['auth'].update(username=name, password=password)
        path = os.path.join(work, 'clouds.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump(clouds, f)
        # (not base.keystone_session: openstack.config puts the
        # OS_CLIENT_CONFIG_FILE of this process before the file given)
        auth = v3.Password(**{k: v for k, v in cloud['auth'].items()
                              if k in PASSWORD_AUTH})
        return (user, dict(env, OS_CLIENT_CONFIG_FILE=path),
                ksa_session.Session(auth=auth))
    except Exception:
        keystone('DELETE', '/users/%s' % user)
        raise


def measure(name, log, agent_ironic, entries, fn, user):
    agent = Agent(agent_ironic, {e['name']: e['ports'][0]['address']
                                 for e in entries})
    mark, agent_before = log.mark(), agent_ironic.count
    start = time.monotonic()
    agent.start()
    try:
        fn()
    finally:
        agent.stop.set()
        agent.join()
    seconds = time.monotonic() - start
    requests, others = log.since(mark, user)
    if user is None:    # no Keystone: only the agent's are told apart
        agents = agent_ironic.count - agent_before
        requests, others = requests - agents, agents
    check_available(agent_ironic, entries)
    if not requests:
        raise RuntimeError('%s: no request of the benchmark\'s user in %s'
                           % (name, log.path))
    print('%-42s %6.1f s %5d Ironic requests (%d of the agent and '
          'others, not counted)' % (name, seconds, requests, others))
    return seconds, requests


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=50)
    args = parser.parse_args()
    from tests.functional import base
    env = dict(os.environ, **base.loopback_env())
    session = base.keystone_session(env)
    if session is None:
        from keystoneauth1 import noauth
        from keystoneauth1 import session as ksa_session
        session = ksa_session.Session(auth=noauth.NoAuth())
    url = env['LOOPBACK_IRONIC_URL']
    log = Log(os.path.join(REPO, '.loopback', 'ironic', 'ironic.log'))
    run = uuid.uuid4().int % 200 + 16
    tag = 'bench-%s' % uuid.uuid4().hex[:6]
    # the agent (and the cleanup) as the cloud's user, the rest as ours
    agent = Ironic(url, session)
    print('%d fake-hardware nodes: import + introspect + provide'
          % args.nodes)
    with tempfile.TemporaryDirectory() as work:
        user, mine = None, session
        if env.get('LOOPBACK_KEYSTONE_URL'):
            user, env, mine = bench_user(session, env, work)
        client = Ironic(url, mine)
        try:
            ours_nodes = node_entries(args.nodes, tag + '-ours', run)
            t_ours, r_ours = measure(
                'ours (node import --introspect --provide)', log, agent,
                ours_nodes, lambda: ours(ours_nodes, work, env), user)
            theirs = node_entries(args.nodes, tag + '-naive', run + 1)
            t_naive, r_naive = measure(
                'naive (one node at a time)', log, agent, theirs,
                lambda: naive(client, theirs), user)
            print('ratio naive/ours: time %.1fx, requests %.1fx'
                  % (t_naive / t_ours, r_naive / max(r_ours, 1)))
        finally:
            cleanup(agent, tag)
            if user:
                session.request(env['LOOPBACK_KEYSTONE_URL'] + '/users/%s'
                                % user, 'DELETE')


if __name__ == '__main__':
    main()
