"""Object content: its MD5 (what Swift's listings carry) and YAML parsing.

Every module that compares content with Swift or parses YAML someone else
wrote goes through here, so a digest or a parse error reads the same
everywhere, and every parse is bounded (depth, aliases, bytes). Three
loaders, by what a format allows:

* ``Loader``: plan content (Heat templates and environments, roles and
  networks data): aliases are legal there; they may add MAX_ALIAS_NODES.
* ``PlainLoader``: formats that need no alias (validation playbooks and
  groups.yaml, node files, baremetal deployment files): any anchor or
  alias is refused.
* ``StoredLoader``: objects this client writes in a plan (its record, the
  render manifest): PyYAML wrote an alias for an object shared twice
  until ``dump_yaml(..., aliases=False)``, so aliases are read, but they
  may add no more than STORED_ALIAS_RATIO times the document's own nodes.

``parse`` applies a byte cap first; ``load_yaml`` turns any refusal into
a CommandError naming the file, the line and what to do.
"""

import codecs
import hashlib

import yaml
from yaml import composer
from yaml import constructor
from yaml import nodes
from yaml import resolver

from tripleoplanclient.common import exceptions

# Nesting deeper than this (aliases included) is refused: the code walking
# a document recurses, and no Heat file comes close.
MAX_DEPTH = 200
# How many nodes aliases may add to a document ("billion laughs"). Reading
# is cheap whatever the number (shared nodes are built once); whoever walks
# the value pays for each: a million (in 694 bytes) cost YAML's dump of the
# value's JSON (a Mistral output written back) 8.1 s and 369 MB, a hundred
# thousand 0.6 s and 59 MB (tools/bench/yaml_bounds.py). Heat files use
# aliases for a few lists of volumes or settings: hundreds of nodes.
MAX_ALIAS_NODES = 100000
# Objects this client wrote (``StoredLoader``): an alias repeats an object
# written once beside it, so aliases add at most this many times the nodes
# the document holds (plus STORED_ALIAS_FLOOR), whatever it is.
STORED_ALIAS_RATIO = 4
STORED_ALIAS_FLOOR = 10000
# Byte caps of the formats parsed here, before any parse (``parse``): far
# above what the format holds, so that a read is bounded in time. The
# largest shipped validation is 1.6 KB; a node of a node file ~0.5 KB.
MAX_PLAYBOOK_BYTES = 1024 * 1024
MAX_NODE_FILE_BYTES = 16 * 1024 * 1024
MAX_BAREMETAL_FILE_BYTES = 16 * 1024 * 1024
MAX_STORED_BYTES = 64 * 1024 * 1024
_MERGE = 'tag:yaml.org,2002:merge'
_VALUE = 'tag:yaml.org,2002:value'


class StructureError(yaml.YAMLError):
    """A document YAML accepts and this client refuses; its message quotes
    no value (a key at most), so it is shown even with ``quote=False``."""

    def __init__(self, problem, mark):
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


def _children(node):
    if isinstance(node, nodes.SequenceNode):
        return node.value
    if isinstance(node, nodes.MappingNode):
        return [n for pair in node.value for n in pair]
    return ()


def check_graph(root, max_added=MAX_ALIAS_NODES):
    """Refuse a recursive alias, nesting deeper than MAX_DEPTH and aliases
    adding more than ``max_added`` nodes; iterative, so that a hostile
    document cannot exhaust the stack here either. Its work is one visit
    of each composed node, however far the aliases expand."""
    size, height = {}, {}
    on_path = set()
    added = 0
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            if height[key] > MAX_DEPTH:
                raise StructureError(
                    'nested more than %d levels deep (aliases included); '
                    'flatten it' % MAX_DEPTH, node.start_mark)
        elif key in size:
            # An alias: its whole subtree again.
            added += size[key]
            if added > max_added:
                raise StructureError(
                    'its aliases expand to more than %d nodes; use fewer '
                    'aliases' % max_added, node.start_mark)
        elif key in on_path:
            raise StructureError(
                'a YAML alias refers to the node that holds it (a recursive '
                'structure); remove the alias', node.start_mark)
        else:
            on_path.add(key)
            stack.append((node, True))
            stack.extend((k, False) for k in _children(node))


class _Checks:
    """Refuses what the plain safe loader takes silently or with a
    traceback: duplicate keys (it keeps the last), nesting deeper than
    MAX_DEPTH, and with anchors, what check_graph refuses. Cheap on the
    common document: no anchored collection, no merge key, no duplicate."""

    # False: any anchor is refused as it is met (so is any alias: YAML's
    # comes after its anchor, or is an undefined one)
    aliases = True
    _depth = 0
    _anchored = False
    _composed = 0       # nodes, aliases not counted

    def alias_limit(self):
        """How many nodes aliases may add to the document."""
        return MAX_ALIAS_NODES

    def _anchor(self, anchor):
        self._composed += 1
        if anchor is not None and not self.aliases:
            raise StructureError(
                'it uses a YAML anchor (&%s), which this file may not hold; '
                'write the value out in full wherever it is used' % anchor,
                self.peek_event().start_mark)

    def compose_scalar_node(self, anchor):
        # (checks here and in _compose_collection, not in compose_node:
        # a frame more per level would meet Python's recursion limit
        # before MAX_DEPTH)
        self._anchor(anchor)
        return super().compose_scalar_node(anchor)

    def _compose_collection(self, compose, anchor):
        self._anchor(anchor)
        if anchor is not None:
            self._anchored = True
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise StructureError(
                    'nested more than %d levels deep; flatten it'
                    % MAX_DEPTH, self.peek_event().start_mark)
            return compose(self, anchor)
        finally:
            self._depth -= 1

    def compose_sequence_node(self, anchor):
        return self._compose_collection(
            composer.Composer.compose_sequence_node, anchor)

    def compose_mapping_node(self, anchor):
        return self._compose_collection(
            composer.Composer.compose_mapping_node, anchor)

    def construct_document(self, node):
        # Only an alias to a collection can make a structure recursive,
        # deeper than it looks, or big: an anchor comes first.
        if self._anchored:
            check_graph(node, self.alias_limit())
        self._own_keys = {}
        return super().construct_document(node)

    def flatten_mapping(self, node):
        """A mapping with merge keys ("<<") gets the merged pairs put
        before its own, so that the constructed dict keeps its own value
        of a repeated key; of a list of merged mappings, the earlier ones
        win. PyYAML's own flattening is not used: the one of 6.0.4 keeps
        the first pair of a key, so that a merged mapping loses its own
        overrides (``{<<: *m}`` of ``m: {<<: *b, a: 2}`` gets b's ``a``).
        Its own keys are noted the first time, for the duplicate check.
        """
        for key, _ in node.value:
            if key.tag == _VALUE:    # "=": a plain string key, as PyYAML
                key.tag = 'tag:yaml.org,2002:str'
        if not any(key.tag == _MERGE for key, _ in node.value):
            return
        if id(node) not in self._own_keys:
            self._own_keys[id(node)] = [
                key for key, _ in node.value if key.tag != _MERGE]
        merged, own = [], []
        for key, value in node.value:
            if key.tag != _MERGE:
                own.append((key, value))
                continue
            sources = value.value if isinstance(value, nodes.SequenceNode) \
                else [value]
            for source in reversed(sources):
                if not isinstance(source, nodes.MappingNode):
                    raise constructor.ConstructorError(
                        'while constructing a mapping', node.start_mark,
                        'expected a mapping or list of mappings for '
                        'merging, but found %s' % source.id,
                        source.start_mark)
                self.flatten_mapping(source)
                merged.extend(source.value)
        node.value = merged + own

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        own = self._own_keys.get(id(node))
        if own is not None or len(mapping) < len(node.value):
            seen = set()
            for key_node in (own if own is not None else
                             [key for key, _ in node.value]):
                key = self.construct_object(key_node)
                if key in seen:
                    raise StructureError(
                        'key %s appears twice in one mapping (YAML would '
                        'keep only the last); remove one' % _show(key),
                        key_node.start_mark)
                seen.add(key)
        return mapping


def _guarded(construct):
    """A scalar constructor whose refusal is an error with a line: PyYAML's
    raise ValueError (2001-13-45), KeyError (!!bool maybe), IndexError
    (an empty !!int) and the like."""
    def guarded(loader, node):
        try:
            return construct(loader, node)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                OverflowError):
            raise StructureError(
                'a %s there is not valid; quote it to keep it a string'
                % node.tag.rpartition(':')[2], node.start_mark)
    return guarded


def _show(key):
    text = repr(key)
    return text if len(text) <= 60 else text[:57] + '...'


try:
    from yaml._yaml import CParser
except ImportError:          # PyYAML built without libyaml
    CParser = None

if CParser is not None:
    class Loader(_Checks, composer.Composer, CParser,
                 constructor.SafeConstructor, resolver.Resolver):
        """libyaml's parser (fast) with PyYAML's composer: libyaml's own
        composer recurses in C and crashes the process on deep nesting,
        this one raises RecursionError (parsing a 3.5 MB file takes 11%
        longer than with yaml.CSafeLoader)."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            composer.Composer.__init__(self)
            constructor.SafeConstructor.__init__(self)
            resolver.Resolver.__init__(self)
else:
    class Loader(_Checks, yaml.SafeLoader):
        pass

for _tag in ('bool', 'int', 'float', 'timestamp'):
    _tag = 'tag:yaml.org,2002:' + _tag
    Loader.add_constructor(_tag, _guarded(Loader.yaml_constructors[_tag]))


class PlainLoader(Loader):
    """``Loader`` refusing any anchor or alias: for the formats that need
    none (validation playbooks, groups.yaml, node files, baremetal
    deployment files). Refused as the parser meets the first one, before
    anything is built."""

    aliases = False


class StoredLoader(Loader):
    """``Loader`` for objects this client writes (its record, the render
    manifest): aliases add at most STORED_ALIAS_RATIO times the nodes the
    document holds, plus STORED_ALIAS_FLOOR."""

    def alias_limit(self):
        return min(MAX_ALIAS_NODES, STORED_ALIAS_FLOOR +
                   STORED_ALIAS_RATIO * self._composed)


def parse(data, loader=Loader, max_bytes=None):
    """The value of YAML ``data`` (bytes or text), read by ``loader``.
    Longer than ``max_bytes``: refused unread. Raises yaml.YAMLError
    (StructureError for what this client refuses, nesting too deep to
    read included) or UnicodeDecodeError."""
    if max_bytes is not None and len(data) > max_bytes:
        raise StructureError(
            'it is %d bytes, more than the %d this file may have; make it '
            'smaller' % (len(data), max_bytes), None)
    try:
        return yaml.load(data, Loader=loader)
    except RecursionError:
        raise StructureError('it is nested too deeply to read; flatten it',
                             None)


def problem(exc, quote=True):
    """What a YAML error of ``parse`` says, with its line: the parser's
    own words only with ``quote`` (they can quote the file), this
    client's refusals always (they quote no value)."""
    mark = getattr(exc, 'problem_mark', None)
    line = 'line %d: ' % (mark.line + 1) if mark is not None else ''
    if isinstance(exc, yaml.reader.ReaderError):
        return 'not text YAML can read (character %d: %s)' % (
            exc.position, exc.reason)
    if quote or isinstance(exc, StructureError):
        return line + ' '.join(str(
            getattr(exc, 'problem', None) or exc).split())
    return line + type(exc).__name__


def md5(data):
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def load_yaml(data, name, quote=True, loader=Loader, max_bytes=None):
    """Parse YAML bytes; any error names the file, the line and what to do.

    ``quote=False`` leaves the parser's problem out of the message: it can
    quote the file's text, and some files hold secrets. ``loader`` and
    ``max_bytes``: as ``parse``'s.
    """
    try:
        return parse(data, loader, max_bytes)
    except yaml.reader.ReaderError as exc:
        raise exceptions.CommandError(
            '%s is not text YAML can read (character %d: %s). Save it as '
            'UTF-8 (or UTF-16) without control characters and run the '
            'command again.' % (name, exc.position, exc.reason))
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        line = ' (line %d)' % (mark.line + 1) if mark is not None else ''
        problem = (': ' + (getattr(exc, 'problem', None) or str(exc))
                   if quote or isinstance(exc, StructureError) else '')
        raise exceptions.CommandError(
            '%s is not valid YAML%s%s. Fix the file and run the command '
            'again.' % (name, line, problem))


def text(data, name):
    """YAML bytes as text, decoded as YAML reads them: UTF-16 by its byte
    order mark, otherwise UTF-8."""
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    try:
        return data.decode('utf-16' if utf16 else 'utf-8-sig')
    except UnicodeDecodeError as exc:
        raise exceptions.CommandError(
            '%s is not %s text (byte %d). Save it as UTF-8 and run the '
            'command again.' % (name, 'UTF-16' if utf16 else 'UTF-8',
                                exc.start))


class PlainDumper(yaml.SafeDumper):
    """SafeDumper writing no alias: an object met twice is written out
    twice."""

    def ignore_aliases(self, data):
        return True


def dump_yaml(data, aliases=True):
    """Block-style YAML bytes, keys in the order given. ``aliases=False``:
    an object met twice is written out twice (PyYAML writes an alias),
    for the readers that accept few or none."""
    return yaml.dump(data, Dumper=yaml.SafeDumper if aliases else
                     PlainDumper, default_flow_style=False,
                     sort_keys=False, encoding='utf-8')
