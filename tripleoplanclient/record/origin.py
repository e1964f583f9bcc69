"""Who recorded a user file's local source, and on which machine.

A recorded source names a local path the client may read again on a
later step (``plan.sources``). The record is written by anyone who can
write the plan's container, and a step's ``user`` and ``state`` are just
what its writer put there: a source path in the record chooses nothing by
itself. So the client marks each source it records with

* ``machine``: a digest of this machine's id (``/etc/machine-id``, else the
  host name), salted for this use: it tells machines apart and reveals
  nothing of the id;
* ``tag``: an HMAC, under a key only this local account holds
  (``$XDG_CONFIG_HOME/tripleoplanclient/source-key``, made on first use),
  of that machine digest, the Keystone user id, the plan, the plan path
  and the source.

A source is read again only when its mark is the one this client, as the
same Keystone user on this machine, would record for it: nobody without
the key can make one, and a mark copied from another entry names another
file or plan. A mark recorded elsewhere, by another user, or before
sources were marked (no mark) is not.
"""

import errno
import hashlib
import hmac
import json
import os
import socket

_MACHINE_FILES = ('/etc/machine-id', '/var/lib/dbus/machine-id')
_SALT = b'tripleoplanclient recorded source machine\n'
KEY_NAME = 'source-key'


def machine():
    """This machine's digest (``machine`` of a mark)."""
    ident = b''
    for name in _MACHINE_FILES:
        try:
            with open(name, 'rb') as f:
                ident = f.read(256).strip()
        except OSError:
            continue
        if ident:
            break
    ident = ident or socket.gethostname().encode('utf-8', 'replace')
    return hashlib.sha256(_SALT + ident).hexdigest()[:16]


def key_path():
    config = os.environ.get('XDG_CONFIG_HOME') or os.path.join(
        os.path.expanduser('~'), '.config')
    return os.path.join(config, 'tripleoplanclient', KEY_NAME)


class Origin:
    """Marks and checks the sources recorded in ``plan`` by the Keystone
    user ``user_id`` (None without Keystone) on this machine.

    ``machine_digest`` and ``key_file``: this machine's and this account's
    by default.
    """

    def __init__(self, plan, user_id, machine_digest=None, key_file=None):
        self.plan = plan
        self.user_id = user_id
        self.machine = machine_digest or machine()
        self.key_file = key_file or key_path()
        self._key = None
        # Why there is no key to check a mark with (None: not looked yet).
        self.no_key = None

    def _tag(self, key, path, source):
        message = json.dumps([self.machine, self.user_id or '', self.plan,
                              path, source]).encode('utf-8')
        return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]

    def mark(self, path, source):
        """The mark to record with ``source`` at ``path``: without a key
        (none can be made here), the machine only, and never read again."""
        key = self.key(create=True)
        out = {'machine': self.machine}
        if key is not None:
            out['tag'] = self._tag(key, path, source)
        return out

    def problem(self, path, entry):
        """Why the recorded ``entry`` (``{source, machine, tag}``) at
        ``path`` is not a source this user recorded here, or None."""
        if not entry.get('tag') or not entry.get('machine'):
            return ('recorded without a mark of who read it where (by a '
                    'client before this check, or not by this client)')
        if entry['machine'] != self.machine:
            return 'recorded on another machine'
        key = self.key()
        if key is None:
            return self.no_key
        if not hmac.compare_digest(
                str(entry['tag']), self._tag(key, path, entry['source'])):
            return ('not recorded by this Keystone user (%s) from this '
                    'account on this machine' % (
                        self.user_id or 'none: no Keystone'))
        return None

    def key(self, create=False):
        """This account's key, made when ``create`` and there is none; None
        (with ``no_key`` saying why) when there is no usable one."""
        if self._key is not None:
            return self._key
        path = self.key_file
        try:
            if create:
                self._make(path)
            with open(path, 'rb') as f:
                if os.fstat(f.fileno()).st_mode & 0o077:
                    self.no_key = (
                        'the key that checks marks, %s, can be read by other '
                        'users; make it private (chmod 600)' % path)
                    return None
                key = f.read(256).strip()
        except OSError as exc:
            self.no_key = ('no key here to check its mark with (%s: %s)' % (
                path, exc.strerror or exc))
            return None
        if len(key) < 32:
            self.no_key = 'the key that checks marks, %s, is too short' % path
            return None
        self._key = key
        return key

    @staticmethod
    def _make(path):
        if os.path.exists(path):
            return
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        # Written aside, then linked in whole: a concurrent first use
        # never reads half a key, and the first link wins.
        temp = '%s.%d.tmp' % (path, os.getpid())
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, 'wb') as f:
                f.write(os.urandom(32).hex().encode('ascii') + b'\n')
            os.link(temp, path)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        finally:
            os.unlink(temp)
