"""The steps of tools/tht-config-run.sh that are not shell.

    measure.py prepare CONFIG_DIR WORK ANSIBLE_VENV
        the inventory for the loopback's sshd servers (WORK/inventory.yaml),
        WORK/ansible.cfg and WORK/extra-vars.json
    measure.py report RESULTS.jsonl LISTED_ALL LISTED_RUN SECONDS RC
        the measurement as JSON on stdout

Reads LOOPBACK_SSHD_PORT, LOOPBACK_SSHD_USER and LOOPBACK_DIR (the
loopback's environment).  Every host, the undercloud too, is reached by
SSH on the sshd servers: no task of the playbooks runs as this machine's
user (root).  A host whose ctlplane address has no sshd listening goes to
127.0.0.1 (one sshd address: every server shares one home).
"""

import collections
import json
import os
import re
import socket
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
UNDERCLOUD = 'Undercloud'


def listening(address, port):
    try:
        with socket.create_connection((address, port), timeout=2):
            return True
    except OSError:
        return False


def loopback_address(address, port):
    """address itself when sshd answers there; else 127.0.0.1."""
    if not address.startswith('127.'):
        raise SystemExit('refusing to reach %s: not in 127.0.0.0/8' % address)
    for where in (address, '127.0.0.1'):
        if listening(where, port):
            return where
    raise SystemExit('no sshd on %s:%d nor on 127.0.0.1' % (address, port))


def prepare(config_dir, work, venv):
    port = int(os.environ['LOOPBACK_SSHD_PORT'])
    user = os.environ.get('LOOPBACK_SSHD_USER', 'tripleo-admin')
    key = os.path.join(os.environ['LOOPBACK_DIR'], 'sshd', 'client',
                       'id_ed25519')
    with open(os.path.join(config_dir,
                           'tripleo-ansible-inventory.yaml')) as f:
        inventory = yaml.safe_load(f)
    moved, addresses = {}, set()
    for group in inventory.values():
        for name, host in (group.get('hosts') or {}).items():
            if host and 'ansible_host' in host:
                address = loopback_address(host['ansible_host'], port)
                if address != host['ansible_host']:
                    moved[name] = address
                host['ansible_host'] = address
                addresses.add(address)
    # the undercloud too: over SSH as the unprivileged user, not locally
    # as root (127.0.0.1 when sshd listens there, else a server's address)
    undercloud = inventory[UNDERCLOUD]['vars']
    undercloud.update({
        'ansible_connection': 'ssh',
        'ansible_host': '127.0.0.1' if listening('127.0.0.1', port) else
        min(addresses),
        'ansible_python_interpreter': '/usr/bin/python3'})
    with open(os.path.join(work, 'inventory.yaml'), 'w') as f:
        yaml.safe_dump(inventory, f, default_flow_style=False)
    # extra vars: above every play keyword (become: true) and inventory;
    # the implicit localhost of a play too goes by ssh (to 127.0.0.1)
    extra = {'ansible_connection': 'ssh', 'ansible_port': port,
             'ansible_user': user, 'ansible_ssh_user': user,
             'ansible_ssh_private_key_file': key, 'ansible_become': False,
             'ansible_python_interpreter': '/usr/bin/python3'}
    with open(os.path.join(work, 'extra-vars.json'), 'w') as f:
        json.dump(extra, f)
    share = os.path.join(venv, 'share', 'ansible')
    plugins = os.path.join(share, 'plugins')
    cfg = '\n'.join([
        '[defaults]',
        'roles_path = %s' % ':'.join([os.path.join(config_dir, 'roles'),
                                      os.path.join(share, 'roles'),
                                      config_dir]),
        'library = %s' % os.path.join(plugins, 'modules'),
        'module_utils = %s' % os.path.join(plugins, 'module_utils'),
        'action_plugins = %s' % os.path.join(plugins, 'action'),
        'filter_plugins = %s' % os.path.join(plugins, 'filter'),
        'strategy_plugins = %s' % os.path.join(plugins, 'strategy'),
        'test_plugins = %s' % os.path.join(plugins, 'tests'),
        'callback_plugins = %s' % os.path.join(HERE, 'callback_plugins'),
        'callbacks_enabled = tht_measure',
        'retry_files_enabled = False',
        'host_key_checking = False',
        'forks = 8',
        'timeout = 30',
        'gathering = smart',
        'gather_subset = !all,min',
        'inject_facts_as_vars = False',
        'interpreter_python = /usr/bin/python3',
        'internal_poll_interval = 0.01',
        'log_path = %s' % os.path.join(work, 'ansible.log'),
        '',
        '[ssh_connection]',
        'ssh_args = -o UserKnownHostsFile=/dev/null '
        '-o StrictHostKeyChecking=no -o ControlMaster=auto '
        '-o ControlPersist=60s -o PreferredAuthentications=publickey',
        'control_path_dir = %s' % os.path.join(work, 'cp'),
        'pipelining = True',
        ''])
    with open(os.path.join(work, 'ansible.cfg'), 'w') as f:
        f.write(cfg)
    for name, address in sorted(moved.items()):
        print('%s: no sshd at its ctlplane address: %s' % (name, address),
              file=sys.stderr)


TASK_LINE = re.compile(r'^\s{6}(?P<name>.*?)\tTAGS: \[(?P<tags>[^\]]*)\]$')


def listed(path):
    """(task name, tags) of `ansible-playbook --list-tasks` (the tasks
    known before the run: included files' tasks are not)."""
    tasks = []
    with open(path) as f:
        for line in f:
            match = TASK_LINE.match(line.rstrip('\n'))
            if match:
                tags = [t.strip() for t in match['tags'].split(',')
                        if t.strip()]
                tasks.append((match['name'], tuple(sorted(tags))))
    return tasks


def report(results, listed_all, listed_run, seconds, rc):
    records = []
    with open(results) as f:
        for line in f:
            records.append(json.loads(line))
    statuses = collections.Counter(r['status'] for r in records)
    by_tag = collections.defaultdict(collections.Counter)
    failures = []
    for r in records:
        for tag in r['tags'] or ['(none)']:
            by_tag[tag][r['status']] += 1
        if r['status'] in ('failed', 'unreachable'):
            failures.append({k: r[k] for k in (
                'host', 'play', 'task', 'tags', 'message')})
    known, run = listed(listed_all), listed(listed_run)
    not_selected = collections.Counter()
    for name, tags in set(known) - set(run):
        for tag in tags or ('(none)',):
            not_selected[tag] += 1
    ran = sum(n for s, n in statuses.items() if s != 'skipped')
    slowest = sorted(records, key=lambda r: -r['seconds'])[:10]
    print(json.dumps({
        'rc': int(rc), 'seconds': round(float(seconds), 1),
        'results': len(records), 'ran': ran,
        'skipped_by_condition': statuses.get('skipped', 0),
        'status': dict(sorted(statuses.items())),
        'hosts': sorted({r['host'] for r in records}),
        'listed_tasks': len(set(known)),
        'listed_tasks_selected': len(set(run)),
        'listed_tasks_not_selected_by_tag': dict(
            sorted(not_selected.items())),
        'by_tag': {tag: dict(sorted(c.items()))
                   for tag, c in sorted(by_tag.items())},
        'failures': failures[:20],
        'slowest': [{k: r[k] for k in ('host', 'task', 'seconds')}
                    for r in slowest]}, indent=1))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == 'prepare':
        prepare(*args)
    elif command == 'report':
        report(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
