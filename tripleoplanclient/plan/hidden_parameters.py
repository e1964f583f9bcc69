"""Which parameters a plan's templates declare hidden: HOT's ``hidden:
true``, CFN's ``NoEcho``. Heat masks them, and so does whatever shows a
plan's parameters from its files (``plan diff``), whatever their names.

Templates are found by their content, wherever they are in the plan
(``candidates`` names the files that may be one): a file whose text names
no template version or holds neither ``hidden`` nor ``NoEcho`` is not
parsed. A jinja2 source that YAML cannot read (``*.j2.yaml``: its
rendered outputs are in the plan too) is scanned line by line, erring on
the side of hiding. Only the standard library and this package's own
modules.
"""

import codecs
import json
import os
import re

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import tree as tree_mod

# Where a Heat template may be (Heat reads YAML and JSON, any name).
_SUFFIXES = ('.yaml', '.yml', '.json', '.template')
_VERSIONS = (b'heat_template_version', b'HeatTemplateFormatVersion',
             b'AWSTemplateFormatVersion')
_MARKS = (b'hidden', b'NoEcho')
_TRUE = ('true', 'yes', 'on', 'y', 't', '1')
CACHE_NAME = 'hidden-parameters.json'
# Contents remembered (about 45 bytes each): a few templates releases.
CACHE_ENTRIES = 20000
# ``hidden: true`` (or NoEcho) on a line of its own, and the key of a
# line, for the line scan.
_HIDDEN_LINE = re.compile(
    r'''^(?P<indent>[ \t]*)["']?(?:hidden|NoEcho)["']?[ \t]*:[ \t]*'''
    r'''["']?(?:true|yes|on)["']?[ \t]*(?:#.*)?$''', re.IGNORECASE)
_KEY_LINE = re.compile(
    r'''^(?P<indent>[ \t]*)["']?(?P<key>[^\s"'#:{}\[\],][^"'#:{}\[\],]*?)'''
    r'''["']?[ \t]*:(?:[ \t]+(?P<rest>.*))?$''')
_FLOW_HIDDEN = re.compile(r'''\b(?:hidden|NoEcho)["']?\s*:\s*["']?'''
                          r'''(?:true|yes|on)\b''', re.IGNORECASE)


def candidates(paths):
    """The paths of ``paths`` that may hold a Heat template."""
    return sorted(p for p in paths if p.lower().endswith(_SUFFIXES))


def _true(value):
    return value is True or str(value).strip().lower() in _TRUE


def _parsed(data, name):
    """The hidden parameters of a template YAML (or JSON) reads; None
    when it cannot read it."""
    try:
        loaded = content.load_yaml(data, name, quote=False)
    except exceptions.CommandError:
        return None
    if not isinstance(loaded, dict):
        return set()
    params = loaded.get('parameters', loaded.get('Parameters'))
    if not isinstance(params, dict):
        return set()
    return {str(n) for n, schema in params.items()
            if isinstance(schema, dict) and _true(
                schema.get('hidden', schema.get('NoEcho', False)))}


def _scanned(text):
    """The keys a ``hidden: true`` line is nested under, or a flow
    mapping on their line holds (``Name: {type: string, hidden: true}``):
    a jinja2 source's parameters, maybe more."""
    found = set()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        hidden = _HIDDEN_LINE.match(line)
        if hidden is None:
            key = _KEY_LINE.match(line)
            if key and key.group('rest') and _FLOW_HIDDEN.search(
                    key.group('rest')):
                found.add(key.group('key').strip())
            continue
        depth = len(hidden.group('indent').expandtabs())
        for above in reversed(lines[:i]):
            key = _KEY_LINE.match(above)
            if key and len(key.group('indent').expandtabs()) < depth:
                found.add(key.group('key').strip())
                break
    return found


def declared(data, name):
    """The names of the parameters the file ``data`` (bytes) declares
    hidden; an empty set for a file that is no template."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            data = content.text(data, name).encode('utf-8')
        except exceptions.CommandError:
            return set()
    if not any(m in data for m in _MARKS) or not any(
            v in data for v in _VERSIONS):
        return set()
    found = _parsed(data, name)
    if found is not None:
        return found
    try:
        return _scanned(content.text(data, name))
    except exceptions.CommandError:
        return set()


class Known:
    """What each content (by MD5) declares hidden, kept between runs in
    ``path`` (None: for this run only). A templates release is the same
    content in every plan and step: its files are read and parsed once
    on a machine, not on every diff (THT 18: 1,675 files, 14-18 s on
    the loopback Swift). Names only, never a value."""

    def __init__(self, path=None):
        self.path = path
        self.entries = {}
        self.changed = False
        if path:
            try:
                with open(path) as f:
                    loaded = json.load(f)
                self.entries = {
                    k: v for k, v in loaded.items() if isinstance(v, list)
                    and all(isinstance(n, str) for n in v)}
            except (OSError, ValueError, AttributeError):
                self.entries = {}

    @classmethod
    def default(cls):
        """The user's: ``$XDG_CACHE_HOME/tripleoplanclient/``."""
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
            os.path.expanduser('~'), '.cache')
        return cls(os.path.join(base, 'tripleoplanclient', CACHE_NAME))

    def get(self, md5):
        names = self.entries.get(md5)
        return None if names is None else set(names)

    def put(self, md5, names):
        self.entries.pop(md5, None)         # the newest last
        self.entries[md5] = sorted(names)
        self.changed = True

    def save(self):
        if not self.path or not self.changed:
            return
        keep = dict(list(self.entries.items())[-CACHE_ENTRIES:])
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            temp = '%s.%d' % (self.path, os.getpid())
            with open(temp, 'w') as f:
                json.dump(keep, f, separators=(',', ':'))
            os.replace(temp, self.path)
        except OSError:
            pass        # a cache: the next run reads the files again
        self.changed = False


def readable(full, listing, known):
    """``(paths, missing)``: the files of a tree (``full``: path -> MD5)
    that may be templates and whose content ``known`` has not seen,
    readable now from the container's ``listing`` (their object or kept
    copy), and those whose content is nowhere."""
    paths = [p for p in candidates(full) if known.get(full[p]) is None]
    found, missing = tree_mod.sources({p: full[p] for p in paths}, listing)
    return sorted(found), missing


def in_trees(fulls, contents, known):
    """The parameters any template of the trees ``fulls`` declares
    hidden: from ``known`` and ``contents`` (``{md5: (name, bytes)}``,
    what ``readable`` named, each parsed once and kept in ``known``)."""
    for md5, (name, data) in contents.items():
        known.put(md5, declared(data, name))
    found = set()
    for full in fulls:
        for path in candidates(full):
            found |= known.get(full[path]) or set()
    known.save()
    return found


def unknown(plan, missing):
    """What to tell when files that may be templates are unreadable."""
    return ('Plan %s: %d file(s) that may be templates could not be read '
            '(%s%s): which parameters they declare hidden is unknown, so '
            'every parameter value is masked.' % (
                plan, len(missing), ', '.join(missing[:5]),
                ', ...' if len(missing) > 5 else ''))


def values_of(values, names):
    """The text of every value ``values`` (``{parameter: value}``) gives
    ``names``: each string and number in it, and the whole as JSON."""
    found = set()

    def leaves(value):
        if isinstance(value, dict):
            for item in value.values():
                leaves(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                leaves(item)
        elif value is not None and not isinstance(value, bool):
            found.add(str(value))

    for name in names:
        leaves(values.get(name))
        if isinstance(values.get(name), (dict, list)):
            found.add(json.dumps(values[name]))
    return found
