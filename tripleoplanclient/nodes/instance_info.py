"""What a baremetal deployment file says about each instance's disk:
``image`` (href, checksum, kernel, ramdisk), ``root_size_gb`` and
``swap_size_mb`` (metalsmith's names), checked, and the Ironic
``instance_info`` they make.

No Glance here: an image is an ``http(s)://`` or ``file://`` location
that Ironic's conductor reads. An http image needs a checksum (md5,
sha256 or sha512 hex digits, or the URL of a checksums file); kernel and
ramdisk, both or neither, make it a partition image, whose root
partition is ``root_size_gb`` or else the node's ``local_gb`` - 1 (as
metalsmith does); without kernel and ramdisk it is a whole-disk image.
"""

import re
from urllib import parse

# python-tripleoclient's (tripleo-ansible's) default image
DEFAULT_HREF = 'file:///var/lib/ironic/images/overcloud-full.raw'
IMAGE_FIELDS = ('href', 'checksum', 'kernel', 'ramdisk')
MAX_LOCATION = 2048
# tripleo-ansible's schema minimums; the maximums a sanity bound
ROOT_GB = (4, 1048576)
SWAP_MB = (64, 1048576)
_HASHES = {32: 'md5', 64: 'sha256', 128: 'sha512'}
_HEX = re.compile(r'[0-9a-fA-F]+\Z')


def _kind(location):
    """'http', 'file', or None for anything else."""
    scheme = parse.urlsplit(location).scheme.lower()
    return {'http': 'http', 'https': 'http', 'file': 'file'}.get(scheme)


def _location(value, what, problems):
    if not isinstance(value, str) or not value or \
            len(value) > MAX_LOCATION or any(c.isspace() for c in value):
        problems.append('%s must be a location without spaces, at most %d '
                        'characters' % (what, MAX_LOCATION))
        return None
    parts = parse.urlsplit(value)
    if _kind(value) is None or (parts.scheme.lower() == 'file' and
                                not parts.path.startswith('/')) or \
            (_kind(value) == 'http' and not parts.netloc):
        problems.append('%s %r: give an http://, https:// or file:/// '
                        'location (no Glance here)' % (what, value[:200]))
        return None
    return value


def image(value, what, problems):
    """The ``image`` mapping checked (None when absent); every problem
    appended to ``problems``."""
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append('%s image must be a mapping (href, checksum, '
                        'kernel, ramdisk)' % what)
        return None
    unknown = sorted(str(k) for k in set(value) - set(IMAGE_FIELDS))
    if unknown:
        problems.append('%s image: unknown field(s) %s (known: %s)' % (
            what, ', '.join(unknown), ', '.join(IMAGE_FIELDS)))
    if 'href' not in value:
        problems.append('%s image: href is required' % what)
        return None
    found = {}
    for key in IMAGE_FIELDS:
        if value.get(key) is not None:
            found[key] = _location(value[key], '%s image %s' % (what, key),
                                   problems) if key != 'checksum' else \
                value[key]
    if None in found.values():
        return None
    kind = _kind(found['href'])
    if ('kernel' in found) != ('ramdisk' in found):
        problems.append('%s image: give both kernel and ramdisk (a '
                        'partition image) or neither (a whole-disk image)'
                        % what)
    for key in ('kernel', 'ramdisk'):
        if key in found and _kind(found[key]) != kind:
            problems.append('%s image %s: a %s image takes a %s %s too' % (
                what, key, kind, kind, key))
    checksum = found.get('checksum')
    if checksum is not None and checksum_fields(checksum) is None:
        problems.append('%s image checksum: give md5, sha256 or sha512 hex '
                        'digits or the http(s) URL of a checksums file'
                        % what)
    elif checksum is None and kind == 'http':
        problems.append('%s image: an http(s) image needs a checksum' % what)
    return found


def checksum_fields(checksum):
    """The instance_info fields of a checksum, or None when it is none
    of the forms."""
    if not isinstance(checksum, str):
        return None
    if _HEX.match(checksum) and len(checksum) in _HASHES:
        algorithm = _HASHES[len(checksum)]
        if algorithm == 'md5':
            return {'image_checksum': checksum.lower()}
        return {'image_os_hash_algo': algorithm,
                'image_os_hash_value': checksum.lower()}
    if _kind(checksum) == 'http' and len(checksum) <= MAX_LOCATION and \
            parse.urlsplit(checksum).netloc and \
            not any(c.isspace() for c in checksum):
        return {'image_checksum': checksum}
    return None


def size(value, what, bounds, unit, problems):
    """A whole number within ``bounds`` (None when absent)."""
    if value is None:
        return None
    low, high = bounds
    if not isinstance(value, int) or isinstance(value, bool) or \
            not low <= value <= high:
        problems.append('%s must be a whole number of %s from %d to %d' % (
            what, unit, low, high))
        return None
    return value


def merged(role, instance):
    """An instance's disk settings: its own, else its role's defaults
    (the image as a whole, as tripleo-ansible's defaults)."""
    return {key: instance.get(key) if instance.get(key) is not None
            else role.get(key)
            for key in ('image', 'root_size_gb', 'swap_size_mb')}


def partition(settings):
    found = settings.get('image') or {}
    return 'kernel' in found


def check(settings, what, problems):
    """What ``merged`` settings break together (metalsmith: swap only on
    a partition image)."""
    if settings.get('swap_size_mb') and not partition(settings):
        problems.append('%s: swap_size_mb needs a partition image (kernel '
                        'and ramdisk): a whole-disk image brings its own '
                        'partitions' % what)


def root_problem(settings, node, hostname):
    """Why ``node`` cannot take a partition image (no root size known),
    or None."""
    if not partition(settings) or settings.get('root_size_gb') or \
            local_gb(node):
        return None
    return ('%s: a partition image needs root_size_gb (node %s has no '
            'local_gb to take it from)' % (hostname, node.get('name') or
                                           node['uuid']))


def local_gb(node):
    try:
        found = int((node.get('properties') or {}).get('local_gb') or 0)
    except (TypeError, ValueError):
        return None
    return found if found > 1 else None


def fields(settings, node):
    """Ironic's ``instance_info`` fields for ``settings`` (``merged``) on
    ``node``: image_source, checksum fields, kernel, ramdisk, root_gb,
    swap_mb (and image_disk_format raw for a .raw image)."""
    found = settings.get('image') or {'href': DEFAULT_HREF}
    info = {'image_source': found['href']}
    if found.get('checksum'):
        info.update(checksum_fields(found['checksum']))
    for key in ('kernel', 'ramdisk'):
        if found.get(key):
            info[key] = found[key]
    if parse.urlsplit(found['href']).path.endswith('.raw'):
        info['image_disk_format'] = 'raw'
    root = settings.get('root_size_gb') or (
        local_gb(node) - 1 if local_gb(node) else None)
    if root:
        info['root_gb'] = root
    if settings.get('swap_size_mb'):
        info['swap_mb'] = settings['swap_size_mb']
    return info
