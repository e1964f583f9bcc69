"""SSH key texts for the provisioning tests: public key lines made as
ssh-keygen writes them (the blob starts with its type), and the start
of a private key file (never a real key)."""

import base64
import struct


def public_key(seed=0, comment='test@host'):
    """An ssh-ed25519 public key line (its 32 key bytes from ``seed``)."""
    kind = b'ssh-ed25519'
    key = bytes((seed + i) % 256 for i in range(32))
    blob = struct.pack('>I', len(kind)) + kind + \
        struct.pack('>I', len(key)) + key
    return 'ssh-ed25519 %s %s' % (base64.b64encode(blob).decode(), comment)


# what ssh-keygen's private key file looks like, its body a marker that
# a test looks for in every output
PRIVATE_MARK = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUSECRETBODY'
PRIVATE = ('-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n'
           '-----END OPENSSH PRIVATE KEY-----\n' % PRIVATE_MARK)
