#!/usr/bin/env python3
"""Benchmark the plan store on THT 18.0.0 against the loopback Swift.

Prints, in one run: requests and wall time of ``openstack overcloud plan
create`` against a naive sequential one-PUT-per-file upload of the same
objects; the requests of a second sync with nothing changed; and the
requests, bytes and time of ``plan amend -e one.yaml``. Requests are
counted where Swift sees them: the proxy's access log (client requests
only; bulk's internal sub-requests are logged elsewhere).

Needs the loopback Swift (``python3 tools/loopback start swift``) and
this project installed with ``openstack`` on PATH (tools/run-tests.sh
prepares both). Usage: ``python3 tools/bench_plan.py``.
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def loopback_env():
    out = subprocess.run([sys.executable, os.path.join(REPO, 'tools',
                                                       'loopback'), 'env'],
                         check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.replace('export ', '', 1).partition('=')
        env[key] = value.strip('\'"')
    return env


class AccessLog(object):
    """Client requests Swift's proxy logged since a mark."""

    def __init__(self, path):
        self.path = path

    def _lines(self):
        with open(self.path, 'rb') as f:
            return f.read().splitlines()

    def mark(self):
        return len(self._settled())

    def _settled(self):
        # The proxy logs after the response went out: wait until quiet.
        lines = self._lines()
        while True:
            time.sleep(0.3)
            again = self._lines()
            if len(again) == len(lines):
                return again
            lines = again

    def since(self, mark, path=None):
        """``(requests, bytes received, {method: count})`` since ``mark``.

        ``path``: count only requests whose path starts with it (other
        users of the same Swift stay out of the figures).
        """
        lines = self._settled()[mark:]
        methods = {}
        received = count = 0
        for line in lines:
            fields = line.decode('utf-8', 'replace').split(' ')
            if path and not fields[4].startswith(path):
                continue
            count += 1
            methods[fields[3]] = methods.get(fields[3], 0) + 1
            received += int(fields[10]) if fields[10].isdigit() else 0
        return count, received, methods


def connection(url):
    """A function giving each thread its own swiftclient Connection."""
    from swiftclient import client as swift_client

    local = threading.local()

    def connect():
        if not hasattr(local, 'conn'):
            local.conn = swift_client.Connection(
                preauthurl=url, preauthtoken='bench', retries=0)
        return local.conn
    return connect


def plan_store(url):
    """The project's PlanStore on ``url``."""
    from tripleoplanclient.plan import store as store_mod
    return store_mod.PlanStore(connection(url))


def run(cmd, env):
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(cmd), proc.stderr))
    return time.monotonic() - start


def row(name, requests, seconds, extra=''):
    print('%-44s %9s %9s  %s' % (name, requests,
                                 '%.2f s' % seconds if seconds else '-',
                                 extra))


def main():
    env = dict(os.environ)
    env.update(loopback_env())
    os.environ.update(env)
    tht = env.get('THT_DIR') or subprocess.run(
        ['bash', os.path.join(REPO, 'tools', 'fetch-tht.sh')], check=True,
        capture_output=True, text=True).stdout.strip()
    log = AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG'])
    url = env['LOOPBACK_SWIFT_URL']

    from tripleoplanclient.plan import files as files_mod
    from tripleoplanclient.plan import steps

    connect = connection(url)
    store = plan_store(url)
    tmp = tempfile.mkdtemp(prefix='bench-plan-')
    own = []
    for i in range(3):
        path = os.path.join(tmp, 'env-%d.yaml' % i)
        with open(path, 'w') as f:
            f.write('parameter_defaults:\n  Bench%d: %d\n' % (i, i))
        own.append(path)
    tht_envs = [os.path.join(tht, 'environments', n) for n in (
        'docker-ha.yaml', 'network-environment.yaml')]
    env_args = [a for p in tht_envs + own for a in ('-e', p)]
    files = files_mod.PlanFiles(tht)
    files.add_templates()
    for path in tht_envs + own:
        files.add_environment(path)
    total = sum(len(d) for d in files.objects.values())
    suffix = uuid.uuid4().hex[:6]
    ours, naive = 'bench-ours-' + suffix, 'bench-naive-' + suffix

    print('THT 18.0.0: %d objects, %.1f MB; %d environment files (3 outside '
          'the tree)' % (len(files.objects), total / 1e6,
                         len(tht_envs) + len(own)))
    print('%-44s %9s %9s' % ('', 'requests', 'wall'))

    mark = log.mark()
    # --no-render: this measures the plan store; tools/bench_render.py
    # measures rendering.
    t_ours = run(['openstack', 'overcloud', 'plan', 'create', ours,
                  '--templates', tht, '--no-render'] + env_args, env)
    r_ours, b_ours, m_ours = log.since(mark)
    row('plan create (ours, whole command)', r_ours, t_ours,
        ' '.join('%s=%d' % kv for kv in sorted(m_ours.items())))

    mark = log.mark()
    start = time.monotonic()
    connect().put_container(naive)
    for name in sorted(files.objects):
        connect().put_object(naive, name, files.objects[name])
    t_naive = time.monotonic() - start
    r_naive, b_naive, _ = log.since(mark)
    row('naive: sequential PUT per file (in-process)', r_naive, t_naive)
    print('%-44s %9s %9s' % ('ratio naive / ours', '%.0fx' % (
        r_naive / r_ours), '%.2fx' % (t_naive / t_ours)))

    mark = log.mark()
    start = time.monotonic()
    _, listing = store.listing(ours)
    added, changed = steps.sync(store, ours, files.objects, listing)
    t_sync = time.monotonic() - start
    r_sync, _, m_sync = log.since(mark)
    row('second sync, nothing changed (in-process)', r_sync, t_sync,
        '%d written; %s' % (len(added) + len(changed), ' '.join(
            '%s=%d' % kv for kv in sorted(m_sync.items()))))

    one = os.path.join(tmp, 'one.yaml')
    with open(one, 'w') as f:
        f.write('parameter_defaults:\n  One: 1\n')
    mark = log.mark()
    t_amend = run(['openstack', 'overcloud', 'plan', 'amend', ours,
                   '-e', one, '--no-render'], env)
    r_amend, b_amend, m_amend = log.since(mark)
    row('plan amend -e one.yaml (whole command)', r_amend, t_amend,
        '%d bytes sent; %s' % (b_amend, ' '.join(
            '%s=%d' % kv for kv in sorted(m_amend.items()))))
    mark = log.mark()
    t_same = run(['openstack', 'overcloud', 'plan', 'amend', ours,
                  '-e', one, '--no-render'], env)
    r_same, _, _ = log.since(mark)
    row('plan amend -e one.yaml again (unchanged)', r_same, t_same)

    start = time.monotonic()
    run(['openstack', '--version'], env)
    row('(openstack CLI start-up alone)', '-', time.monotonic() - start)

    for plan in (ours, naive):
        _, names = store.listing(plan)
        store.delete(plan, names)


if __name__ == '__main__':
    main()
