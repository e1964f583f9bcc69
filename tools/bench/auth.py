#!/usr/bin/env python3
"""What Keystone costs: the same commands with and without it.

For ``plan amend -e one.yaml`` (a small plan) and a redeploy with nothing
changed (``overcloud deploy --stack P``, answered NONE without asking Heat
to change anything), prints the wall time of each command and the
requests Keystone received during it (token requests of the CLI apart:
one per command is the goal, the catalog coming with the token; then
those of the services), with the
services in Keystone mode and then restarted without Keystone (Swift
without auth, Heat noauth, Mistral auth off), and the difference.
Each command runs ``--rounds`` times (default 5): the median is shown.

Restarts the loopback services twice (about a minute each way) and
leaves them in the mode they were in. Needs them installed (run
``tools/run-tests.sh`` or ``tools/demo.sh`` once) and ``openstack`` on
PATH. Usage: ``python3 tools/bench/auth.py [--rounds N]``.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LOOPBACK = [sys.executable, os.path.join(REPO, 'tools', 'loopback')]
sys.path.insert(0, REPO)

from tests.functional import deploy_base  # noqa: E402  (small templates)


def loopback(keystone, *args):
    env = dict(os.environ, LOOPBACK_KEYSTONE='1' if keystone else '0')
    return subprocess.run(LOOPBACK + list(args), env=env, check=True,
                          capture_output=True, text=True).stdout


def start(keystone):
    loopback(keystone, 'start', 'swift', 'mistral', 'heat')
    env = dict(os.environ)
    for line in loopback(keystone, 'env').splitlines():
        key, _, value = line.replace('export ', '', 1).partition('=')
        env[key] = value.strip('\'"')
    run(env, 'overcloud', 'workbook', 'install')
    return env


def run(env, *args):
    started = time.monotonic()
    subprocess.run(['openstack'] + list(args), env=env, check=True,
                   capture_output=True, stdin=subprocess.DEVNULL)
    return time.monotonic() - started


def lines(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', 'replace').splitlines()


def measure(env, args, rounds):
    """(median seconds, token requests of the client, of the services,
    other Keystone requests: each per run) of ``openstack args``."""
    log = env.get('LOOPBACK_KEYSTONE_ACCESS_LOG')
    times, client, services, other = [], [], [], []
    for _ in range(rounds):
        before = len(lines(log))
        times.append(run(env, *args()))
        time.sleep(0.3)         # uWSGI logs after the response went out
        seen = lines(log)[before:]
        tokens = [s for s in seen if 'POST /v3/auth/tokens' in s]
        # the log ends with the user agent: the CLI's is openstacksdk's
        client.append(sum('"openstacksdk/' in s for s in tokens))
        services.append(len(tokens) - client[-1])
        other.append(len(seen) - len(tokens))
    return (statistics.median(times), statistics.median(client),
            statistics.median(services), statistics.median(other))


def story(env, work, rounds):
    """The two commands' figures in one mode."""
    templates = os.path.join(work, 'templates')
    for path, text in deploy_base.TEMPLATES.items():
        os.makedirs(os.path.dirname(os.path.join(templates, path)),
                    exist_ok=True)
        with open(os.path.join(templates, path), 'w') as f:
            f.write(text)
    plan = 'bench-auth-%s' % uuid.uuid4().hex[:8]
    run(env, 'overcloud', 'deploy', '--stack', plan, '--templates',
        templates, '-e', os.path.join(templates, 'registry.yaml'))
    counter = iter(range(10 ** 6))

    def amend():
        path = os.path.join(work, 'one-%d.yaml' % next(counter))
        with open(path, 'w') as f:
            f.write('parameter_defaults: {Message: m%s}\n' % path[-7:])
        return ['overcloud', 'plan', 'amend', plan, '-e', path,
                '--no-render']
    figures = {
        'plan amend -e one.yaml': measure(env, amend, rounds),
        'redeploy, nothing changed': measure(
            env, lambda: ['overcloud', 'deploy', '--stack', plan, '-y'],
            rounds)}
    run(env, 'stack', 'delete', '-y', '--wait', plan)
    run(env, 'overcloud', 'plan', 'delete', '-y', plan)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args()
    was_keystone = 'LOOPBACK_KEYSTONE_URL' in subprocess.run(
        LOOPBACK + ['env'], capture_output=True, text=True).stdout
    results = {}
    try:
        for keystone in (True, False):
            with tempfile.TemporaryDirectory() as work:
                results[keystone] = story(start(keystone), work,
                                          args.rounds)
    finally:
        start(was_keystone)
    print('%-28s %11s %10s %7s %7s %9s %6s' % (
        'command (median of %d)' % args.rounds, 'Keystone s',
        'without s', 'diff s', 'tokens', 'services', 'other'))
    for name in results[True]:
        (with_s, client, services, other) = results[True][name]
        without_s = results[False][name][0]
        print('%-28s %11.2f %10.2f %+7.2f %7g %9g %6g' % (
            name, with_s, without_s, with_s - without_s, client, services,
            other))
    print('tokens: POST /v3/auth/tokens of the CLI per command; services: '
          'those of Mistral and Heat (service users, trusts); other: every '
          'other Keystone request (the services validating tokens)')


if __name__ == '__main__':
    main()
