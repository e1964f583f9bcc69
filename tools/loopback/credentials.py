"""The loopback's own secrets: passwords and keys made at random once per
state directory, kept in <state>/secrets.json (mode 0600).

Anything on 127.0.0.1 may try a fixed, published password (Keystone's
admin, RabbitMQ's guest, a database role): a process of any user of the
machine, a validation playbook if its sandbox's egress proxy ever let it
through.  So every secret a service needs comes from secret(),
which makes it with the ``secrets`` module the first time it is asked and
returns the same value ever after: a restart keeps working.  Two
``loopback`` processes may ask at once: the file is rewritten under an
flock, by an atomic rename, so a name never gets two values.

State directories made before this (with the old fixed values) go on
working: a service that cannot change a secret without losing its data
(Heat's auth_encryption_key, Swift's hash path prefix/suffix) passes
``keep``, the old value, which is recorded instead of a new one; the
passwords are changed at the next start (see keystone_service.py,
rabbitmq.py, postgres.ensure_database).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
import secrets as random

from .common import LoopbackError
from .state import ensure_state_dir
from .state import state_dir

FILE = 'secrets.json'
# 16 random bytes as 32 hex digits: safe unquoted in URLs, ini files and
# command lines (never a leading "-"), and the 32 characters Heat's
# auth_encryption_key must have
BYTES = 16

_CACHE: dict[Path, dict[str, str]] = {}


def path() -> Path:
    return state_dir() / FILE


def new_value() -> str:
    return random.token_hex(BYTES)


def _read(where: Path) -> dict[str, str]:
    try:
        text = where.read_text()
    except FileNotFoundError:
        return {}
    try:
        values = json.loads(text)
    except ValueError as e:
        raise LoopbackError('%s is not valid JSON (%s): repair it, or remove '
                            'it to have new secrets made (then restart all '
                            'services)' % (where, e)) from None
    if not isinstance(values, dict):
        raise LoopbackError('%s holds no JSON object: repair or remove it'
                            % where)
    return values


@contextlib.contextmanager
def _locked(where: Path):
    fd = os.open(where.with_name(FILE + '.lock'),
                 os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write(where: Path, values: dict[str, str]) -> None:
    """Replace the file at once: a reader sees the old or the new one."""
    tmp = where.with_name('%s.%d.tmp' % (FILE, os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, 'w') as f:
            json.dump(values, f, indent=1, sort_keys=True)
            f.write('\n')
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, where)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def secret(name: str, keep: str | None = None) -> str:
    """The secret ``name`` of this state directory: made at random (or
    ``keep``, an existing installation's value) the first time, the
    same value ever after."""
    where = path()
    known = _CACHE.setdefault(where, {})
    if name not in known:
        values = _read(where)
        if name not in values:
            ensure_state_dir()
            with _locked(where):
                values = _read(where)          # another process's, if any
                if name not in values:
                    values[name] = keep if keep is not None else new_value()
                    _write(where, values)
        if where.stat().st_mode & 0o077:
            os.chmod(where, 0o600)
        known.update(values)
    return known[name]
