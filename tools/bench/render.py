#!/usr/bin/env python3
"""Benchmark rendering on THT 18.0.0.

Prints, in one run:
* render time of our renderer against THT's tools/process-templates.py on
  the same tree (in place, on a copy), both as whole commands and ours
  in-process, cold (first render of the process) and warm;
* Swift requests of one render inside Mistral (the render action), counted
  in the loopback proxy's access log, first and with nothing changed;
* wall time of ``openstack overcloud plan create`` end to end with render.

Needs the loopback Swift and Mistral (``python3 tools/loopback start
swift mistral``) and the workbook (``openstack overcloud workbook
install``). Usage: ``python3 tools/bench/render.py``.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

from bench import plan as bench_plan  # noqa: E402
from tests.functional import base  # noqa: E402

ROLES = 'roles_data.yaml'
NETWORKS = 'network-data-samples/default-network-isolation.yaml'
COLD = '''
import os, sys, time
sys.path.insert(0, %(repo)r)
start = time.monotonic()
from tripleoplanclient.plan import rendering
files = {}
for top, dirs, names in os.walk(%(tree)r):
    for name in names:
        path = os.path.join(top, name)
        with open(path, 'rb') as f:
            files[os.path.relpath(path, %(tree)r)] = f.read()
loaded = time.monotonic()
out = rendering.render(files, files.__getitem__, %(roles)r, %(networks)r)
rendered = time.monotonic()
print(len(out), loaded - start, rendered - loaded)
'''


def timed(cmd, **kw):
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode:
        sys.exit('%s failed:\n%s%s' % (cmd[0], proc.stdout[-2000:],
                                       proc.stderr))
    return time.monotonic() - start, proc.stdout


def best(runs, fn):
    return min(fn() for _ in range(runs))


def render_times(tht):
    tmp = tempfile.mkdtemp(prefix='bench-render-')
    try:
        def theirs():
            copy = os.path.join(tmp, 'copy')
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(tht, copy)
            return timed([sys.executable,
                          os.path.join(copy, 'tools', 'process-templates.py'),
                          '-p', copy, '-r', ROLES, '-n', NETWORKS])[0]

        def ours_command():
            seconds, out = timed([sys.executable, '-c', COLD % {
                'repo': REPO, 'tree': tht, 'roles': ROLES,
                'networks': NETWORKS}])
            ours_command.render = float(out.split()[2])
            return seconds

        t_theirs = best(3, theirs)
        t_cmd = best(3, ours_command)
        t_cold = ours_command.render

        from tripleoplanclient.plan import rendering
        files = base.read_tree(tht)

        def warm():
            start = time.monotonic()
            rendering.render(files, files.__getitem__, ROLES, NETWORKS)
            return time.monotonic() - start
        warm()
        t_warm = best(3, warm)

        from tripleoplanclient.plan import render_process

        def child():
            # As the render action does: forked, bounded (its cost).
            start = time.monotonic()
            render_process.render(files, files.__getitem__, ROLES, NETWORKS)
            return time.monotonic() - start
        t_child = best(3, child)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('THT 18.0.0 render (default roles, network-isolation sample; '
          'best of 3)')
    print('  process-templates.py, whole command      %7.2f s' % t_theirs)
    print('  ours, whole command (python + read tree) %7.2f s   %.1fx '
          'faster' % (t_cmd, t_theirs / t_cmd))
    print('  ours in-process, first render (cold)    %7.3f s   %.1fx'
          % (t_cold, t_theirs / t_cold))
    print('  ours in-process, again (warm cache)     %7.3f s   %.0fx'
          % (t_warm, t_theirs / t_warm))
    print('  ours in a bounded child, warm (Mistral) %7.3f s   %.0fx'
          % (t_child, t_theirs / t_child))


def mistral_render(env, tht, log):
    from keystoneauth1 import noauth
    from keystoneauth1 import session as ksa_session
    from mistralclient.api import client as mistral_client

    from tripleoplanclient.workflows import executions
    from tripleoplanclient.workflows import plans

    suffix = uuid.uuid4().hex[:6]
    plan, bare = 'bench-render-' + suffix, 'bench-bare-' + suffix
    net_args = ['-n', os.path.join(tht, NETWORKS)]
    seconds, _ = timed(['openstack', 'overcloud', 'plan', 'create', plan,
                        '--templates', tht] + net_args, env=env)
    print('\nplan create, end to end with render in Mistral: %.1f s'
          % seconds)
    timed(['openstack', 'overcloud', 'plan', 'create', bare,
           '--templates', tht, '--no-render'] + net_args, env=env)
    client = mistral_client.client(
        session=base.keystone_session(env) or ksa_session.Session(
            auth=noauth.NoAuth()),
        mistral_url=env['LOOPBACK_MISTRAL_URL'])
    wf = executions.Workflows(client, env['LOOPBACK_MISTRAL_URL'],
                              lambda line: None)
    for label in ('first render (writes every output)',
                  'render again, nothing changed'):
        mark = log.mark()
        start = time.monotonic()
        entry = wf.render(plans.render_request(
            bare, env['LOOPBACK_SWIFT_URL'], {'network_data': NETWORKS}), 600)
        elapsed = time.monotonic() - start
        requests, _, methods = log.since(mark)
        print('  %-38s %4d Swift requests %5.1f s  %s %d outputs, %d '
              'written  (%s)' % (
                  label, requests, elapsed, entry['state'],
                  entry.get('outputs', 0), entry.get('written', 0),
                  ' '.join('%s=%d' % kv for kv in sorted(methods.items()))))
    for name in (plan, bare):
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        name], env=env, capture_output=True)


def main():
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    tht = env.get('THT_DIR') or subprocess.run(
        ['bash', os.path.join(REPO, 'tools', 'fetch-tht.sh')], check=True,
        capture_output=True, text=True).stdout.strip()
    render_times(tht)
    if '--no-mistral' not in sys.argv:
        mistral_render(env, tht, bench_plan.AccessLog(
            env['LOOPBACK_SWIFT_ACCESS_LOG']))


if __name__ == '__main__':
    main()
