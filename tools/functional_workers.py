"""Share the functional test classes out among stestr's workers by their
measured time, for ``stestr run --worker-file``.

Without timing history (a clean clone, as in CI) stestr deals the classes
out in turn, in name order: CI's two workers once took 20.6 and 14.6
minutes.  Here each class, longest first, goes to the least loaded worker
(the way stestr itself schedules once it has timings), with the times of
tests/functional/class_seconds.txt: one ``SECONDS CLASS`` line per test
class, its wall time on one of CI's two workers, setUpClass included.  A
class not there (a new one) counts as DEFAULT seconds; a class there that
is gone is ignored.  Every class listed on stdin lands on exactly one
worker, so nothing is left out of the run (a worker file runs only the
tests its regexes match).

    stestr list [filters] | python3 tools/functional_workers.py 2 > w.yaml
    stestr run --worker-file w.yaml [the same filters]

After a run (a clean clone's, or under the same load), the classes'
seconds to refresh the file with (``.stestr/1`` is tools/run-tests.sh's
first functional run in a clean clone; ``stestr last --subunit`` gives the
last run in v2 already)::

    subunit-1to2 < .stestr/1 | python3 tools/functional_workers.py --measure
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys

SECONDS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), 'tests', 'functional', 'class_seconds.txt')
DEFAULT = 60.0


def class_of(test_id: str) -> str:
    """The class of a test id (stestr's group_regex in .stestr.conf
    groups functional tests by it too: a class shares one plan)."""
    return test_id.split('[', 1)[0].rsplit('.', 1)[0]


def read_seconds(path: str = SECONDS) -> dict[str, float]:
    seconds = {}
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                value, name = line.split()
                seconds[name] = float(value)
    return seconds


def share(test_ids: list[str], workers: int, seconds: dict[str, float],
          default: float = DEFAULT) -> list[list[str]]:
    """The classes of test_ids in ``workers`` lists, the longest first to
    the least loaded (ties: the worker with fewer classes, then the
    first); each list in the order the classes came."""
    order = list(dict.fromkeys(class_of(t) for t in test_ids))
    loads = [[0.0, []] for _ in range(workers)]
    for name in sorted(order, key=lambda c: -seconds.get(c, default)):
        load = min(loads, key=lambda w: (w[0], len(w[1])))
        load[0] += seconds.get(name, default)
        load[1].append(name)
    return [sorted(names, key=order.index) for _, names in loads]


def worker_file(shares: list[list[str]]) -> str:
    """stestr's worker file (YAML) for these shares: one anchored regex
    per class; an empty share is left out."""
    return ''.join('- worker:\n' + ''.join(
        "  - '^%s\\.'\n" % re.escape(name) for name in names)
        for names in shares if names)


def measure(stream) -> dict[str, float]:
    """Each class's wall time on its worker in a subunit v2 stream: from
    the end of that worker's previous test (so setUpClass counts) to the
    end of the class's last test."""
    import subunit
    import testtools

    ends = collections.defaultdict(list)    # worker: [(start, end, id)]

    class Times(testtools.StreamResult):
        started = {}

        def status(self, test_id=None, test_status=None, test_tags=None,
                   timestamp=None, **kwargs):
            if not test_id or timestamp is None:
                return
            if test_status == 'inprogress':
                self.started[test_id] = timestamp
            elif test_status in ('success', 'fail', 'skip', 'xfail',
                                 'uxsuccess'):
                worker = sorted(t for t in test_tags or ()
                                if t.startswith('worker-'))
                ends[tuple(worker)].append((
                    self.started.get(test_id, timestamp), timestamp,
                    test_id))

    result = Times()
    result.startTestRun()
    subunit.ByteStreamToStreamResult(stream).run(result)
    result.stopTestRun()
    seconds = collections.defaultdict(float)
    for runs in ends.values():
        previous = None
        for start, end, test_id in sorted(runs):
            begin = previous if previous is not None else start
            seconds[class_of(test_id)] += (end - begin).total_seconds()
            previous = end
    return dict(seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('workers', type=int, nargs='?', default=2)
    parser.add_argument('--seconds', default=SECONDS,
                        help='the classes\' seconds (default: %(default)s)')
    parser.add_argument('--measure', action='store_true',
                        help='read a subunit v2 stream on stdin and print '
                        'each class\'s seconds instead')
    args = parser.parse_args(argv)
    if args.measure:
        for name, value in sorted(measure(sys.stdin.buffer).items()):
            print('%7.1f %s' % (value, name))
        return 0
    if args.workers < 1:
        parser.error('workers: at least 1')
    test_ids = [line.strip() for line in sys.stdin if line.strip()]
    if not test_ids:
        print('no test ids on stdin', file=sys.stderr)
        return 2
    seconds = read_seconds(args.seconds)
    shares = share(test_ids, args.workers, seconds)
    for i, names in enumerate(shares):
        print('worker %d: %d classes, ~%.0f s' % (i, len(names), sum(
            seconds.get(n, DEFAULT) for n in names)), file=sys.stderr)
    sys.stdout.write(worker_file(shares))
    return 0


if __name__ == '__main__':
    sys.exit(main())
