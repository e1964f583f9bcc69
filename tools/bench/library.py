#!/usr/bin/env python3
"""Benchmark ``overcloud plan parameters show`` on THT 18.0.0.

One THT 18.0.0 plan (the environment set of deploy.py, rendered), then:

* ``parameters show`` once (Heat's validation with nested stacks, in our
  Mistral action) and again ``--rounds`` times with the plan unchanged
  (answered from the executor's cache, keyed by the plan's content
  digest);
* ``plan amend`` with one new ``-e`` (``--no-render``), then
  ``parameters show``: the time of one Heat validation again;
* Heat's own ``openstack orchestration template validate --show-nested``
  on the same files (the plan exported and unpacked, the same
  environment files in the same order, the plan's passwords and
  parameter_defaults first as one more environment file).

Prints the wall time of each command, the Heat validations and the
Swift requests to the plan's container each made (from the services'
access logs), and the ratios. Needs the loopback Swift, Mistral and Heat
and the workbook (see deploy.py). Usage: ``python3
tools/bench/library.py [--rounds N] [--keep]``.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

from bench import deploy as bench_deploy  # noqa: E402
from bench import plan as bench_plan  # noqa: E402

TIMEZONE = 'parameter_defaults:\n  TimeZone: Europe/Paris\n'


def run(cmd, env):
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(cmd), proc.stderr[-3000:]))
    return seconds, proc.stdout


class Counted:
    """Heat validations and Swift requests to the plan's container."""

    def __init__(self, env, plan):
        heat = urllib.parse.urlsplit(env['LOOPBACK_HEAT_URL']).path
        swift = urllib.parse.urlsplit(env['LOOPBACK_SWIFT_URL']).path
        self.logs = [
            (bench_deploy.HeatLog(env['LOOPBACK_HEAT_ACCESS_LOG']),
             heat.rstrip('/') + '/validate'),
            (bench_plan.AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG']),
             '%s/%s' % (swift.rstrip('/'), plan))]
        self.env = env

    def __call__(self, cmd):
        """``(seconds, stdout, heat validations, swift requests)``."""
        marks = [log.mark() for log, _ in self.logs]
        seconds, out = run(cmd, self.env)
        time.sleep(0.5)     # the access logs' last lines
        (heat, _, _), (swift, _, _) = [
            log.since(mark, path)
            for (log, path), mark in zip(self.logs, marks)]
        return seconds, out, heat, swift


def row(label, result):
    """A printed row: label, seconds, Heat validations, Swift requests."""
    seconds, _, heat, swift = result
    return label, seconds, heat, swift


def heat_alone(env, plan, work, environments):
    """``openstack orchestration template validate --show-nested`` on the
    plan's files as the plan's newest step holds them."""
    import yaml

    archive = os.path.join(work, 'plan.tar.gz')
    run(['openstack', 'overcloud', 'plan', 'export', plan, '--output-file',
         archive], env)
    tree = os.path.join(work, 'tree')
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter='data')
    root = os.path.join(tree, os.listdir(tree)[0]) if not os.path.exists(
        os.path.join(tree, 'overcloud.yaml')) else tree
    with open(os.path.join(root, 'plan-environment.yaml')) as f:
        plan_env = yaml.safe_load(f)
    first = os.path.join(work, 'plan-parameters.yaml')
    with open(first, 'w') as f:
        yaml.safe_dump({'parameter_defaults': dict(
            plan_env.get('passwords') or {},
            **(plan_env.get('parameter_defaults') or {}))}, f)
    cmd = ['openstack', 'orchestration', 'template', 'validate', '-t',
           os.path.join(root, 'overcloud.yaml'), '--show-nested', '-e',
           first, '-f', 'json']
    for path in environments:
        cmd += ['-e', os.path.join(root, path)]
    return cmd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--keep', action='store_true')
    args = parser.parse_args()
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    os.environ.update(env)
    plan = 'bench-library-%s' % uuid.uuid4().hex[:6]
    work = tempfile.mkdtemp(prefix='bench-library-')
    deploy, _ = bench_deploy.setup(env, plan, work)
    create = ['openstack', 'overcloud', 'plan', 'create', plan] + \
        deploy[deploy.index('--templates'):]
    counted = Counted(env, plan)
    show = ['openstack', 'overcloud', 'plan', 'parameters', 'show', plan,
            '-f', 'json']
    try:
        seconds, _ = run(create, env)
        print('THT 18.0.0 plan %s created (rendered) in %.1f s' % (plan,
                                                                   seconds))
        rows = []
        first = counted(show)
        count = len(json.loads(first[1]))
        rows.append(row('parameters show (new plan)', first))
        again = [counted(show) for _ in range(args.rounds)]
        cached = statistics.median(a[0] for a in again)
        rows.append(('parameters show, unchanged (median of %d)'
                     % args.rounds, cached, max(a[2] for a in again),
                     max(a[3] for a in again)))
        timezone = os.path.join(work, 'timezone.yaml')
        with open(timezone, 'w') as f:
            f.write(TIMEZONE)
        run(['openstack', 'overcloud', 'plan', 'amend', plan, '-e', timezone,
             '--no-render'], env)
        changed = counted(show)
        rows.append(row('parameters show (plan amended)', changed))
        record = json.loads(run(['openstack', 'overcloud', 'plan',
                                 'show-history', plan, '-f', 'json'],
                                env)[1])
        environments = record[-1]['environments']
        heat = counted(heat_alone(env, plan, work, environments))
        rows.append(row('Heat\'s own template validate --show-nested',
                        heat))
        print('%-46s %8s %6s %6s' % ('', 'wall s', 'Heat', 'Swift'))
        for label, seconds, heat_n, swift_n in rows:
            print('%-46s %8.2f %6d %6d' % (label, seconds, heat_n, swift_n))
        print('%d parameters; unchanged: %.1fx faster than after a change, '
              '%.1fx faster than Heat\'s own validation; after a change: '
              '%.2fx Heat\'s own' % (count, changed[0] / cached,
                                     heat[0] / cached, changed[0] / heat[0]))
        print(json.dumps({'parameters': count,
                          'new_s': round(first[0], 2),
                          'unchanged_s': round(cached, 2),
                          'changed_s': round(changed[0], 2),
                          'heat_validate_s': round(heat[0], 2)}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if not args.keep:
            subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                            plan], env=env, capture_output=True)


if __name__ == '__main__':
    main()
