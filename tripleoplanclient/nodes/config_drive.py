"""The config drive a provisioned node boots with (cloud-init's
OpenStack format, which Ironic 1.56+ builds from a mapping): the login
user with password-less sudo and its SSH public keys, the hostname, and
the node's ctlplane address as network_data; the baremetal file's
``config_drive: {cloud_config, meta_data}`` merged in as tripleo-ansible
does (role defaults, then the instance's, key by key).

Ironic keeps the drive with the node, where whoever reads the node may
read it: only public keys go in, and a ``config_drive`` naming a
password is refused.
"""

import base64
import ipaddress
import json
import re

from tripleoplanclient.common import exceptions

DEFAULT_USER = 'tripleo-admin'
SUDO = 'ALL=(ALL) NOPASSWD:ALL'
# A login name cloud-init and Ansible take as is.
_USER = re.compile(r'[a-z_][a-z0-9_-]{0,31}\Z')
_KEY_TYPES = ('ssh-rsa', 'ssh-ed25519', 'ssh-dss', 'ecdsa-sha2-nistp256',
              'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521',
              'sk-ssh-ed25519@openssh.com',
              'sk-ecdsa-sha2-nistp256@openssh.com')
MAX_KEY_FILE = 64 * 1024
MAX_KEYS = 32
MAX_KEY = 16 * 1024
MAX_CONFIG_DRIVE = 64 * 1024
CONFIG_DRIVE_FIELDS = ('cloud_config', 'meta_data')
# Keys of a config drive that carry a password (cloud-init's chpasswd,
# a user's passwd / plain_text_passwd / hashed_passwd...).
_SECRET = re.compile(r'passw|chpasswd|secret|private', re.IGNORECASE)


def check_user(user, where, tail='Nothing was provisioned.'):
    if not isinstance(user, str) or not _USER.match(user):
        raise exceptions.CommandError(
            '%s: %r is no login name (lower-case letters, digits, _ and -, '
            'at most 32, not starting with a digit or -). %s' % (
                where, str(user)[:40], tail))
    return user


def _key_problem(line):
    parts = line.split()
    if len(parts) < 2 or parts[0] not in _KEY_TYPES or len(line) > MAX_KEY:
        return 'not an SSH public key line (type, base64 key, comment)'
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except ValueError:
        return 'its key is not base64'
    # the blob starts with its own type, length first
    if blob[4:4 + len(parts[0])] != parts[0].encode():
        return 'its key does not match its type %s' % parts[0]
    return None


def public_keys(text, where):
    """The public key lines of ``text`` (an ``.pub`` file or the
    request's list joined), checked. A private key is refused without a
    word of it."""
    if isinstance(text, bytes):
        if len(text) > MAX_KEY_FILE:
            raise exceptions.CommandError(
                '%s is larger than %d bytes: no public key file. Nothing '
                'was provisioned.' % (where, MAX_KEY_FILE))
        try:
            text = text.decode('utf-8')
        except UnicodeDecodeError:
            text = ''
    if 'PRIVATE KEY' in text or 'PuTTY-User-Key-File' in text:
        raise exceptions.CommandError(
            '%s holds a private key: give its public key (the .pub file). '
            'Nothing was provisioned.' % where)
    keys, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        problem = _key_problem(line)
        if problem:
            problems.append('line %d: %s' % (number, problem))
        else:
            keys.append(line)
    if problems or not keys or len(keys) > MAX_KEYS:
        raise exceptions.CommandError(
            '%s: %s. Give a file of SSH public keys (e.g. ~/.ssh/id_rsa.pub'
            ', at most %d keys). Nothing was provisioned.' % (
                where, '; '.join(problems[:5]) or (
                    'no public key' if not keys else 'more than %d keys'
                    % MAX_KEYS), MAX_KEYS))
    return keys


def _secrets(value, path=''):
    """Paths of ``value``'s keys that name a password."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = '%s/%s' % (path, key)
            if _SECRET.search(str(key)):
                found.append(here)
            found.extend(_secrets(item, here))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_secrets(item, '%s/%d' % (path, index)))
    return found


def check(value, what, problems):
    """The file's ``config_drive`` mapping checked (None when absent)."""
    if value is None:
        return None
    if not isinstance(value, dict) or not all(
            isinstance(value.get(k) or {}, dict) and all(
                isinstance(n, str) for n in (value.get(k) or {}))
            for k in CONFIG_DRIVE_FIELDS):
        problems.append('%s config_drive must map cloud_config and '
                        'meta_data to mappings' % what)
        return None
    unknown = sorted(str(k) for k in set(value) - set(CONFIG_DRIVE_FIELDS))
    if unknown:
        problems.append('%s config_drive: unknown field(s) %s (known: %s)'
                        % (what, ', '.join(unknown),
                           ', '.join(CONFIG_DRIVE_FIELDS)))
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        problems.append('%s config_drive: only text, numbers, lists and '
                        'mappings (no dates or binary)' % what)
        return None
    if size > MAX_CONFIG_DRIVE:
        problems.append('%s config_drive is larger than %d bytes' % (
            what, MAX_CONFIG_DRIVE))
    secrets = _secrets(value)
    if secrets:
        problems.append('%s config_drive: %s name a password or secret: '
                        'Ironic shows the config drive to whoever reads '
                        'the node; give secrets to the servers another way'
                        % (what, ', '.join(secrets[:5])))
    return {k: dict(value[k]) for k in CONFIG_DRIVE_FIELDS if value.get(k)}


def merged(role, instance):
    """Role defaults, then the instance's, key by key (tripleo-ansible's
    merge of cloud_config and meta_data)."""
    role, instance = role or {}, instance or {}
    return {k: dict(role.get(k) or {}, **(instance.get(k) or {}))
            for k in CONFIG_DRIVE_FIELDS}


def network_data(address, cidr, mac):
    """cloud-init's network_data: the ctlplane address, static, on the
    NIC with ``mac`` (the node's PXE port; None: no link named)."""
    net = ipaddress.ip_network(cidr, strict=False)
    link = {'id': 'ctlplane', 'type': 'phy', 'mtu': 1500}
    if mac:
        link['ethernet_mac_address'] = mac
    network = {'id': 'ctlplane', 'network_id': 'ctlplane', 'link': 'ctlplane',
               'type': 'ipv%d' % net.version, 'ip_address': address,
               'netmask': str(net.netmask) if net.version == 4
               else str(net.prefixlen), 'routes': []}
    return {'links': [link], 'networks': [network], 'services': []}


def build(node, hostname, role, user, keys, drive, network=None):
    """The ``configdrive`` mapping of ``PUT .../states/provision``:
    meta_data (the file's, the role as instance-type, then hostname,
    public_keys, uuid, name: ours win), user_data (a cloud-config: the
    file's, plus ``user``, when given, with sudo and ``keys``),
    network_data."""
    drive = drive or {}
    meta = dict(drive.get('meta_data') or {})
    meta['instance-type'] = role
    meta.update({'hostname': hostname, 'uuid': node['uuid'],
                 'name': node.get('name') or hostname,
                 'public_keys': {str(i): k for i, k in enumerate(keys)}})
    cloud = json.loads(json.dumps(drive.get('cloud_config') or {}))
    if user:
        users = cloud.get('users') or []
        cloud['users'] = (users if isinstance(users, list) else [users]) + [
            {'name': user, 'groups': ['wheel'], 'sudo': SUDO,
             'shell': '/bin/bash', 'ssh_authorized_keys': list(keys)}]
    found = {'meta_data': meta,
             'user_data': '#cloud-config\n' + json.dumps(cloud,
                                                         sort_keys=True)}
    if network:
        found['network_data'] = network
    return found
