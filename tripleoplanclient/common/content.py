"""Object content: its MD5 (what Swift's listings carry) and YAML parsing.

Every module that compares content with Swift or parses a user's YAML goes
through here, so a digest or a parse error reads the same everywhere.
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
# How many nodes aliases may add to a document ("billion laughs").
MAX_ALIAS_NODES = 1000000
_MERGE = 'tag:yaml.org,2002:merge'


class StructureError(yaml.YAMLError):
    """A document YAML accepts and this client refuses; its message quotes
    no value, so it is always shown."""

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


def check_graph(root):
    """Refuse a recursive alias, nesting deeper than MAX_DEPTH and aliases
    adding more than MAX_ALIAS_NODES nodes; iterative, so that a hostile
    document cannot exhaust the stack here either."""
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
            if added > MAX_ALIAS_NODES:
                raise StructureError(
                    'its aliases expand to more than %d nodes; use fewer '
                    'aliases' % MAX_ALIAS_NODES, node.start_mark)
        elif key in on_path:
            raise StructureError(
                'a YAML alias refers to the node that holds it (a recursive '
                'structure); remove the alias', node.start_mark)
        else:
            on_path.add(key)
            stack.append((node, True))
            stack.extend((k, False) for k in _children(node))


class _Checks(object):
    """Refuses what the plain safe loader takes silently: duplicate keys
    (it keeps the last) and the structures check_graph refuses."""

    def construct_object(self, node, deep=False):
        # A scalar that looks like a timestamp or a number but is not one
        # (2001-13-45) raises ValueError in PyYAML's constructors.
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError):
            raise StructureError(
                'a %s there is not valid; quote it to keep it a string'
                % node.tag.rpartition(':')[2], node.start_mark)

    def construct_document(self, node):
        check_graph(node)
        self._flattened = set()
        return super().construct_document(node)

    def flatten_mapping(self, node):
        # Called on every mapping before its merge keys ("<<") are expanded
        # into it (then a key repeated is an override, not a duplicate).
        if id(node) not in self._flattened:
            self._flattened.add(id(node))
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE or not isinstance(
                        key_node, nodes.ScalarNode):
                    continue
                key = self.construct_object(key_node)
                if key in seen:
                    raise StructureError(
                        'key %s appears twice in one mapping (YAML would '
                        'keep only the last); remove one' % _show(key),
                        key_node.start_mark)
                seen.add(key)
        return super().flatten_mapping(node)


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
        this one raises RecursionError (about 8% slower in all)."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            composer.Composer.__init__(self)
            constructor.SafeConstructor.__init__(self)
            resolver.Resolver.__init__(self)
else:
    class Loader(_Checks, yaml.SafeLoader):
        pass


def md5(data):
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def load_yaml(data, name, quote=True):
    """Parse YAML bytes; any error names the file, the line and what to do.

    ``quote=False`` leaves the parser's problem out of the message: it can
    quote the file's text, and some files hold secrets.
    """
    try:
        return yaml.load(data, Loader=Loader)
    except yaml.reader.ReaderError as exc:
        raise exceptions.CommandError(
            '%s is not text YAML can read (character %d: %s). Save it as '
            'UTF-8 (or UTF-16) without control characters and run the '
            'command again.' % (name, exc.position, exc.reason))
    except RecursionError:
        raise exceptions.CommandError(
            '%s is nested too deeply to read. Flatten it and run the command '
            'again.' % name)
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


def dump_yaml(data):
    """Block-style YAML bytes, keys in the order given."""
    return yaml.safe_dump(data, default_flow_style=False, sort_keys=False,
                          encoding='utf-8')
