#!/usr/bin/env python3
"""Benchmark ``update preview`` (the dry run with Heat's preview as a
table) against the real update, on
THT 18.0.0.

One THT 18.0.0 overcloud (deployed servers, the environment set of
deploy.py) is created, then one new ``-e`` setting ``TimeZone``:
``overcloud update preview`` and the real ``overcloud update`` with the
same file. Prints, for each, the wall time and every Swift request to the
plan's container and Heat request to the stack API (client and Mistral
side, from the services' access logs), by method, and the ratio of the
times. The dry run must change nothing: its Swift requests are reads
only, its Heat requests a template validation and the preview.

Needs the loopback Swift, Mistral and Heat and the workbook (see
deploy.py). Usage: ``python3 tools/bench/preview.py [--keep]``.
"""

import json
import os
import shutil
import sys
import tempfile
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

from bench import deploy as bench_deploy  # noqa: E402
from bench import plan as bench_plan  # noqa: E402

TIMEZONE = 'parameter_defaults:\n  TimeZone: Europe/Paris\n'
WRITES = ('PUT', 'POST', 'DELETE', 'PATCH', 'COPY')


def main():
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    os.environ.update(env)
    plan = 'bench-preview-%s' % uuid.uuid4().hex[:6]
    work = tempfile.mkdtemp(prefix='bench-preview-')
    deploy, logs = bench_deploy.setup(env, plan, work)
    timezone = os.path.join(work, 'timezone.yaml')
    with open(timezone, 'w') as f:
        f.write(TIMEZONE)
    update = ['openstack', 'overcloud', 'update', '--stack', plan, '-e',
              timezone, '-f', 'json']
    print('THT 18.0.0 overcloud %s (deployed servers); then one new -e '
          'setting TimeZone' % plan)
    try:
        seconds, _, _ = bench_deploy.counted(logs, deploy, env)
        print('stack created in %.0f s' % seconds)
        rows = []
        # "update preview" is the dry run with the preview's columns.
        preview = update[:3] + ['preview'] + update[3:]
        for label, cmd in (('update preview', preview),
                           ('update', update + ['-y'])):
            seconds, result, counts = bench_deploy.counted(logs, cmd, env)
            rows.append((label, seconds, result, counts))
        print('%-18s %8s %6s %6s  %s' % ('', 'wall s', 'Swift', 'Heat',
                                         'requests by method'))
        for label, seconds, _, ((swift_n, _, swift_m),
                                (heat_n, _, heat_m)) in rows:
            print('%-18s %8.1f %6d %6d  Swift %s; Heat %s' % (
                label, seconds, swift_n, heat_n,
                bench_deploy.methods(swift_m), bench_deploy.methods(heat_m)))
        preview = rows[0][2]
        print('Heat previewed %s: %s; nested detail %s' % (
            preview['heat_operation'], ', '.join(
                '%d %s' % (len(preview['resources_' + k]), k)
                for k in ('added', 'updated', 'replaced', 'deleted')) +
            ', %d unchanged' % preview['resources_unchanged'],
            preview['nested_detail']))
        swift_writes = sum(n for m, n in rows[0][3][0][2].items()
                           if m in WRITES)
        print('dry run: %d Swift writes (must be 0); %.1fx faster than the '
              'update it previews' % (swift_writes, rows[1][1] / rows[0][1]))
        print(json.dumps({'dry_run_s': round(rows[0][1], 1),
                          'update_s': round(rows[1][1], 1),
                          'ratio': round(rows[1][1] / rows[0][1], 1),
                          'dry_run_swift_writes': swift_writes}))
        if swift_writes:
            sys.exit('the dry run wrote to Swift')
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if '--keep' not in sys.argv:
            bench_deploy.cleanup(env, plan)


if __name__ == '__main__':
    main()
