"""YAML a user gives: every problem a clear error, never a traceback."""

import unittest

import yaml

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


def laughs(width, levels):
    """A list of ``levels`` lists, each ``width`` aliases of the one
    before: aliases add sum(width * size) nodes."""
    items = ['&l0 lol'] + ['&l%d [%s]' % (i, ', '.join(
        ['*l%d' % (i - 1)] * width)) for i in range(1, levels + 1)]
    return ('top: [%s]\n' % ', '.join(items)).encode()


class TestBounds(unittest.TestCase):
    """What each loader lets aliases and bytes cost (issue 37)."""

    def test_plan_content_aliases_add_at_most_a_hundred_thousand(self):
        # 123,450 nodes added: read by the former cap (a million)
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(laughs(10, 5), 'env.yaml')
        self.assertIn('aliases expand to more than 100000 nodes',
                      str(caught.exception))
        # 12,340: read
        self.assertEqual(10, len(content.load_yaml(
            laughs(10, 4), 'env.yaml')['top'][4]))

    def test_the_plain_loader_refuses_any_anchor_or_alias(self):
        for data, line in ((b'a: &x 1\n', 1), (b'a: 1\nb: &x [1]\n', 2),
                           (b'- {a: &x {b: 1}}\n', 1),
                           (b'a: [1]\nb: &x [2]\nc: *x\n', 2)):
            with self.assertRaises(content.StructureError) as caught:
                content.parse(data, content.PlainLoader)
            self.assertEqual(
                'line %d: it uses a YAML anchor (&x), which this file may '
                'not hold; write the value out in full wherever it is '
                'used' % line, content.problem(caught.exception))
        with self.assertRaises(yaml.YAMLError) as caught:
            content.parse(b'a: *x\n', content.PlainLoader)
        self.assertIn('undefined alias', str(caught.exception))
        self.assertEqual({'a': [1], 'b': {'c': 'd'}}, content.parse(
            b'a: [1]\nb: {c: d}\n', content.PlainLoader))

    def test_the_stored_loader_reads_what_pyyaml_wrote_only(self):
        shared = {'source': '/home/one.yaml', 'md5': 'd' * 32}
        old = content.dump_yaml({'files': {'one.yaml': shared},
                                 'read': {'one.yaml': shared}})
        self.assertIn(b'*id001', old)          # what a writer did
        self.assertEqual({'files': {'one.yaml': shared},
                          'read': {'one.yaml': shared}},
                         content.parse(old, content.StoredLoader))
        with self.assertRaises(content.StructureError) as caught:
            content.parse(laughs(10, 4), content.StoredLoader)
        self.assertIn('aliases expand to more than 100', str(caught.exception))

    def test_dump_without_aliases(self):
        shared = [1, {'a': 2}]
        data = content.dump_yaml({'x': shared, 'y': shared}, aliases=False)
        self.assertNotIn(b'&', data)
        self.assertEqual({'x': shared, 'y': shared},
                         content.parse(data, content.PlainLoader))

    def test_bytes_beyond_the_cap_are_refused_unread(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(b'a: [\n' + b' ' * 100, 'env.yaml',
                              max_bytes=100)
        self.assertEqual(
            'env.yaml is not valid YAML: it is 105 bytes, more than the 100 '
            'this file may have; make it smaller. Fix the file and run the '
            'command again.', str(caught.exception))
