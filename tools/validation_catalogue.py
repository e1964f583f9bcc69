"""Run every playbook of an installed validations package
(tripleo-validations 16.0.0's 65) on the loopback and print a table:
id, groups, verdict and, for one that cannot reach a meaningful verdict
here, why.

The undercloud is Mistral's executor (localhost, in the sandbox); the
servers are the loopback's sshd (``tools/loopback start sshd``, before
Mistral): a plan of the admin project (the only one the loopback lets
reach them) whose stack's outputs name a Controller at 127.0.0.1 and a
Compute at 127.0.0.2, with the services of tripleo-ansible-inventory's
groups some playbooks target. The playbooks are the plan's own
(``custom-validations/``); the project's container gets the package's
groups, roles and modules (``validation install --from``), none of its
playbooks. Each validation is a run of its own, bounded by
``--timeout``. The plan and its stack are deleted at the end.

    eval "$(python3 tools/loopback env)"
    PATH=<test venv>/bin:$PATH python3 tools/validation_catalogue.py \\
        [--package tripleo-validations] [--timeout 300] [-f json]

Run with the test venv's Python (where pip installed the package's data
files), or name the tree with ``--share DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid

STACK = '''heat_template_version: rocky
outputs:
  RoleNetHostnameMap:
    value:
      Controller: {ctlplane: [overcloud-controller-0]}
      Compute: {ctlplane: [overcloud-novacompute-0]}
  RoleNetIpMap:
    value:
      Controller: {ctlplane: ['127.0.0.1']}
      Compute: {ctlplane: ['127.0.0.2']}
  RoleData:
    value:
      Controller: {service_names: [haproxy, mysql, nova_api, ceph_mon,
                                   pacemaker, keystone, neutron_api]}
      Compute: {service_names: [nova_compute, nova_libvirt]}
'''
SUPPORT = ('roles', 'library', 'module_utils', 'lookup_plugins',
           'filter_plugins')
# why a validation cannot reach a meaningful verdict here, from its
# message (first match wins; a PASSED one needs no reason)
REASONS = (
    (r"couldn't resolve module/action '(?!ansible\.builtin)[a-z_]+\.[a-z_]+"
     r"|the role '[a-z_]+\.[a-z_]+\.|ansible\.(posix|utils|netcommon)"
     r"|community\.|containers\.podman|openstack\.cloud",
     'a collection that ansible-core does not ship'),
    (r'sudo|become|privilege|Permission denied|permission denied'
     r'|must be root|Operation not permitted'
     r'|Module result deserialization failed',
     'needs root (become: no sudo in the sandbox, none without a '
     'password on the servers)'),
    (r'ANSIBLE_HASH_BEHAVIOUR', 'needs Ansible\'s hash_behaviour=merge '
     '(tripleo-validations\' own ansible.cfg)'),
    (r'Syntax error in expression|has no attribute \'stdout\''
     r'|is undefined',
     'written for an older Ansible (ansible-core 2.19 refuses it) or '
     'for variables of TripleO\'s own inventory'),
    (r'podman|docker|crictl|container_cli|buildah',
     'a container runtime'),
    (r'rpm|dnf|yum|package_facts|package manager|repoquery',
     'rpm/dnf (not a Red Hat system)'),
    (r'openstack(client|sdk)?|keystone|os_[a-z]+|OS_AUTH|clouds\.yaml'
     r'|auth_url|credentials|token|novaclient|ironicclient|heatclient'
     r'|glanceclient|tripleo_common|lookup plugin',
     'needs OpenStack clients and credentials (a playbook gets none)'),
    (r'/var/lib/config-data|/etc/(nova|neutron|ironic|heat|keystone|'
     r'puppet|ceph|pki|ipa|chrony|ntp|httpd)|undercloud\.conf|hiera'
     r'|No such file or directory|not found|does not exist|is missing'
     r'|Error executing command',
     'no such service or file here (not a TripleO undercloud/server)'),
    (r'systemctl|systemd|services were|service is',
     'no such system service here'),
    (r'unreachable|Connection refused|timed out|Name or service not known'
     r'|not allowed|egress',
     'the network it needs is not here (the sandbox reaches only the '
     'catalog and the plan\'s servers)'),
    (r'not run: the run ended first|TIMEOUT', 'did not end in time'),
)


def reason(status: str, message: str | None) -> str:
    """Why a validation of ``status`` with ``message`` did not reach a
    meaningful verdict here (for PASSED, ``message``: ``vacuous``'s; the
    check's own words for a FAILED one no rule explains: a verdict about
    this host)."""
    text = message or ''
    if status == 'PASSED':
        return text
    for pattern, why in REASONS:
        if re.search(pattern, text):
            return why
    return ' '.join(text.split())[:160]


def playbooks(share: str, package: str) -> dict[str, str]:
    """``{id: path}`` of the playbooks ``package``'s record installs."""
    from importlib import metadata
    out = {}
    for entry in metadata.distribution(package).files or ():
        name = str(entry)
        if '/validation-playbooks/' in name and name.endswith('.yaml'):
            vid = os.path.basename(name)[:-len('.yaml')]
            out[vid] = os.path.join(share, 'validation-playbooks',
                                    vid + '.yaml')
    return dict(sorted(out.items()))


def groups_of(path: str) -> list[str]:
    import yaml
    with open(path) as f:
        meta = (yaml.safe_load(f)[0].get('vars') or {}).get('metadata')
    return list((meta or {}).get('groups') or [])


def openstack(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(['openstack'] + list(args), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        sys.exit('openstack %s: %s' % (' '.join(args[:3]),
                                       proc.stderr.strip()))
    return proc


def vacuous(stats: dict) -> str:
    """Why a PASSED result checked nothing (no host, every task
    skipped), or ''."""
    if not stats:
        return 'no host of its play here (passed on nothing)'
    if not any(s.get('ok') for s in stats.values()):
        return 'every task skipped here (not this system\'s kind)'
    return ''


def run_one(plan: str, vid: str, timeout: int) -> tuple[str, str, float]:
    """``(status, message, seconds)`` of a run of validation ``vid``; a
    PASSED one that checked nothing says so in its message."""
    proc = openstack('overcloud', 'validation', 'run', '--plan', plan,
                     '--wait', '--timeout', str(timeout), '-f', 'json', vid,
                     check=False)
    try:
        row = json.loads(proc.stdout)
    except ValueError:
        return 'ERROR', ' '.join(proc.stderr.split())[-300:], 0.0
    status = (row.get('validations') or ['%s: %s' % (
        vid, row.get('status'))])[0].split(': ', 1)[1]
    message = row.get('message') or ''
    if status == 'PASSED':
        kept = openstack('object', 'save', 'tripleo-validations-results',
                         '%s/%s.json' % (row.get('run'), vid), '--file', '-',
                         check=False)
        try:
            message = vacuous(json.loads(kept.stdout).get('stats') or {})
        except ValueError:
            message = ''
    prefix = vid + ': '
    return status, message[len(prefix):] if message.startswith(
        prefix) else message, float(row.get('duration') or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--package', default='tripleo-validations')
    parser.add_argument('--share', default=os.path.join(
        sys.prefix, 'share', 'ansible'))
    parser.add_argument('--timeout', type=int, default=300,
                        help='Seconds each validation may take.')
    parser.add_argument('-f', '--format', choices=('table', 'json'),
                        default='table')
    parser.add_argument('ids', nargs='*', help='Only these validations.')
    args = parser.parse_args(argv)
    found = playbooks(args.share, args.package)
    chosen = args.ids or list(found)
    tmp = tempfile.mkdtemp(prefix='validation-catalogue-')
    plan = 'catalogue-%s' % uuid.uuid4().hex[:8]
    try:
        templates = os.path.join(tmp, 'templates')
        os.makedirs(os.path.join(templates, 'custom-validations'))
        with open(os.path.join(templates, 'overcloud.yaml'), 'w') as f:
            f.write(STACK)
        with open(os.path.join(templates, 'roles_data.yaml'), 'w') as f:
            f.write('- name: Controller\n- name: Compute\n')
        for vid in chosen:
            shutil.copyfile(found[vid], os.path.join(
                templates, 'custom-validations', vid + '.yaml'))
        support = os.path.join(tmp, 'support')
        os.makedirs(support)
        shutil.copyfile(os.path.join(args.share, 'groups.yaml'),
                        os.path.join(support, 'groups.yaml'))
        for top in SUPPORT:
            if os.path.isdir(os.path.join(args.share, top)):
                shutil.copytree(os.path.join(args.share, top),
                                os.path.join(support, top))
        print('Installing the groups, roles and modules of %s; plan %s '
              'with its stack' % (args.package, plan), file=sys.stderr)
        openstack('overcloud', 'validation', 'install', '--from', support)
        openstack('overcloud', 'plan', 'create', plan, '--templates',
                  templates, '--no-render')
        openstack('overcloud', 'deploy', '--stack', plan, '--stack-only',
                  '-y')
        rows = []
        for vid in chosen:
            status, message, seconds = run_one(plan, vid, args.timeout)
            rows.append({'id': vid, 'groups': groups_of(found[vid]),
                         'verdict': status, 'seconds': seconds,
                         'why': reason(status, message),
                         'message': message})
            print('%s: %s (%.1f s) %s' % (vid, status, seconds,
                                          rows[-1]['why']), file=sys.stderr)
    finally:
        openstack('stack', 'delete', '-y', '--wait', plan, check=False)
        openstack('overcloud', 'plan', 'delete', '-y', plan, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.format == 'json':
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print('| id | groups | verdict | why not a meaningful verdict here |')
        print('|---|---|---|---|')
        for row in rows:
            print('| %s | %s | %s | %s |' % (
                row['id'], ', '.join(row['groups']), row['verdict'],
                row['why'].replace('|', '/')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
