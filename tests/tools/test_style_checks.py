"""tools/style_checks.py: the project's own flake8 check."""

import unittest

import style_checks


class TestNoObjectBase(unittest.TestCase):

    def found(self, line):
        return list(style_checks.no_object_base(line))

    def test_a_class_naming_object_is_reported(self):
        for line in ('class Name(object):', 'class Name ( object ) :'):
            self.assertEqual([(0, 'P101 class names object as its base: '
                                  'write "class Name:"')], self.found(line))

    def test_other_classes_pass(self):
        for line in ('class Name:', 'class Name(Base):',
                     'class Name(Base, object):', 'x = object()'):
            self.assertEqual([], self.found(line))
