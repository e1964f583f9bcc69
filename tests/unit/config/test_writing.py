"""writing: the YAML the tree is dumped as reads back as the same data,
and the data read from tripleo-common's template text is what YAML read
from that text."""

import textwrap
import unittest

import hypothesis
from hypothesis import strategies as st
import yaml

from tripleoplanclient.common import exceptions
from tripleoplanclient.config import writing

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() |
    st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) |
    st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
WORD = st.text(alphabet='abcXYZ019 \t.:#-_/~&*!|>\'"%@[]{},?=<',
               min_size=0, max_size=12)
LINE = st.text(alphabet='ab Z09:#-*&"\'|>{}[]%\t', max_size=20).map(
    lambda s: s.strip())


class TestDump(unittest.TestCase):

    @hypothesis.settings(max_examples=400, deadline=None)
    @hypothesis.given(JSON)
    def test_reads_back(self, value):
        self.assertEqual(value, yaml.safe_load(writing.dump(value)))

    def test_lines_as_lines(self):
        self.assertEqual(b'k: |\n  one\n  two\n',
                         writing.dump({'k': 'one\ntwo\n'}))

    def test_not_text(self):
        with self.assertRaises(exceptions.CommandError):
            writing.dump({'k': '\ud800'})

    def test_no_tags(self):
        body = writing.dump({'k': '!!python/object:os.system'})
        self.assertEqual({'k': '!!python/object:os.system'},
                         yaml.safe_load(body))


class TestTemplateText(unittest.TestCase):

    @hypothesis.settings(max_examples=1000, deadline=None)
    @hypothesis.given(WORD)
    def test_plain_is_what_yaml_read(self, text):
        try:
            read = yaml.safe_load('k: %s\n' % text)['k']
        except yaml.YAMLError:
            return      # tripleo-common's file was no YAML: nothing to equal
        found = writing.plain(text)
        # converted only where YAML read one scalar from it, and then to
        # that scalar; otherwise the text stays text
        if found != text or type(found) is not str:
            self.assertEqual((type(read), read), (type(found), found))

    def test_plain_examples(self):
        for text, value in (('true', True), ('None', 'None'), ('', None),
                            ('~', None), ('0x1f', 31), ('1_000', 1000),
                            ('-1', -1), ('a b', 'a b'), ('*a', '*a'),
                            ('a: b', 'a: b'), ('[1]', '[1]'),
                            (' x ', 'x'), ('  ', None), (' 12', 12)):
            self.assertEqual((type(value), value),
                             (type(writing.plain(text)),
                              writing.plain(text)), text)

    def test_python_text(self):
        self.assertEqual('None', writing.python_text(None))
        # Python's None inside is the word None to YAML
        self.assertEqual({'a': [1, 'None'], 'b': True},
                         writing.python_text({'a': [1, None], 'b': True}))
        self.assertEqual({}, writing.python_text({}))
        self.assertEqual(5, writing.python_text(5))

    @hypothesis.settings(max_examples=500, deadline=None)
    @hypothesis.given(st.lists(LINE, min_size=1, max_size=5),
                      st.integers(0, 2), st.booleans())
    def test_literal_is_what_yaml_read(self, lines, breaks, keep):
        hypothesis.assume(lines[0])
        text = '\n'.join(lines) + '\n' * breaks
        block = 'k: %s\n%s\n' % ('|' if keep else '|-', textwrap.indent(
            text, '    ', lambda line: True))
        self.assertEqual(yaml.safe_load(block)['k'],
                         writing.literal(text, keep_end=keep))


class TestNames(unittest.TestCase):

    def test_name(self):
        self.assertEqual('ok-1.x', writing.name('role', 'ok-1.x'))
        for bad in (None, 3, ['x'], '..', '.x', 'a/b', 'a\tb'):
            with self.assertRaises(exceptions.CommandError):
                writing.name('role', bad)
