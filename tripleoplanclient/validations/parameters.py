"""What a run is given beside its validations: extra vars, a host limit,
a skiplist; checked the same way by the client (before a run starts)
and by the run (the request is untrusted), and their secrets masked.

Extra vars reach the playbook through the run's ``vars.json`` (``-e
@file``), never a command line; a name of ours (``tripleoplan_*``) is
refused. A secret is an extra var whose name says so
(``masking.secret_key``: ``password``, ``secret``, ``token``, ``key``...):
the run record keeps ``***`` for it, and every occurrence of its value in
a result, row or progress line is masked. The limit is an argv element of
``ansible-playbook --limit``, in a safe character set. A skiplist is
validations-libs' ``{validation: {hosts: all | "h1,h2", reason, lp}}``.
"""

import json
import re

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.validations import metadata

RESERVED = 'tripleoplan_'
NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]{0,99}$')
# the JSON of all extra vars, and of a vars or skiplist file, at most
MAX_BYTES = 256 * 1024
# an Ansible host pattern: names, groups, ``*``, ``!``/``&``, ``[0:2]``,
# ``,``/``:`` between; no ``@file``, ``~regex``, space or leading ``-``
LIMIT = re.compile(r'^[A-Za-z0-9_.*!&\[\]][A-Za-z0-9_.*!&\[\]:,-]{0,1023}$')
# a host a skiplist names: no pattern characters
HOST = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}$')
_WORDS = 1000


def from_pairs(pairs):
    """``{K: V}`` of ``--extra-vars K=V`` arguments (values are text, as
    validations-libs passes them; the last of a name wins)."""
    out = {}
    for pair in pairs or ():
        name, sep, value = pair.partition('=')
        if not sep or not name:
            raise exceptions.CommandError(
                '--extra-vars %s: give NAME=VALUE (typed values: '
                '--extra-vars-file).' % masking.MASK
                if masking.secret_key(name) else
                '--extra-vars %s: give NAME=VALUE (typed values: '
                '--extra-vars-file).' % pair)
        out[name] = value
    return out


def _load(data, what):
    from tripleoplanclient.common import content
    return content.load_yaml(data, what, quote=False,
                             loader=content.PlainLoader, max_bytes=MAX_BYTES)


def read_vars_file(data, path):
    """The mapping of an extra vars file (YAML or JSON)."""
    found = _load(data, path)
    if not isinstance(found, dict):
        raise exceptions.CommandError(
            '%s must be a mapping of variable names to values.' % path)
    return check_extra_vars(found, path)


def check_extra_vars(found, what='extra vars'):
    """``found`` when each name is a variable name not of ours and the
    whole is JSON of at most ``MAX_BYTES``; CommandError else."""
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise exceptions.CommandError('%s: a mapping is expected.' % what)
    bad = [str(n)[:100] for n in found if not isinstance(n, str) or
           not NAME.match(n)]
    if bad:
        raise exceptions.CommandError(
            '%s: %s: not a variable name (letters, digits and _, not '
            'starting with a digit).' % (what, ', '.join(bad)))
    ours = sorted(n for n in found if n.lower().startswith(RESERVED))
    if ours:
        raise exceptions.CommandError(
            '%s: %s: the %s* variables are the run\'s own; choose another '
            'name.' % (what, ', '.join(ours), RESERVED))
    try:
        size = len(json.dumps(found))
    except (TypeError, ValueError):
        raise exceptions.CommandError(
            '%s: values must be text, numbers, booleans, lists or mappings '
            '(quote dates and times).' % what)
    if size > MAX_BYTES:
        raise exceptions.CommandError(
            '%s: %d bytes as JSON, more than %d.' % (what, size, MAX_BYTES))
    return found


def check_limit(limit):
    """``limit`` when it is a host pattern this client passes on."""
    if limit is not None and (not isinstance(limit, str) or
                              not LIMIT.match(limit)):
        raise exceptions.CommandError(
            '--limit %s: give host or group names (letters, digits, '
            '"_.-*[]", "!" to exclude, "&" to intersect, separated by "," '
            'or ":"), at most 1024 characters.' % str(limit)[:100])
    return limit


def read_skiplist(data, path):
    """``{validation: {hosts: None (all) | [host], reason, lp}}`` of a
    skiplist file (validations-libs' format)."""
    found = _load(data, path)
    return check_skiplist(found or {}, path)


def check_skiplist(found, what='skiplist'):
    if not isinstance(found, dict):
        raise exceptions.CommandError(
            '%s: map validation ids to {hosts: all or "host1,host2", '
            'reason: ...}.' % what)
    out = {}
    for vid, entry in found.items():
        if not isinstance(vid, str) or not metadata.ID_PATTERN.match(vid) or \
                not isinstance(entry, dict):
            raise exceptions.CommandError(
                '%s: %s: map a validation id to {hosts, reason}.'
                % (what, str(vid)[:100]))
        hosts = entry.get('hosts')
        if hosts is None:
            hosts = 'all'
        if isinstance(hosts, str):
            hosts = [h.strip() for h in hosts.split(',') if h.strip()]
        if not isinstance(hosts, list) or not hosts or not all(
                isinstance(h, str) for h in hosts):
            raise exceptions.CommandError(
                '%s: %s: hosts must be all or host names.' % (what, vid))
        if [h.lower() for h in hosts] == ['all']:
            hosts = None
        else:
            bad = [h for h in hosts if not HOST.match(h)]
            if bad:
                raise exceptions.CommandError(
                    '%s: %s: %s: not a host name.' % (
                        what, vid, ', '.join(h[:100] for h in bad)))
        reason, lp = entry.get('reason'), entry.get('lp')
        if not all(v is None or isinstance(v, str) for v in (reason, lp)):
            raise exceptions.CommandError(
                '%s: %s: reason and lp must be text.' % (what, vid))
        out[vid] = {'hosts': hosts, 'reason': ' '.join(
            (reason or '').split())[:500] or None, 'lp': lp}
    if len(json.dumps(out)) > MAX_BYTES:
        raise exceptions.CommandError('%s: too large.' % what)
    return out


def skipped(entry):
    """The message of a validation the skiplist skips on every host."""
    return 'skipped (skiplist): %s%s' % (
        entry.get('reason') or 'no reason given',
        ' (%s)' % entry['lp'] if entry.get('lp') else '')


def host_limit(limit, skip_hosts):
    """The ``--limit`` of a validation: the run's, without the hosts the
    skiplist skips it on (Ansible reads ``!`` exclusions last). Without
    the run's own, every host but those: ``all`` and the ``localhost``
    a play on it gets (Ansible's own, in no group of the inventory)."""
    if not skip_hosts:
        return limit
    return ','.join([limit or 'all,localhost'] +
                    ['!' + h for h in skip_hosts])


def labels(groups=(), categories=(), products=()):
    """How a selection by labels reads in a message."""
    return ' or '.join(['group %s' % g for g in groups or ()] +
                       ['category %s' % c for c in categories or ()] +
                       ['product %s' % p for p in products or ()])


def masked(extra_vars):
    """``extra_vars`` as a run record keeps them: ``***`` for secrets."""
    return {k: masking.MASK if masking.secret_key(k) else v
            for k, v in (extra_vars or {}).items()}


def secret_values(extra_vars):
    """Every text (and number) a secret extra var holds, nested too."""
    out = []

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif value is not None and not isinstance(value, bool) and \
                len(out) < _WORDS:
            out.append(str(value))

    for name, value in (extra_vars or {}).items():
        if masking.secret_key(name):
            walk(value)
    return out


def scrub(data, values):
    """``data`` (JSON-able) with every secret of ``values`` masked in
    each of its texts (keys too)."""
    if not values:
        return data
    if isinstance(data, dict):
        return {scrub(k, values): scrub(v, values) for k, v in data.items()}
    if isinstance(data, list):
        return [scrub(v, values) for v in data]
    if isinstance(data, str):
        return masking.scrub(data, values)
    return data
