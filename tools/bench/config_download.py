#!/usr/bin/env python3
"""Benchmark config-download's tree: ours (``config.stack_data.read`` +
``config.tree.files`` + ``config.inventory.inventory``) next to
tripleo-common 18.0.0's (``Config(heat).download_config`` + its static
inventory, its git commit included as it always makes one) on the same
Heat.

Prints, for each, the Heat requests by kind (every HTTP request: Heat's
redirects from a stack name to name/id too), the wall time (the median of
``--repeat`` runs) and the files written, the ratios, and whether both
trees are the same (same paths; YAML equal as data, other files byte for
byte); then one JSON line.

By default on a fake Heat (requests-mock, Heat 27's answers: the unit
tests' ``tests/unit/config/fake_heat`` and ``stacks``) holding a
THT-sized stack, 3 roles x 50 deployments, each request answered after
``--latency`` seconds (a loopback Heat answers in tens of
milliseconds). With ``--stack NAME``, on that stack of the loopback Heat
instead (``python3 tools/loopback env``: LOOPBACK_HEAT_URL, and
Keystone's token when it runs), its requests counted in Heat's access
log (LOOPBACK_HEAT_ACCESS_LOG).

Needs the test venv (heatclient, requests-mock, tripleo-common
--no-deps, GitPython)::

    ~/.cache/tripleoplanclient/venvs/test/bin/python \\
        tools/bench/config_download.py [--roles 3] [--deployments 50]
        [--latency 0.01] [--repeat 3] [--stack NAME]
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, 'tools'))

from tests import config_trees  # noqa: E402
from tests.unit.config import reference  # noqa: E402
from tripleoplanclient.config import inventory  # noqa: E402
from tripleoplanclient.config import stack_data  # noqa: E402
from tripleoplanclient.config import tree  # noqa: E402


def ours(heat, stack):
    data = stack_data.read(heat, stack)
    files = tree.files(data)
    text = inventory.inventory(data, stack)
    return files, text


def tripleo_common(heat, stack, work):
    from tripleo_common import inventories
    from tripleo_common import inventory as tc_inventory
    from tripleo_common.utils import config as tc_config
    top = tempfile.mkdtemp(dir=work)
    tc_config.Config(heat).download_config(stack, os.path.join(top, 'c'))
    tc_inventory_path = os.path.join(top, 'tripleo-ansible-inventory.yaml')
    inventories.TripleoInventories({stack: tc_inventory.TripleoInventory(
        hclient=heat, plan_name=stack, ansible_ssh_user='tripleo-admin',
        work_dir=top)}).write_static_inventory(tc_inventory_path)
    files = config_trees.walk(os.path.join(top, 'c'))
    shutil.rmtree(top)
    return files


def same(mine, theirs):
    """None when both trees are the same, else the first path that
    differs."""
    import yaml
    for path in sorted(set(mine) | set(theirs)):
        if path not in mine or path not in theirs:
            return path
        (a, a_mode), (b, b_mode) = mine[path], theirs[path]
        if a_mode != b_mode:
            return path
        if a != b and (path.endswith(('.pp', '.json', '.j2')) or
                       yaml.safe_load(a) != yaml.safe_load(b)):
            return path
    return None


def kind_of(path):
    """The kind of a Heat request from its path (after /v1/<project>/,
    the stack's name and id as NAME and ID)."""
    parts = path.split('?')[0].split('/')
    if parts[0] == 'stacks':
        if len(parts) < 3 or parts[2] != 'ID':
            return 'redirect'
        rest = parts[3:]
        return {0: 'stack', 1: rest[0] if rest else ''}.get(
            len(rest), 'resource')
    if parts[0] == 'software_deployments':
        if len(parts) == 1:
            return 'deployments'
        return 'metadata' if parts[1] == 'metadata' else 'deployment'
    if parts[0] == 'software_configs':
        return 'config'
    return 'other'


class Measure:
    """Runs one side ``repeat`` times; its requests by kind in the first
    run, the median wall time, and its last result."""

    def __init__(self, counter, repeat):
        self.counter = counter
        self.repeat = repeat

    def __call__(self, fn, *args):
        seconds = []
        kinds = None
        for _ in range(self.repeat):
            mark = self.counter.mark()
            start = time.monotonic()
            result = fn(*args)
            seconds.append(time.monotonic() - start)
            if kinds is None:
                kinds = self.counter.since(mark)
        return kinds, statistics.median(seconds), result


class FakeCounter:
    def __init__(self, fake):
        self.fake = fake

    def mark(self):
        return len(self.fake.log)

    def since(self, mark):
        found = {}
        for kind in self.fake.log[mark:]:
            found[kind] = found.get(kind, 0) + 1
        return found


class LogCounter:
    def __init__(self, log, path):
        self.log = log
        self.path = path

    def mark(self):
        return self.log.mark()

    def since(self, mark):
        found = {}
        for group, count in self.log.groups(mark, self.path).items():
            kind = kind_of(group.split(' ', 1)[1])
            found[kind] = found.get(kind, 0) + count
        return found


def report(label, rows, work_files):
    (our_kinds, our_s, (mine, text)), (tc_kinds, tc_s, theirs) = rows
    ours_n, tc_n = sum(our_kinds.values()), sum(tc_kinds.values())
    print(label)
    print('%-22s %12s %16s %8s' % ('', 'ours', 'tripleo-common',
                                   'ratio'))
    print('%-22s %12d %16d %7.1fx' % ('Heat requests', ours_n, tc_n,
                                      tc_n / max(ours_n, 1)))
    for kind in sorted(set(our_kinds) | set(tc_kinds)):
        print('%-22s %12d %16d' % ('  ' + kind, our_kinds.get(kind, 0),
                                   tc_kinds.get(kind, 0)))
    print('%-22s %12.3f %16.3f %7.1fx' % ('wall s (median)', our_s, tc_s,
                                          tc_s / max(our_s, 1e-9)))
    differs = same(mine, theirs)
    print('%-22s %12d %16d  same tree: %s' % (
        'files', len(mine), len(theirs),
        'yes' if differs is None else 'no (%s)' % differs))
    print('inventory: %d bytes; tree: %d bytes' % (
        len(text), sum(len(b) for b, _ in mine.values())))
    print(json.dumps({
        'requests': ours_n, 'tripleo_common_requests': tc_n,
        'request_ratio': round(tc_n / max(ours_n, 1), 1),
        'seconds': round(our_s, 3), 'tripleo_common_seconds': round(tc_s, 3),
        'time_ratio': round(tc_s / max(our_s, 1e-9), 1),
        'files': len(mine), 'same_tree': differs is None}))


def fake(args, work):
    from tests.unit.config import fake_heat
    from tests.unit.config import stacks
    cloud = stacks.many(args.roles, args.deployments)
    with reference.heat_of(cloud) as (heat, heat_fake):
        heat_fake.delay = args.latency
        measure = Measure(FakeCounter(heat_fake), args.repeat)
        rows = [measure(ours, heat, fake_heat.STACK),
                measure(tripleo_common, heat, fake_heat.STACK, work)]
    report('fake Heat: %d roles x %d deployments (%d servers), %.0f ms a '
           'request' % (args.roles, args.deployments, args.roles * 2,
                        args.latency * 1000), rows, work)


def real(args, work):
    from urllib import parse

    from bench import deploy as bench_deploy
    from bench import plan as bench_plan
    from heatclient import client as heat_client
    env = dict(os.environ)
    env.update(bench_plan.loopback_env())
    url = env['LOOPBACK_HEAT_URL'].rstrip('/')
    heat = heat_client.Client('1', endpoint=url,
                              token=bench_plan.token(env))
    counter = LogCounter(bench_deploy.HeatLog(
        env['LOOPBACK_HEAT_ACCESS_LOG']), parse.urlsplit(url).path + '/')
    measure = Measure(counter, args.repeat)
    rows = [measure(ours, heat, args.stack),
            measure(tripleo_common, heat, args.stack, work)]
    report('stack %s at %s' % (args.stack, url), rows, work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--roles', type=int, default=3)
    parser.add_argument('--deployments', type=int, default=50,
                        help='software deployments per role')
    parser.add_argument('--latency', type=float, default=0.01,
                        help='seconds the fake Heat takes per request')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--stack', help='a stack of the loopback Heat')
    args = parser.parse_args()
    import warnings
    warnings.simplefilter('ignore')
    work = tempfile.mkdtemp(prefix='bench-config-download-')
    try:
        (real if args.stack else fake)(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
