#!/usr/bin/env python3
"""What an alias bomb costs a reader of YAML (issue 37 finding 4), measured.

* The finding's shape: a billion laughs under a validation's
  ``metadata.requires`` (nine lists of nine aliases), read by
  ``metadata.read`` as of a git revision (default ffcbe9b, before the
  bound: ``yaml.safe_load`` and ``requires`` stringified) and as now.
* Plan content: a bomb whose aliases add just under the former cap
  (1,000,000 nodes) and just under the present one (content.MAX_ALIAS_NODES),
  read by ``content.load_yaml``, then walked as the library's actions do
  (``json.dumps``) and dumped as YAML after a JSON round trip (what a
  Mistral output written back into a plan costs).

Each case runs in its own process: seconds and peak resident memory
(ru_maxrss of that process). Usage: ``python3 tools/bench/yaml_bounds.py
[--before REV] [--skip-before]``.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def playbook(width=9, depth=9):
    out = ['- hosts: all', '  vars:', '    lol:', '      l0: &l0 "lol"']
    out += ['      l%d: &l%d [%s]' % (i, i, ','.join(['*l%d' % (i - 1)] *
                                                     width))
            for i in range(1, depth)]
    out += ['    metadata:', '      name: Laughs', '      description: x',
            '      groups: [pre-deployment]',
            '      requires: [%s]' % ','.join(['*l%d' % (depth - 1)] * width),
            '  tasks: []']
    return ('\n'.join(out) + '\n').encode()


def plan_bomb(added):
    """A template whose aliases add a little under ``added`` nodes."""
    lines, size, total, level = ['l0: &l0 lol'], 1, 0, 0
    while total + 10 * (1 + 10 * size) <= added * 0.5:
        level += 1
        lines.append('l%d: &l%d [%s]' % (level, level, ', '.join(
            ['*l%d' % (level - 1)] * 10)))
        total += 10 * size
        size = 1 + 10 * size
    refs = (added - total) // size
    lines.append('top: [%s]' % ', '.join(['*l%d' % level] * refs))
    return ('\n'.join(lines) + '\n').encode(), total + refs * size


CHILD = textwrap.dedent('''
    import json, resource, sys, time, types
    sys.path.insert(0, %(repo)r)
    kind, arg, data = sys.argv[1], sys.argv[2], sys.stdin.buffer.read()
    out = {}
    start = time.monotonic()
    if kind == 'metadata':
        if arg:
            module = types.ModuleType('old_metadata')
            exec(compile(open(arg).read(), 'old metadata', 'exec'),
                 module.__dict__)
        else:
            from tripleoplanclient.validations import metadata as module
        out['problem'] = module.read('laughs', data, None)['problem']
    else:
        import yaml
        if arg:
            content = types.ModuleType('old_content')
            exec(compile(open(arg).read(), 'old content', 'exec'),
                 content.__dict__)
        else:
            from tripleoplanclient.common import content
        try:
            value = content.load_yaml(data, 'bomb.yaml')
        except Exception as exc:
            out['problem'] = str(exc)
        else:
            out['load'] = time.monotonic() - start
            t = time.monotonic()
            text = json.dumps(value)
            out['json'], out['json_mb'] = time.monotonic() - t, \\
                len(text) / 2 ** 20
            t = time.monotonic()
            yaml.safe_dump(json.loads(text))
            out['yaml'] = time.monotonic() - t
    out['seconds'] = time.monotonic() - start
    out['peak_mb'] = resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
''') % {'repo': REPO}


def run(kind, data, arg=''):
    done = subprocess.run([sys.executable, '-c', CHILD, kind, arg],
                          input=data, capture_output=True, check=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--before', default='ffcbe9b')
    parser.add_argument('--skip-before', action='store_true')
    args = parser.parse_args()
    sys.path.insert(0, REPO)
    from tripleoplanclient.common import content

    data = playbook()
    print('validation playbook, billion laughs under requires: %d bytes'
          % len(data))
    old = {}
    if not args.skip_before:
        for name in ('validations/metadata.py', 'common/content.py'):
            old[name] = os.path.join('/tmp', 'bench_yaml_bounds_' +
                                     name.replace('/', '_'))
            with open(old[name], 'wb') as f:
                f.write(subprocess.run(
                    ['git', '-C', REPO, 'show', '%s:tripleoplanclient/%s'
                     % (args.before, name)],
                    capture_output=True, check=True).stdout)
        before = run('metadata', data, old['validations/metadata.py'])
        print('  before (%s): %.2f s, peak %.0f MB, problem: %s' % (
            args.before, before['seconds'], before['peak_mb'],
            before['problem']))
    after = run('metadata', data)
    print('  after: %.3f s, peak %.0f MB, problem: %s' % (
        after['seconds'], after['peak_mb'], after['problem']))
    if old:
        print('  ratio: %.0fx the time, %.1fx the memory' % (
            before['seconds'] / after['seconds'],
            before['peak_mb'] / after['peak_mb']))
    cases = [(1000000, 'after'), (content.MAX_ALIAS_NODES, 'after')]
    if old:
        cases.insert(0, (1000000, 'before'))
    for cap, when in cases:
        bomb, added = plan_bomb(cap)
        found = run('plan', bomb, old['common/content.py']
                    if when == 'before' else '')
        print('plan template, %d bytes, aliases add %d nodes, %s:'
              % (len(bomb), added, when if when == 'after' else
                 'before (%s, cap 1000000)' % args.before))
        if 'problem' in found:
            print('  refused: %s' % found['problem'])
            continue
        print('  load %.3f s; json.dumps %.2f s, %.1f MB; YAML dump of it '
              '%.2f s; peak %.0f MB' % (
                  found['load'], found['json'], found['json_mb'],
                  found['yaml'], found['peak_mb']))


if __name__ == '__main__':
    main()
