#!/usr/bin/env python3
"""Benchmark the plan store on THT 18.0.0 against the loopback Swift.

The demo's plan (tools/demo.sh, the deploy story): THT 18.0.0 with 5 of
its environment files and 3 of our own outside the tree. Prints, in one
run, each figure next to its goal:

* ``openstack overcloud plan create --no-render`` (goal <= 40 Swift
  requests) and ``plan create`` rendered in Mistral (goal <= 120), against
  a GUI that uploads the tree itself and asks the plan_create workflow
  without the client's help (no tree, no password names: the action
  lists the container and reads every template to find the passwords);
* a naive sequential one-PUT-per-file upload of the same objects;
* the requests of a second sync with nothing changed, and the requests,
  bytes and time of ``plan amend -e one.yaml``.

Requests are counted where Swift sees them: the proxy's access log (client
and Mistral together; bulk's internal sub-requests are logged elsewhere),
and grouped by method and path (``--detail``: for every row).

Needs the loopback Swift and Mistral (``python3 tools/loopback start swift
mistral``), the workbook, and this project installed with ``openstack`` on
PATH (tools/run-tests.sh prepares them). Usage: ``python3
tools/bench/plan.py [--detail]``.
"""

import collections
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

# The demo's environment files (tools/demo.sh, the functional deploy story).
FIXTURES = os.path.join(REPO, 'tests', 'functional', 'fixtures')
THT_ENVIRONMENTS = [
    'overcloud-resource-registry-puppet.yaml',   # rendered in Mistral
    'environments/low-memory-usage.yaml',
    'environments/debug.yaml',
    'environments/sshd-banner.yaml',
    'environments/login-defs.yaml',
]
MY_SETTINGS = '''# The operator's own settings, outside the templates tree.
parameter_defaults:
  NtpServer: [pool.ntp.org]
  TimeZone: UTC
'''


def demo_environments(tht, work):
    """The ``-e`` paths of the demo's plan: THT's, then our three files
    (written to ``work``)."""
    mine = [os.path.join(work, name) for name in (
        'deployed-server.yaml', 'container-images.yaml', 'my-settings.yaml')]
    shutil.copy(os.path.join(FIXTURES, 'tht18-deployed-server.yaml'),
                mine[0])
    shutil.copy(os.path.join(FIXTURES, 'tht18-container-images.yaml'),
                mine[1])
    with open(mine[2], 'w') as f:
        f.write(MY_SETTINGS)
    return [os.path.join(tht, p) for p in THT_ENVIRONMENTS] + mine


def tht_dir(env):
    return env.get('THT_DIR') or subprocess.run(
        ['bash', os.path.join(REPO, 'tools', 'fetch-tht.sh')], check=True,
        capture_output=True, text=True).stdout.strip()


def group(path):
    """What a Swift request path is about: the account, a container
    (listing, HEAD, PUT), a record object (by folder), the plan
    environment, or any other object (templates, user files)."""
    rest = urllib.parse.unquote(path).split('?')[0].split('/', 3)[3:]
    parts = rest[0].split('/', 1) if rest else []
    if not parts or not parts[0]:
        return 'account'
    if len(parts) == 1 or not parts[1]:
        return 'container'
    name = parts[1]
    if name.startswith('user-environments/'):
        return '/'.join(name.split('/')[:2]) + ('/' if name.count('/') > 1
                                                else '')
    if name in ('plan-environment.yaml',):
        return name
    return 'objects'


def loopback_env():
    out = subprocess.run([sys.executable, os.path.join(REPO, 'tools',
                                                       'loopback'), 'env'],
                         check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.replace('export ', '', 1).partition('=')
        env[key] = value.strip('\'"')
    return env


class AccessLog:
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

    def groups(self, mark, path=None):
        """``{'METHOD group': requests}`` since ``mark`` (``group``)."""
        found = collections.Counter()
        for line in self._settled()[mark:]:
            fields = line.decode('utf-8', 'replace').split(' ')
            if path and not fields[4].startswith(path):
                continue
            found['%s %s' % (fields[3], group(fields[4]))] += 1
        return found


def grouped(counts):
    """One line of ``AccessLog.groups``, most requests first."""
    return ', '.join('%s %d' % (k, n) for k, n in sorted(
        counts.items(), key=lambda kv: (-kv[1], kv[0])))


def token(env):
    """A Keystone token of the loopback cloud's user; 'bench' when the
    services run without Keystone."""
    if not env.get('LOOPBACK_KEYSTONE_URL'):
        return 'bench'
    from tests.functional import base
    return base.keystone_session(env).get_token()


def connection(url, auth=None):
    """A function giving each thread its own swiftclient Connection
    (``auth``: the token, ``token()`` of the loopback when None)."""
    from swiftclient import client as swift_client

    local = threading.local()
    auth = auth or token(loopback_env())

    def connect():
        if not hasattr(local, 'conn'):
            local.conn = swift_client.Connection(
                preauthurl=url, preauthtoken=auth, retries=0)
        return local.conn
    return connect


def plan_store(url, auth=None):
    """The project's PlanStore on ``url``."""
    from tripleoplanclient.record import plan_store
    return plan_store.PlanStore(connection(url, auth))


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


def goal(requests, limit):
    """The goal next to a figure: ``<= 40 met`` or ``<= 40 MISSED``."""
    if limit is None:
        return ''
    return '<= %d %s' % (limit, 'met' if requests <= limit else 'MISSED')


def counted(log, what, fn, limit=None, detail=True):
    """Run ``fn`` (its wall time back), print its row (requests, time,
    goal) and where its requests went; ``(requests, bytes, seconds)``."""
    mark = log.mark()
    seconds = fn()
    requests, received, methods = log.since(mark)
    row(what, requests, seconds, goal(requests, limit))
    if detail:
        print('    %s' % grouped(log.groups(mark)))
    return requests, received, seconds


def gui_create(env, url, plan, objects, environments):
    """A GUI's plan create without the client's help: its own upload (one
    PUT per file, as Swift's API offers), then the plan_create workflow
    asked with no tree and no password names. ``(upload, workflow)``:
    two functions, each timed by ``counted``."""
    from keystoneauth1 import noauth
    from keystoneauth1 import session as ksa_session
    from mistralclient.api import client as mistral_client

    from tests.functional import base
    from tripleoplanclient import protocol
    from tripleoplanclient.workflows import executions

    connect = connection(url)

    def upload():
        start = time.monotonic()
        connect().put_container(plan)
        for name in sorted(objects):
            connect().put_object(plan, name, objects[name])
        return time.monotonic() - start

    def workflow():
        client = mistral_client.client(
            session=base.keystone_session(env) or ksa_session.Session(
                auth=noauth.NoAuth()),
            mistral_url=env['LOOPBACK_MISTRAL_URL'])
        start = time.monotonic()
        result = executions.Workflows(
            client, env['LOOPBACK_MISTRAL_URL'], lambda line: None
        ).run_workflow('plan_create', protocol.request(
            'plan_create', container=plan, swift_url=url,
            environments=environments), 900)
        if result.get('status') != 'SUCCESS':
            sys.exit('GUI plan_create failed: %r' % result)
        return time.monotonic() - start
    return upload, workflow


def main():
    env = dict(os.environ)
    env.update(loopback_env())
    os.environ.update(env)
    detail = '--detail' in sys.argv
    tht = tht_dir(env)
    log = AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG'])
    url = env['LOOPBACK_SWIFT_URL']

    from tripleoplanclient.plan import files as files_mod
    from tripleoplanclient.record import steps

    connect = connection(url)
    store = plan_store(url)
    tmp = tempfile.mkdtemp(prefix='bench-plan-')
    environments = demo_environments(tht, tmp)
    env_args = [a for p in environments for a in ('-e', p)]
    files = files_mod.PlanFiles(tht)
    files.add_templates()
    for path in environments:
        files.add_environment(path)
    total = sum(len(d) for d in files.objects.values())
    suffix = uuid.uuid4().hex[:6]
    ours, rendered, gui, naive = ('bench-%s-%s' % (n, suffix) for n in (
        'ours', 'rendered', 'gui', 'naive'))

    print('THT 18.0.0: %d objects, %.1f MB; the demo\'s %d environment '
          'files (%d THT, %d outside the tree)' % (
              len(files.objects), total / 1e6, len(environments),
              len(THT_ENVIRONMENTS), len(environments) -
              len(THT_ENVIRONMENTS)))
    print('Swift requests, client and Mistral together (goal: met/MISSED)')
    print('%-44s %9s %9s  %s' % ('', 'requests', 'wall', 'goal'))

    # --no-render: the plan store and the create step; the render below.
    r_ours, _, t_ours = counted(
        log, 'plan create --no-render (client has tree)', lambda: run(
            ['openstack', 'overcloud', 'plan', 'create', ours,
             '--templates', tht, '--no-render'] + env_args, env), 40)
    counted(log, 'plan create, rendered in Mistral', lambda: run(
        ['openstack', 'overcloud', 'plan', 'create', rendered,
         '--templates', tht] + env_args, env), 120)
    upload, workflow = gui_create(env, url, gui, files.objects,
                                  list(files.environments))
    r_upload, _, _ = counted(log, 'GUI: its own upload, one PUT per file',
                             upload, detail=detail)
    r_gui, _, _ = counted(
        log, 'GUI: plan_create, no tree, no names', workflow)
    print('%-44s %9s %9s  %s' % (
        'GUI path, upload + create, rendered', r_upload + r_gui, '',
        '(no goal: the action reads every template once)'))

    r_naive, _, t_naive = counted(
        log, 'naive: sequential PUT per file (in-process)', lambda: run_fn(
            lambda: [connect().put_container(naive)] + [
                connect().put_object(naive, name, files.objects[name])
                for name in sorted(files.objects)]), detail=False)
    print('%-44s %9s %9s' % ('ratio naive / ours', '%.0fx' % (
        r_naive / r_ours), '%.2fx' % (t_naive / t_ours)))

    mark = log.mark()
    start = time.monotonic()
    _, listing = store.container.listing(ours)
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

    for plan in (ours, rendered, gui, naive):
        _, names = store.container.listing(plan)
        if names is not None:
            store.container.delete(plan, names)
    shutil.rmtree(tmp, ignore_errors=True)


def run_fn(fn):
    """``fn()``'s wall time."""
    start = time.monotonic()
    fn()
    return time.monotonic() - start


if __name__ == '__main__':
    main()
