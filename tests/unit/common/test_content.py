"""YAML a user gives: every problem a clear error, never a traceback."""

import unittest

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions


def billion_laughs(levels=12):
    lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
    lines += ['a%d: &a%d [%s]' % (i, i, ', '.join(['*a%d' % (i - 1)] * 10))
              for i in range(1, levels)]
    return ('\n'.join(lines) + '\n').encode()


class TestLoadYaml(unittest.TestCase):

    def refused(self, data, *words):
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(data, 'env.yaml')
        for word in ('env.yaml',) + words:
            self.assertIn(word, str(caught.exception))
        return str(caught.exception)

    def test_a_duplicate_key_names_the_line_and_the_key(self):
        self.refused(b'a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n', 'line 5',
                     "key 'x' appears twice", 'remove one')

    def test_keys_equal_in_python_are_duplicates(self):
        # 1 and true are one dict key: the first would be lost.
        self.refused(b'1: a\ntrue: b\n', 'line 2', 'twice')

    def test_merge_keys_may_be_overridden(self):
        self.assertEqual(
            {'b': {'a': 1}, 'm': {'a': 2, 'c': 1}, 't': {'a': 2, 'c': 1},
             'x': {'y': {'a': 2}}, 'u': {'a': 2}},
            content.load_yaml(
                b'b: &b {a: 1}\nm: &m {<<: *b, a: 2, c: 1}\nt: {<<: *m}\n'
                b'x: {y: &n {<<: &o {a: 1}, a: 2}}\nu: {<<: *n}\n', 'f'))

    def test_a_recursive_alias(self):
        for data in (b'a: &a [*a]\n', b'a: &a {x: *a}\n',
                     b'a:\n  b: &a\n    c: [1, {d: *a}]\n'):
            self.refused(data, 'recursive', 'remove the alias')

    def test_a_billion_laughs_is_refused_at_once(self):
        # refused by the alias bound, before anything is expanded
        self.refused(billion_laughs(), 'aliases expand to more than',
                     '(line ')

    def test_a_merge_key_bomb_is_refused(self):
        lines = ['a0: &a0 {k: v}']
        lines += ['a%d: &a%d {<<: [%s]}' % (
            i, i, ', '.join(['*a%d' % (i - 1)] * 10)) for i in range(1, 12)]
        self.refused(('\n'.join(lines) + '\n').encode(), 'aliases expand')

    def test_deep_nesting_is_refused_without_crashing(self):
        # libyaml's own composer overflows the C stack on this one.
        # refused by libyaml's parser (PyYAML 6.0.4 and later) or by our
        # composer
        nested = r'nested more than 200|exceeded maximum nesting depth'
        self.assertRegex(self.refused(b'[' * 100000 + b']' * 100000,
                                      'line 1'), nested)
        self.assertRegex(self.refused(b'a:\n' + b'  - ' * 300 + b'x\n'),
                         nested)

    def test_nesting_through_aliases_is_refused(self):
        data = b'a0: &a0 x\n' + b''.join(
            b'a%d: &a%d [*a%d]\n' % (i, i, i - 1) for i in range(1, 300))
        self.refused(data, 'nested more than 200')

    def test_a_value_a_constructor_refuses(self):
        self.refused(b'a: 2001-13-45\n', 'line 1', 'timestamp', 'quote it')

    def test_an_empty_tagged_int(self):
        # PyYAML's int constructor indexes the empty text (IndexError).
        self.refused(b'a: !!int #1e9\n', 'line 1', 'int', 'quote it')

    def test_text_that_is_not_utf8(self):
        self.refused('a: caf\xe9\n'.encode('latin-1'), 'UTF-8')
        self.refused(b'a: \x00\n', 'control characters')

    def test_no_value_is_quoted_when_asked_not_to(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(b'a: "hunter2\n', 'pw.yaml', quote=False)
        self.assertNotIn('hunter2', str(caught.exception))
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(b'a: hunter2\na: hunter2\n', 'pw.yaml',
                              quote=False)
        self.assertNotIn('hunter2', str(caught.exception))
        self.assertIn("key 'a' appears twice", str(caught.exception))

    def test_utf16_and_bom_text(self):
        for encoding in ('utf-16', 'utf-8-sig'):    # with a byte order mark
            data = 'a: caf\xe9\n'.encode(encoding)
            self.assertEqual({'a': 'caf\xe9'}, content.load_yaml(data, 'f'))
            self.assertEqual('a: caf\xe9\n', content.text(data, 'f'))
