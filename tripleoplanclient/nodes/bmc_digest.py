"""A node's BMC password compared on re-import without being kept.

Ironic shows a password as ``******``: what the file gives cannot be
compared with what the node has. So registration writes, next to the
password, a digest of it in the node's ``extra`` (``EXTRA``): scrypt with
a random salt of its own per node. Whoever can read the node can read the
digest, not the password: scrypt makes each guess cost ~16 MiB and tens
of milliseconds, and the salt makes every node's digest its own (no
table serves two). A re-import computes the digest of the file's
password with the node's salt: the same, and the password is not
written again; another, and the node is updated and its row says so.
"""

import hashlib
import hmac
import json
import os

EXTRA = 'tripleoplan_bmc'
# scrypt's cost (n, r, p): 16 MiB, ~30 ms a digest on this kind of machine
COST = (2 ** 14, 8, 1)


def digest(passwords, salt=None):
    """``scrypt$<salt>$<digest>`` (hex) of ``passwords`` ({driver_info
    key: password}) under ``salt`` (bytes; a new random one when None)."""
    salt = os.urandom(16) if salt is None else salt
    n, r, p = COST
    data = json.dumps(sorted(passwords.items())).encode('utf-8')
    value = hashlib.scrypt(data, salt=salt, n=n, r=r, p=p, dklen=32)
    return 'scrypt$%s$%s' % (salt.hex(), value.hex())


def same(recorded, passwords):
    """Whether ``recorded`` (a ``digest``) is of ``passwords``; None when
    it is no digest of ours (then nothing can be told)."""
    try:
        kind, salt, _ = recorded.split('$')
        salt = bytes.fromhex(salt)
    except (AttributeError, ValueError):
        return None
    if kind != 'scrypt' or len(salt) != 16:
        return None
    return hmac.compare_digest(recorded, digest(passwords, salt))
