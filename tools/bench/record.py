#!/usr/bin/env python3
"""Benchmark the record against the loopback Swift: does cost grow with
history?

Prints, for a small plan with 1 step and then with 1,000 steps, the Swift
requests (client and Mistral together, counted in Swift's access log),
the Mistral requests (the client's, counted in its ``--debug`` log) and
wall time of ``openstack overcloud plan amend -e one.yaml``, each next to
its goal (<= 4 Swift requests and 1 Mistral request at any length), and
of ``openstack overcloud plan show-history``; then what reproducing a
past step costs at 1,000 steps (``--step`` of show-history and export,
and restore), the storage the kept content takes next to a full copy of
the plan per step, and the size of the index
(``user-environments/environments.yaml``, every row readable on its own)
next to the same rows with environment lists as indices into one table.
The 998 steps in between are real amends through the project's own code
(``record.steps.amend`` and the plan_amend action's body,
``mistral.lifecycle.amend``, run here), each replacing one of ten files,
not through the CLI, to save twenty minutes of start-ups. Readers trust
the index's rows without their step objects once Swift stamped them SETTLE
seconds ago, so the benchmark waits that long before reading the long
history: the first read after the wait marks them settled on the index;
the figures after it are what an operator sees.

Needs the loopback Swift and Mistral (``python3 tools/loopback start
swift mistral``), the workbook installed, and this project with
``openstack`` on PATH. Usage: ``python3 tools/bench/record.py [STEPS]``.
"""

import os
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


def _methods(counts):
    return ' '.join('%s %d' % kv for kv in sorted(counts.items()))


# The goals of issue 27: a one-file amend, whatever the history's length.
AMEND_SWIFT, AMEND_MISTRAL = 4, 1


def timed(cmd, env, log, plan):
    mark = log.mark()
    seconds = bench_plan.run(cmd, env)
    count, _, methods = log.since(mark, '/v1/')
    return count, seconds, methods


def amended(cmd, env, log):
    """``(Swift requests, seconds, methods, Mistral requests)`` of an
    amend: Swift's from its access log, Mistral's from the client's
    ``--debug`` log (one ``REQ: curl`` line per request it sends)."""
    mark = log.mark()
    start = time.monotonic()
    proc = subprocess.run([cmd[0], '--debug'] + cmd[1:], env=env,
                          capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(cmd), proc.stderr[-3000:]))
    count, _, methods = log.since(mark, '/v1/')
    mistral = env['LOOPBACK_MISTRAL_URL'].rstrip('/').rsplit('/', 1)[0]
    calls = len([line for line in proc.stderr.splitlines()
                 if line.startswith('REQ: curl') and mistral in line])
    return count, seconds, methods, calls


def against_goal(figure):
    swift, _, _, mistral = figure
    return '%d Swift (goal <= %d) + %d Mistral (goal %d): %s' % (
        swift, AMEND_SWIFT, mistral, AMEND_MISTRAL,
        'met' if swift <= AMEND_SWIFT and mistral <= AMEND_MISTRAL
        else 'MISSED')


def index_size(store, plan):
    """The index's bytes, and what its rows would take with every
    environment list as indices into one table of paths (the previous
    release's cache form)."""
    import json

    from tripleoplanclient.record import log

    data = store.container.get(plan, log.PATH)
    loaded = json.loads(data)
    table = {}

    def as_indices(paths):
        return [table.setdefault(p, len(table)) for p in paths]

    rows = []
    for row in loaded['history']:
        row = dict(row, environments=as_indices(row['environments']))
        if 'environments' in (row.get('stack') or {}):
            row['stack'] = dict(row['stack'], environments=as_indices(
                row['stack']['environments']))
        rows.append(row)
    indexed = len(json.dumps(dict(loaded, history=rows, paths=list(table))))
    print('index: %d bytes for %d rows (%d bytes a row); with environment '
          'lists as indices into one table: %d bytes' % (
              len(data), len(loaded['history']),
              len(data) // len(loaded['history']), indexed))


def storage(store, plan, steps):
    """Bytes the record and the kept content take, by kind, next to what a
    full copy of the plan at every step would take."""
    from tripleoplanclient.plan import layout
    from tripleoplanclient.plan import tree

    _, listing = store.container.listing(plan)
    kinds = {}
    for name, entry in listing.items():
        kind = ('kept content' if name.startswith(tree.KEPT_PREFIX) else
                'tree snapshots' if name.startswith(tree.SNAPSHOT_PREFIX)
                else 'record' if name.startswith(layout.RECORD_DIR)
                else 'plan files')
        count, size = kinds.get(kind, (0, 0))
        kinds[kind] = (count + 1, size + entry['bytes'])
    for kind, (count, size) in sorted(kinds.items()):
        print('storage, %-16s %6d objects %10d bytes' % (kind, count, size))
    kept = kinds.get('kept content', (0, 0))
    record = kinds['record']
    print('kept content: %d bytes in %d objects for %d steps that each '
          'replaced one file: %.0f bytes per step, the size of the content '
          'replaced (one copy per content, however many steps used it)'
          % (kept[1], kept[0], steps, kept[1] / float(steps)))
    print('record: %.1f KB per step (step objects); a full copy of the plan '
          'per step would cost the plan\'s size per step (THT 18: 5.8 MB)'
          % (record[1] / 1000.0 / record[0]))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    log = bench_plan.AccessLog(env['LOOPBACK_SWIFT_ACCESS_LOG'])
    url = env['LOOPBACK_SWIFT_URL']

    from tripleoplanclient.mistral import lifecycle
    from tripleoplanclient.mistral import objects
    from tripleoplanclient.plan import files as files_mod
    from tripleoplanclient import protocol
    from tripleoplanclient.record import index
    from tripleoplanclient.record import steps as steps_mod

    store = bench_plan.plan_store(url)
    tmp = tempfile.mkdtemp(prefix='bench-record-')
    templates = os.path.join(tmp, 'templates')
    os.makedirs(templates)
    with open(os.path.join(templates, 'overcloud.yaml'), 'w') as f:
        f.write('heat_template_version: rocky\nresources: {}\n')
    with open(os.path.join(templates, 'roles_data.yaml'), 'w') as f:
        f.write('- name: Controller\n')

    def env_file(name, value=1):
        path = os.path.join(tmp, name)
        with open(path, 'w') as f:
            f.write('parameter_defaults: {%s: %d}\n' % (name.split('.')[0],
                                                        value))
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
        one = amended(amend + [env_file('one.yaml')], env, log)
        bench_plan.row('amend -e one.yaml, 2nd step', one[0], one[1],
                       '%s; %s' % (_methods(one[2]), against_goal(one)))
        figures['amend'] = [one]
        shown = timed(history, env, log, plan)
        bench_plan.row('show-history, 2 steps', shown[0], shown[1])
        figures['history'] = [shown]

        def record_here(plan, name, fields, renders=False):
            return lifecycle.amend(store, protocol.read(name, protocol.request(
                name, container=plan, **fields)), objects.ContentCache())
        record_here.check = lambda: None

        started = time.monotonic()
        head = store.reader.head(plan)
        for i in range(steps - 3):
            # As an operator's amends go: one of ten files, new content.
            path = 'user-files/bench/env-%02d.yaml' % (i % 10)
            files = files_mod.PlanFiles()
            files.environments = [path]
            files.objects[path] = b'parameter_defaults: {Bench: %d}\n' % i
            files.sources[path] = '/bench/env-%02d.yaml' % (i % 10)
            result = steps_mod.amend(store, plan, head, files,
                                     record=record_here,
                                     no_render=True)
            head = steps_mod.head_after(result)
        print('%d more steps committed in %.1f s; waiting %d s until Swift\'s'
              ' stamps settle' % (steps - 3, time.monotonic() - started,
                                  index.SETTLE))
        time.sleep(index.SETTLE + 2)
        first = timed(history, env, log, plan)
        bench_plan.row('show-history, first read (settles the index)',
                       first[0], first[1])
        # The median of three: one wall time is at the mercy of the machine.
        runs = sorted((timed(history, env, log, plan) for _ in range(3)),
                      key=lambda r: r[1])
        shown = runs[1]
        bench_plan.row('show-history, %d steps (median of 3)' % (steps - 1),
                       shown[0], shown[1])
        figures['history'].append(shown)
        many = amended(amend + [env_file('two.yaml')], env, log)
        bench_plan.row('amend -e two.yaml, step %d' % steps, many[0],
                       many[1], '%s; %s' % (_methods(many[2]),
                                            against_goal(many)))
        figures['amend'].append(many)
        changed = amended(amend + [env_file('two.yaml', 2)], env, log)
        bench_plan.row('amend, two.yaml changed (content kept)',
                       changed[0], changed[1], '%s; %d Mistral (one COPY '
                       'more: the replaced content kept)' % (
                           _methods(changed[2]), changed[3]))
        for label, cmd in (
                ('show-step 2', ['openstack', 'overcloud', 'plan',
                                 'show-step', plan, '2', '-f', 'json']),
                ('export --step 2', ['openstack', 'overcloud', 'plan',
                                     'export', plan, '--step', '2',
                                     '--output-file',
                                     os.path.join(tmp, 'step2.tar.gz')]),
                ('restore --step 2', ['openstack', 'overcloud', 'plan',
                                      'restore', plan, '--step', '2'])):
            found = timed(cmd, env, log, plan)
            bench_plan.row('%s, %d steps' % (label, steps + 1), found[0],
                           found[1], _methods(found[2]))
        storage(store, plan, steps)
        index_size(store, plan)
        for name, (small, large) in sorted(figures.items()):
            print('%s: %d requests with 2 steps, %d with %d; %.2f s and '
                  '%.2f s (x%.2f)' % (name, small[0], large[0], steps - 1,
                                      small[1], large[1],
                                      large[1] / small[1]))
        print('goals: amend <= %d Swift + %d Mistral requests at any '
              'length: %s at 2 steps, %s at %d; show-history <= 1 s at %d '
              'steps (%s)' % (
                  AMEND_SWIFT, AMEND_MISTRAL,
                  against_goal(figures['amend'][0]),
                  against_goal(figures['amend'][1]), steps, steps - 1,
                  'met' if figures['history'][1][1] <= 1.0 else 'MISSED'))
    finally:
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        plan], env=env, capture_output=True)


if __name__ == '__main__':
    main()
