#!/usr/bin/env python3
"""Benchmark the record against the loopback Swift: does cost grow with
history?

Prints, for a small plan with 1 step and then with 1,000 steps, the Swift
requests and wall time of ``openstack overcloud plan amend -e one.yaml``
and of ``openstack overcloud plan show-history``, and the ratio of the
two. The 998 steps in between are real steps committed through the
project's own store (a listing, one GET and one write each), not through
the CLI, to save twenty minutes of start-ups. The record's cache keeps
only steps Swift stamped SETTLE seconds ago, so the benchmark waits that
long before reading the long history: the first read after the wait
fetches every step once and mends the cache; the figures after it are
what an operator sees.

Needs the loopback Swift and Mistral (``python3 tools/loopback start
swift mistral``), the workbook installed, and this project with
``openstack`` on PATH. Usage: ``python3 tools/bench_record.py [STEPS]``.
"""

import os
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

import bench_plan  # noqa: E402  (tools/ is not a package)


def _methods(counts):
    return ' '.join('%s %d' % kv for kv in sorted(counts.items()))


def timed(cmd, env, log, plan):
    mark = log.mark()
    seconds = bench_plan.run(cmd, env)
    count, _, methods = log.since(mark, '/v1/')
    return count, seconds, methods


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    log = bench_plan.AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG'])
    url = env['LOOPBACK_SWIFT_URL']

    from tripleoplanclient.plan import files as files_mod
    from tripleoplanclient.plan import record
    from tripleoplanclient.plan import steps as steps_mod

    store = bench_plan.plan_store(url)
    tmp = tempfile.mkdtemp(prefix='bench-record-')
    templates = os.path.join(tmp, 'templates')
    os.makedirs(templates)
    with open(os.path.join(templates, 'overcloud.yaml'), 'w') as f:
        f.write('heat_template_version: rocky\nresources: {}\n')
    with open(os.path.join(templates, 'roles_data.yaml'), 'w') as f:
        f.write('- name: Controller\n')

    def env_file(name):
        path = os.path.join(tmp, name)
        with open(path, 'w') as f:
            f.write('parameter_defaults: {%s: 1}\n' % name.split('.')[0])
        return path

    plan = 'bench-record-' + uuid.uuid4().hex[:6]
    amend = ['openstack', 'overcloud', 'plan', 'amend', plan, '-e']
    history = ['openstack', 'overcloud', 'plan', 'show-history', plan,
               '-f', 'json']
    bench_plan.run(['openstack', 'overcloud', 'plan', 'create', plan,
                    '--templates', templates], env)
    print('%-46s %9s %9s' % ('', 'requests', 'wall'))
    figures = {}
    try:
        one = timed(amend + [env_file('one.yaml')], env, log, plan)
        bench_plan.row('amend -e one.yaml, 2nd step', one[0], one[1],
                       _methods(one[2]))
        figures['amend'] = [one]
        shown = timed(history, env, log, plan)
        bench_plan.row('show-history, 2 steps', shown[0], shown[1])
        figures['history'] = [shown]

        started = time.monotonic()
        head = store.head(plan)
        for i in range(steps - 3):
            # As an operator's amends go: one of ten files, new content.
            path = 'user-files/bench/env-%02d.yaml' % (i % 10)
            files = files_mod.PlanFiles()
            files.environments = [path]
            files.objects[path] = b'parameter_defaults: {Bench: %d}\n' % i
            files.sources[path] = '/bench/env-%02d.yaml' % (i % 10)
            change = steps_mod.Change(head.state, files)
            step = change.step('amend', argv=[])
            store.commit(plan, step, head, change.objects())
            head = steps_mod.after(head, step)
        print('%d more steps committed in %.1f s; waiting %d s until Swift\'s'
              ' stamps settle' % (steps - 3, time.monotonic() - started,
                                  record.SETTLE))
        time.sleep(record.SETTLE + 2)
        first = timed(history, env, log, plan)
        bench_plan.row('show-history, first read (mends the cache)',
                       first[0], first[1])
        shown = timed(history, env, log, plan)
        bench_plan.row('show-history, %d steps' % (steps - 1), shown[0],
                       shown[1])
        figures['history'].append(shown)
        many = timed(amend + [env_file('two.yaml')], env, log, plan)
        bench_plan.row('amend -e two.yaml, step %d' % steps, many[0],
                       many[1], _methods(many[2]))
        figures['amend'].append(many)
        for name, (small, large) in sorted(figures.items()):
            print('%s: %d requests with 2 steps, %d with %d; %.2f s and '
                  '%.2f s (x%.2f)' % (name, small[0], large[0], steps - 1,
                                      small[1], large[1],
                                      large[1] / small[1]))
        print('goals: amend <= 3 requests at any length (%s); show-history '
              '<= 1 s at %d steps (%s)' % (
                  'met' if max(a[0] for a in figures['amend']) <= 3
                  else 'MISSED', steps - 1,
                  'met' if figures['history'][1][1] <= 1.0 else 'MISSED'))
    finally:
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        plan], env=env, capture_output=True)


if __name__ == '__main__':
    main()
