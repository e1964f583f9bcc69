#!/usr/bin/env python3
"""Benchmark ``openstack overcloud deploy`` on THT 18.0.0.

The demo's plan (``bench_plan.demo_environments``: 5 environment files
from THT, 3 of our own outside the tree), deployed as deployed servers on
the loopback Heat. Prints, in one run, for a first ``deploy --templates``
(plan create + render + stack create; ``--plan-first``: the plan made by
``plan create`` before it, not counted) and a redeploy with nothing
changed, each next to its goal (<= 300 and <= 6 requests):

* every Swift request to the plan's container and the account (client
  and Mistral side: the proxy's access log) and every Heat request to the
  stack API and template validation (client and Mistral side, Heat's
  event polling and the follow task included: Heat's uWSGI access log;
  counted until the deploy workflow ended, so that no follow round of
  one deploy is counted as the next one's), grouped by method and path;
* renders per deploy (render steps in the plan record);
* wall time of the command, next to Heat's own stack create time (first
  and last event of the stack itself).

And, for comparison, the naive assembly: heatclient's template utilities
fetching every reference from Swift with one GET each, no cache (what a
client without our content cache would send for each deploy).

Anchor (the old client and tripleo-common, same kind of plan): ~3,400
requests first deploy, ~5,700 redeploy, 7-8 renders.

Needs the loopback Swift, Mistral and Heat (``python3 tools/loopback
start swift mistral heat``) and the workbook (``openstack overcloud
workbook install``). Usage: ``python3 tools/bench/deploy.py [--keep]
[--warm] [--plan-first]``: --keep leaves the stack and plan for a look;
Mistral is restarted first (an empty content cache) unless --warm.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

from bench import plan as bench_plan  # noqa: E402

_HEAT_LINE = re.compile(r'"(\w+) (\S+)')


class HeatLog(bench_plan.AccessLog):
    """Requests Heat's uWSGI logged since a mark (one line each)."""

    def since(self, mark, path=None):
        methods = {}
        count = 0
        for line in self._settled()[mark:]:
            found = _HEAT_LINE.search(line.decode('utf-8', 'replace'))
            if not found or (path and not found.group(2).startswith(path)):
                continue
            count += 1
            methods[found.group(1)] = methods.get(found.group(1), 0) + 1
        return count, 0, methods

    def groups(self, mark, path=None):
        """``{'METHOD path': requests}`` since ``mark``, the stack's name
        and id in the path as NAME and ID."""
        found = collections.Counter()
        for line in self._settled()[mark:]:
            hit = _HEAT_LINE.search(line.decode('utf-8', 'replace'))
            if not hit or (path and not hit.group(2).startswith(path)):
                continue
            parts = hit.group(2).split('?')[0].split('/')[3:]
            for i, name in ((1, 'NAME'), (2, 'ID')):
                if parts[:1] == ['stacks'] and len(parts) > i:
                    parts[i] = name
            found['%s %s' % (hit.group(1), '/'.join(parts))] += 1
        return found


def heat_get(env, path):
    req = urllib.request.Request(
        env['LOOPBACK_HEAT_URL'].rstrip('/') + '/' + path,
        headers={'Accept': 'application/json',
                 'X-Auth-Token': bench_plan.token(env)})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def heat_seconds(env, plan, stack_id):
    """Heat's own time for the stack's last operation (its own events)."""
    events = heat_get(env, 'stacks/%s/%s/events?resource_name=%s'
                      '&sort_dir=desc&limit=2' % (plan, stack_id, plan))
    stamps = [e['event_time'] for e in events['events']]
    if len(stamps) < 2:
        return None
    parse = '%Y-%m-%dT%H:%M:%SZ'
    end, start = (time.mktime(time.strptime(s, parse)) for s in stamps)
    return end - start


def counted(logs, cmd, env):
    """Run ``cmd``; ``(seconds, its JSON, [log.since(mark, path)])``.

    ``logs``: ``[(log, path prefix)]``: only the plan's container and the
    stack API count, not other users of the loopback services.
    """
    marks = [log.mark() for log, _ in logs]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(cmd), proc.stderr[-3000:]))
    counts = [log.since(mark, path) for (log, path), mark in zip(logs, marks)]
    return seconds, json.loads(proc.stdout), counts


def naive_assembly(env, plan, environments, log):
    """Swift GETs of heatclient resolving the plan with no cache."""
    from heatclient.common import template_utils

    base = '%s/%s/' % (env['LOOPBACK_SWIFT_URL'].rstrip('/'), plan)
    auth = bench_plan.token(env)

    def object_request(method, url):
        with urllib.request.urlopen(urllib.request.Request(
                url, headers={'X-Auth-Token': auth}), timeout=60) as resp:
            return resp.read().decode('utf-8')

    mark = log.mark()
    start = time.monotonic()
    files, _ = template_utils.get_template_contents(
        template_object=base + 'overcloud.yaml',
        object_request=object_request)
    for path in environments:
        env_files, _ = template_utils.process_environment_and_files(
            env_path=base + path, env_path_is_object=lambda u: True,
            object_request=object_request)
        files.update(env_files)
    seconds = time.monotonic() - start
    requests, _, _ = log.since(mark, urllib.parse.urlsplit(base).path)
    return requests, len(files), seconds


def methods(counts):
    return ' '.join('%s=%d' % kv for kv in sorted(counts.items()))


def setup(env, plan, work):
    """``(deploy command, logs)`` of a THT 18.0.0 plan with the demo's
    environments (``bench_plan.demo_environments``, our three files
    written to ``work``): the logs count only ``plan``'s container (and
    the account) and Heat's stack API and template validation."""
    tht = bench_plan.tht_dir(env)
    swift_path = urllib.parse.urlsplit(env['LOOPBACK_SWIFT_URL']).path
    heat_path = urllib.parse.urlsplit(env['LOOPBACK_HEAT_URL']).path
    logs = [(bench_plan.AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG']),
             ('%s/%s' % (swift_path.rstrip('/'), plan),
             '%s%%3F' % swift_path.rstrip('/'))),
            (HeatLog(env['LOOPBACK_HEAT_ACCESS_LOG']),
             (heat_path.rstrip('/') + '/stacks',
              heat_path.rstrip('/') + '/validate'))]
    cmd = ['openstack', 'overcloud', 'deploy', '--stack', plan,
           '--templates', tht, '-f', 'json']
    for path in bench_plan.demo_environments(tht, work):
        cmd += ['-e', path]
    return cmd, logs


def main():
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    os.environ.update(env)
    plan = 'bench-deploy-%s' % uuid.uuid4().hex[:6]
    work = tempfile.mkdtemp(prefix='bench-deploy-')
    cmd, logs = setup(env, plan, work)
    swift_log = logs[0][0]
    environments = cmd[cmd.index('-e'):][1::2]

    if '--warm' not in sys.argv:
        # The actions' content cache lives as long as Mistral's executor:
        # a fresh one makes the first deploy read every object.
        loopback = [sys.executable, os.path.join(REPO, 'tools', 'loopback')]
        subprocess.run(loopback + ['stop', 'mistral'], check=True,
                       capture_output=True)
        subprocess.run(loopback + ['start', 'mistral'], check=True,
                       capture_output=True)
    print('overcloud deploy, THT 18.0.0, the demo\'s %d environment files '
          '(%d THT, %d own), deployed servers, plan %s' % (
              len(environments), len(bench_plan.THT_ENVIRONMENTS),
              len(environments) - len(bench_plan.THT_ENVIRONMENTS), plan))
    print('Mistral: %s' % ('as it was (--warm)' if '--warm' in sys.argv
                           else 'restarted, empty content cache'))
    print('Swift: the plan\'s container and the account; Heat: its stack '
          'API and template validation; client and Mistral together')
    first = 'first deploy'
    if '--plan-first' in sys.argv:
        first = 'first deploy of a plan made before it'
        seconds = bench_plan.run([
            'openstack', 'overcloud', 'plan', 'create', plan,
            '--templates', cmd[cmd.index('--templates') + 1]] + [
                a for p in environments for a in ('-e', p)], env)
        print('(plan create before it: %.1f s, not counted)' % seconds)
    print('%-38s %6s %6s %6s %8s %8s %8s  %s' % (
        '', 'Swift', 'Heat', 'total', 'renders', 'wall s', 'Heat s',
        'goal'))
    rows = []
    step = len(_history(env, plan)) + 1 if '--plan-first' in sys.argv \
        else 1
    try:
        for label, limit in ((first, 300), ('redeploy, nothing changed', 6)):
            marks = [log.mark() for log, _ in logs]
            seconds, result, counts = counted(logs, cmd, env)
            if _settled(env):
                # The deploy workflow's follow task ended after the
                # command: its requests are this deploy's too.
                counts = [log.since(mark, path) for (log, path), mark in
                          zip(logs, marks)]
            # Before the record is read here (its requests are ours).
            groups = [log.groups(mark, path) for (log, path), mark in zip(
                logs, marks)]
            record = _history(env, plan)
            n_renders = sum(1 for s in record[step - 1:]
                            if s['action'] in ('create', 'amend', 'deploy')
                            and (s.get('render') or {}).get('state')
                            == 'SUCCESS')
            step = len(record) + 1
            heat_s = heat_seconds(env, plan, result['stack_id']) \
                if result['operation'] != 'NONE' else None
            (swift_n, _, swift_m), (heat_n, _, heat_m) = counts
            print('%-38s %6d %6d %6d %8d %8.1f %8s  %s' % (
                label, swift_n, heat_n, swift_n + heat_n, n_renders,
                seconds, '%.0f' % heat_s if heat_s is not None else '-',
                bench_plan.goal(swift_n + heat_n, limit)))
            rows.append((label, result['operation'], groups))
        for label, operation, (swift_g, heat_g) in rows:
            print('  %s (Heat operation %s):\n    Swift: %s\n    Heat: %s'
                  % (label, operation, bench_plan.grouped(swift_g),
                     bench_plan.grouped(heat_g)))
        requests, n_files, seconds = naive_assembly(
            env, plan, result['environments'], swift_log)
        print('naive assembly (heatclient, one GET per reference, no cache):'
              ' %d Swift requests for %d files, %.1f s, on every deploy'
              % (requests, n_files, seconds))
        print('anchor: the old client + tripleo-common ~3,400 requests first '
              'deploy, ~5,700 redeploy, 7-8 renders')
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if '--keep' not in sys.argv:
            cleanup(env, plan)


def _settled(env, timeout=90):
    """Wait until no deploy workflow runs (the follow task of the one
    just answered); True when one was waited for."""
    from tripleoplanclient import protocol

    waited, deadline = False, time.monotonic() + timeout
    while time.monotonic() < deadline:
        proc = subprocess.run([
            'openstack', 'workflow', 'execution', 'list', '-f', 'json',
            '--filter', 'state=RUNNING', '--filter',
            'workflow_name=%s' % protocol.workflow('deploy')], env=env,
            capture_output=True, text=True)
        # (none listed: one row of empty fields)
        if proc.returncode or not [e for e in json.loads(
                proc.stdout or '[]') if e.get('ID')]:
            return waited
        waited = True
        time.sleep(2)
    return waited


def _history(env, plan):
    """The plan's history rows, read as the client reads them."""
    return bench_plan.plan_store(env['LOOPBACK_SWIFT_URL'],
                                 bench_plan.token(env)).history(plan)[0]


def cleanup(env, plan):
    subprocess.run(['openstack', 'stack', 'delete', '-y', '--wait', plan],
                   env=env, capture_output=True)
    subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y', plan],
                   env=env, capture_output=True)


if __name__ == '__main__':
    main()
