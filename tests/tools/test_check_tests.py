"""tools/check_tests.py: the test tree's layout rules, on this tree."""

import unittest

import check_tests

PACKAGE = {'tripleoplanclient.__init__', 'tripleoplanclient.plan.__init__',
           'tripleoplanclient.plan.container', 'tripleoplanclient.plan.tree',
           'tripleoplanclient.protocol.__init__'}


class TestLayout(unittest.TestCase):

    def test_this_tree_keeps_both_rules(self):
        self.assertEqual([], list(check_tests.test_imports()))
        self.assertEqual([], list(check_tests.unmirrored()))

    def test_a_test_module_names_its_module(self):
        def tested(*parts):
            return check_tests.tested_module(list(parts), PACKAGE)

        self.assertEqual('tripleoplanclient.plan.container',
                         tested('plan', 'test_container'))
        self.assertEqual('tripleoplanclient.plan.container',
                         tested('plan', 'test_container_expired_token'))
        self.assertEqual('tripleoplanclient.protocol',
                         tested('protocol', 'test_protocol'))
        self.assertEqual('tripleoplanclient', tested('test_package_sides'))
        for parts in (('plan', 'test_containers'), ('plan', 'test_paths'),
                      ('record', 'test_container'), ('test_sides',)):
            self.assertIsNone(tested(*parts), parts)
