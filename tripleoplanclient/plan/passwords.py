"""Passwords a plan needs: found in the templates, generated once, kept.

The templates declare which secrets they need: a parameter that is
``hidden: true`` and has no usable default must be given a value, and a few
names need a value in a special format whatever the template says. The
values are generated once, stored under ``passwords:`` in the plan's
plan-environment.yaml and kept on every later update, as TripleO did.

The values are secrets: nothing here logs them or puts them in an exception
message.
"""

import base64
import re
import secrets
import string
import struct
import time
import uuid

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

# What TripleO generated for a plain password.
DEFAULT_LENGTH = 25
# Not templates Heat sees: the plan record, docs and repository tooling.
_SKIP_PREFIXES = ('user-environments/', 'releasenotes/', 'doc/', 'tools/',
                  'ci/')
_ALNUM = string.ascii_letters + string.digits
_FERNET_KEYS = frozenset(['KeystoneCredential0', 'KeystoneCredential1',
                          'KeystoneFernetKey0', 'KeystoneFernetKey1'])
# Names whose value has a special format (see _value); they are generated
# when their default is empty even if the template does not hide them.
_SPECIAL = _FERNET_KEYS | frozenset([
    'CephClientKey', 'CephClusterFSID', 'CephManilaClientKey', 'CephRgwKey',
    'HeatAuthEncryptionKey', 'KeystoneFernetKeys', 'MigrationSshKey',
    'PacemakerRemoteAuthkey', 'RabbitCookie', 'SnmpdReadonlyUserPassword'])
# The only names generated as a mapping; every other value is a string.
_MAPPINGS = frozenset(['KeystoneFernetKeys', 'MigrationSshKey'])
# Hidden, default '', but user-supplied TLS material: an empty value means
# "feature off", and a random one would switch TLS on with a broken
# certificate or key (e.g. public_tls_enabled in haproxy and keystone).
_USER_SUPPLIED = frozenset(['KeystoneSSLCertificateKey', 'OctaviaCaKey',
                            'RsyslogElasticsearchTlsClientKey',
                            'SSLCertificate', 'SSLKey'])
# Bounds of the names a plan_create request gives (THT 18 needs 82).
MAX_NAMES = 5000
MAX_NAME_LENGTH = 255
# Cheap first pass over the raw bytes: most files declare none of these.
_MAYBE = re.compile(rb'hidden|FSID|Ceph\w*Key|'
                    + b'|'.join(sorted(n.encode() for n in _SPECIAL)))


def _special(name):
    return (name in _SPECIAL or name.endswith('FSID')
            or (name.startswith('Ceph') and name.endswith('Key')))


def _empty_default(param):
    if 'default' not in param:
        return True
    value = param['default']
    if value is None or value == '':
        return True
    # Not "not value": false and 0 are real defaults.
    if isinstance(value, (list, dict)) and not value:
        return True
    # e.g. MigrationSshKey: {public_key: '', private_key: ''}
    return isinstance(value, dict) and all(v == '' for v in value.values())


def _needs_value(name, param):
    if name in _USER_SUPPLIED or not _empty_default(param):
        return False
    # A generated string is no valid value for a json, list, number or
    # boolean parameter (Heat would reject the stack).
    kind = str(param.get('type', 'string')).lower()
    if kind != 'string' and name not in _MAPPINGS:
        return False
    hidden = param.get('hidden')
    return (hidden is True or str(hidden).lower() == 'true'
            or _special(name))


def searched(path):
    """True for the paths ``needed`` looks into: templates Heat may get."""
    return (path.endswith(('.yaml', '.yml'))
            and not path.endswith('.j2.yaml')
            and not path.startswith(_SKIP_PREFIXES))


def needed(objects):
    """Sorted names of the parameters to generate, from {path: bytes}."""
    names = set()
    for path, data in objects.items():
        if not searched(path):
            continue
        if isinstance(data, str):
            data = data.encode('utf-8')
        if not _MAYBE.search(data):
            continue
        try:
            template = yaml.load(data, Loader=content.Loader)
        except yaml.YAMLError:
            continue  # not a template Heat could use either
        params = (template.get('parameters')
                  if isinstance(template, dict) else None)
        if not isinstance(params, dict):
            continue
        for name, param in params.items():
            if (isinstance(name, str) and isinstance(param, dict)
                    and _needs_value(name, param)):
                names.add(name)
    return sorted(names)


def named(names, plan):
    """The parameter names a plan_create request gives (``needed`` as its
    client found them in the tree it wrote), checked: untrusted input.
    None when it gives none."""
    if names is None:
        return None
    if not isinstance(names, list) or len(names) > MAX_NAMES or not all(
            isinstance(n, str) and 0 < len(n) <= MAX_NAME_LENGTH
            and n.isprintable() for n in names):
        raise exceptions.CommandError(
            'Bad request for plan %s: passwords must list at most %d '
            'parameter names, each 1 to %d printable characters (leave it '
            'out to have the templates searched). Nothing was recorded.'
            % (plan, MAX_NAMES, MAX_NAME_LENGTH))
    return sorted(set(names))


def _random(length, alphabet=_ALNUM):
    return ''.join(secrets.choice(alphabet) for _ in range(length))


def _fernet_key():
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode('ascii')


def _ceph_key():
    # Ceph's secret format: type 1 (AES), creation time in seconds and
    # nanoseconds, key length 16, then the key.
    header = struct.pack('<hiih', 1, int(time.time()), 0, 16)
    return base64.b64encode(header + secrets.token_bytes(16)).decode('ascii')


def _ssh_key():
    # Imported here: only this value needs it, and Mistral may lack it.
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives import serialization

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption())
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return {'private_key': private.decode('ascii'),
            'public_key': public.decode('ascii')}


def _value(name):
    if name in _FERNET_KEYS:
        return _fernet_key()
    if name == 'KeystoneFernetKeys':
        return {'/etc/keystone/fernet-keys/%d' % i: {'content': _fernet_key()}
                for i in (0, 1)}
    if name == 'MigrationSshKey':
        return _ssh_key()
    if name == 'PacemakerRemoteAuthkey':
        # 3072 bytes, 4096 base64 characters.
        return base64.b64encode(secrets.token_bytes(3072)).decode('ascii')
    if name == 'HeatAuthEncryptionKey':
        return _random(32)
    if name == 'RabbitCookie':
        return _random(20, string.ascii_uppercase)
    if name.endswith('FSID'):
        return str(uuid.uuid4())
    if name.startswith('Ceph') and name.endswith('Key'):
        return _ceph_key()
    return _random(DEFAULT_LENGTH)


def generate(names, existing=None):
    """{name: value}: every value in existing, new values for the rest."""
    result = dict(existing or {})
    for name in names:
        if name not in result:
            result[name] = _value(name)
    return result


def _load(data):
    # Not quoted: the parser's message can quote the file's secrets.
    env = content.load_yaml(data, layout.PLAN_ENVIRONMENT, quote=False)
    if not isinstance(env, dict):
        raise exceptions.CommandError(
            '%s is not a YAML mapping. Make it a mapping (version, name, '
            'template, environments, parameter_defaults, passwords) and run '
            'the command again.' % layout.PLAN_ENVIRONMENT)
    if not isinstance(env.get('passwords') or {}, dict):
        raise exceptions.CommandError(
            '"passwords" in %s is not a mapping of parameter names to '
            'values. Fix it and run the command again.'
            % layout.PLAN_ENVIRONMENT)
    return env


def stored(data):
    """The passwords in plan-environment.yaml bytes ({} when none)."""
    if data is None:
        return {}
    return dict(_load(data).get('passwords') or {})


def parameter_defaults(plan_environments):
    """The plan's own parameters, first of what Heat gets: the
    ``passwords`` of every plan environment (parsed mappings: the plan's
    plan-environment.yaml, then the ``-p`` file), overridden by their
    ``parameter_defaults`` in the same order. The environment files
    override these in turn."""
    merged = {}
    for section in ('passwords', 'parameter_defaults'):
        for data in plan_environments:
            merged.update(data.get(section) or {})
    return merged


def plan_environment(data, passwords, plan='overcloud'):
    """plan-environment.yaml bytes with passwords merged in.

    Passwords already in data win: a stored password never changes.
    """
    if data is None:
        env = {'version': 1.0, 'name': plan, 'template': layout.TEMPLATE,
               'environments': [], 'parameter_defaults': {}}
    else:
        env = _load(data)
    merged = dict(passwords)
    merged.update(env.get('passwords') or {})
    env['passwords'] = merged
    return content.dump_yaml(env)


def value(data, name):
    """Password ``name`` as a deploy gives it to Heat: plan-environment.yaml
    bytes' ``parameter_defaults`` over its ``passwords``; None when
    neither has it (or there is no such file)."""
    if data is None:
        return None
    return parameter_defaults([_load(data)]).get(name)
