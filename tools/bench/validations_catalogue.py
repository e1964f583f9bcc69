#!/usr/bin/env python3
"""The whole ``pre-deployment`` group of the upstream catalogue (issue 41):
ours next to bare ``ansible-playbook``, measured in the same run.

* ours: ``openstack overcloud validation run NAME...`` (the group's
  upstream validations, not ours that ship in the group too; Mistral's
  executor runs each playbook in the sandbox, with the container's roles
  and modules, results kept in Swift), twice: the
  first run fetches the container's support trees into the executor's
  cache, the second finds them there;
* bare: the same playbooks from the installed packages' ``share/ansible``
  with ``ansible-playbook`` on this machine, one after the other (as
  validations-libs runs them), as the user running this script, no
  sandbox, with the same groups (``undercloud`` = localhost, no
  servers).

Prints each validation's verdict and seconds both ways, the totals and
the ratios. Verdicts may differ: ours run as nobody in the sandbox (a
task that needs root fails there), bare ones as this user.

Needs the loopback Keystone, Swift and Mistral, the workbook,
``openstack`` on PATH, and tripleo-validations 16.0.0 and
validations-common 1.9.0 installed beside this Python (``pip install
--no-deps``). Usage: ``python3 tools/bench/validations_catalogue.py
[--group pre-deployment]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PACKAGES = ('tripleo-validations', 'validations-common')


def share_directory():
    """``share/ansible`` of the installed tripleo-validations."""
    from importlib import metadata
    dist = metadata.distribution(PACKAGES[0])
    for path in dist.files or ():
        parts = str(path).split('/')
        if 'share' in parts and parts[-2:-1] == ['validation-playbooks']:
            return os.path.dirname(os.path.dirname(os.path.normpath(
                dist.locate_file(path))))
    raise SystemExit('%s is not installed beside %s' % (PACKAGES[0],
                                                        sys.executable))


def openstack(*argv, check=True):
    began = time.monotonic()
    done = subprocess.run(['openstack'] + list(argv), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    took = time.monotonic() - began
    if check and done.returncode not in (0, 1):
        raise SystemExit('openstack %s: exit %d\n%s' % (
            ' '.join(argv), done.returncode, done.stderr[-2000:]))
    return done, took


def ours(names):
    """``(seconds, {id: (status, seconds)})`` of one run of them."""
    done, took = openstack('overcloud', 'validation', 'run', *names,
                           '--timeout', '3000', '-f', 'json')
    run = json.loads(done.stdout)['run']
    found, _ = openstack('overcloud', 'validation', 'results', '--limit',
                         '5', '-f', 'json')
    rows = {r['validation']: (r['status'], r['duration'] or 0)
            for r in json.loads(found.stdout) if r['run'] == run}
    return took, rows


def inventory(path):
    local = {'ansible_connection': 'local',
             'ansible_python_interpreter': sys.executable}
    with open(path, 'w') as f:
        json.dump({'all': {'hosts': {'localhost': local}, 'children': {
            'undercloud': {'hosts': {'localhost': {}}},
            'Undercloud': {'hosts': {'localhost': {}}},
            'overcloud': {}, 'allovercloud': {}}}}, f)


def bare(share, names):
    """``(seconds, {id: (status, seconds)})``: each playbook by
    ansible-playbook, one after the other."""
    program = os.path.join(os.path.dirname(sys.executable),
                           'ansible-playbook')
    env = dict(os.environ, ANSIBLE_ROLES_PATH=os.path.join(share, 'roles'),
               ANSIBLE_LIBRARY=os.path.join(share, 'library'),
               ANSIBLE_LOOKUP_PLUGINS=os.path.join(share, 'lookup_plugins'),
               ANSIBLE_NOCOLOR='1', ANSIBLE_RETRY_FILES_ENABLED='False')
    rows = {}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='bench-validations-') as tmp:
        hosts = os.path.join(tmp, 'inventory.json')
        inventory(hosts)
        for name in names:
            start = time.monotonic()
            try:
                done = subprocess.run(
                    [program, '-i', hosts, os.path.join(
                        share, 'validation-playbooks', name + '.yaml')],
                    env=env, cwd=tmp, capture_output=True, timeout=600,
                    stdin=subprocess.DEVNULL)
                status = 'PASSED' if done.returncode == 0 else 'FAILED'
            except subprocess.TimeoutExpired:
                status = 'TIMEOUT'
            rows[name] = (status, time.monotonic() - start)
    return time.monotonic() - began, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--group', default='pre-deployment')
    args = parser.parse_args()
    share = share_directory()
    installed, took = openstack(
        'overcloud', 'validation', 'install', '--from-package', PACKAGES[0],
        '--from-package', PACKAGES[1], '-f', 'json')
    print('install: %.1f s, %s validations' % (
        took, json.loads(installed.stdout)['validations']))
    listed, _ = openstack('overcloud', 'validation', 'list', '--group',
                          args.group, '-f', 'json')
    upstream = set(n[:-len('.yaml')] for n in os.listdir(
        os.path.join(share, 'validation-playbooks')))
    names = sorted(r['id'] for r in json.loads(listed.stdout)
                   if r['id'] in upstream)
    first_s, first = ours(names)
    second_s, second = ours(names)
    bare_s, plain = bare(share, names)
    print('%-38s %-16s %-16s %s' % ('validation (%s: %d)' % (
        args.group, len(names)), 'ours (1st run)', 'ours (2nd run)',
        'bare ansible-playbook'))
    for name in names:
        print('%-38s %-16s %-16s %s' % (name, *(
            '%s %.1f s' % (rows[name][0], rows[name][1])
            if name in rows else '-' for rows in (first, second, plain))))
    print('whole command: ours %.1f s (1st), %.1f s (2nd); bare %.1f s; '
          'ratio ours/bare %.2f (1st), %.2f (2nd)' % (
              first_s, second_s, bare_s, first_s / bare_s,
              second_s / bare_s))
    print('same verdicts (2nd run vs bare): %d of %d' % (
        sum(1 for n in names if second.get(n, ('',))[0] ==
            plain[n][0]), len(names)))


if __name__ == '__main__':
    main()
