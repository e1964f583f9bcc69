"""The overlay: content a step would write, carried in a request."""

import base64
import binascii
import zlib

from tripleoplanclient.common import exceptions

# In JSON a request carries text:
# Each entry is the zlib-compressed bytes, base64-encoded; the reader bounds
# what the entries decompress to, all together.
MAX_OVERLAY_BYTES = 16 * 1024 * 1024


def encode_overlay(files):
    """``{plan path: bytes}`` -> the request's ``overlay``."""
    return {path: base64.b64encode(zlib.compress(data, 6)).decode('ascii')
            for path, data in files.items()}


def decode_overlay(overlay, limit=MAX_OVERLAY_BYTES):
    """The request's ``overlay`` -> ``{plan path: bytes}``.

    CommandError when it is malformed or decompresses to more than
    ``limit`` bytes in all (each entry is inflated only up to what is
    left, so a small entry that would inflate to gigabytes is refused
    without being inflated).
    """
    if overlay is None:
        return {}
    if not isinstance(overlay, dict):
        raise exceptions.CommandError(
            'Bad preview request: overlay is not a mapping.')
    out = {}
    left = limit
    for path in sorted(overlay, key=str):
        text = overlay[path]
        if not isinstance(path, str) or not isinstance(text, str):
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %r is not text.'
                % (path,))
        try:
            packed = base64.b64decode(text.encode('ascii'), validate=True)
            inflate = zlib.decompressobj()
            data = inflate.decompress(packed, left + 1)
        except (binascii.Error, UnicodeEncodeError, ValueError,
                zlib.error) as exc:
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %s is not zlib data in '
                'base64 (%s).' % (path, exc))
        if len(data) > left or inflate.unconsumed_tail:
            raise exceptions.CommandError(
                'The preview\'s changes are larger than %s once '
                'decompressed (at %s); preview a smaller change.'
                % (_size(limit), path))
        if not inflate.eof or inflate.unused_data:
            raise exceptions.CommandError(
                'Bad preview request: overlay entry %s is not one complete '
                'zlib stream.' % path)
        left -= len(data)
        out[path] = data
    return out


def _size(count):
    mib = 1024 * 1024
    return '%d MiB' % (count // mib) if count % mib == 0 else \
        '%d bytes' % count
