"""What update/upgrade show before they run: differences() and describe().

Both read a record and a plans.Change; the Change here is the real one,
worked out from real files on disk, as the commands build it.
"""

import os
import tempfile
import unittest

from tripleoplanclient import environments
from tripleoplanclient import overcloud
from tripleoplanclient import plans
from tripleoplanclient import record

LIFECYCLE = overcloud.lifecycle_path('update', 'prepare')


class OvercloudTestCase(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.home = tmp.name
        self.write('a.yaml', 'parameter_defaults:\n  A: 1\n')
        self.write('b.yaml', 'parameter_defaults:\n  B: 1\n')
        self.write('c.yaml', 'parameter_defaults:\n  C: 1\n')
        self.write('n.yaml', 'resource_registry:\n'
                             '  OS::TripleO::N: nested/n-impl.yaml\n')
        self.write('nested/n-impl.yaml', 'heat_template_version: rocky\n')
        # The plan as its last successful step left it: a, b and n.
        self.record = record.new('p')
        files = self.files('a.yaml', 'b.yaml', 'n.yaml')
        change = plans.Change(self.record, files)
        step = change.step('create', argv=[])
        plans.render_step(lambda plan, inputs: {'state': 'SUCCESS'}, 'p',
                          step, change.render_inputs)
        step['id'] = 1
        record.apply(self.record, step)

    def write(self, name, text):
        path = os.path.join(self.home, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def path(self, name):
        """The plan path of a local user file."""
        return environments.PlanFiles().plan_path(
            os.path.join(self.home, name))

    def files(self, *names):
        files = environments.PlanFiles()
        for name in names:
            files.add_environment(os.path.join(self.home, name))
        return files

    def change(self, *names, remove=()):
        return plans.Change(self.record, self.files(*names),
                            [self.path(n) for n in remove])


class TestDifferences(OvercloudTestCase):

    def test_the_same_list_and_content_is_no_line(self):
        change = self.change('a.yaml', 'b.yaml')
        self.assertEqual([], overcloud.differences(self.record, change,
                                                   None))

    def test_removed_added_and_changed(self):
        self.write('b.yaml', 'parameter_defaults:\n  B: 2\n')
        change = self.change('b.yaml', 'c.yaml', remove=['a.yaml'])
        self.assertEqual([
            '  - %s' % self.path('a.yaml'),
            '  + %s' % self.path('c.yaml'),
            '  ~ %s (content changed)' % self.path('b.yaml'),
        ], overcloud.differences(self.record, change, None))

    def test_a_changed_file_an_environment_references(self):
        self.write('nested/n-impl.yaml', 'heat_template_version: queens\n')
        change = self.change('n.yaml')
        self.assertEqual(
            ['  ~ %s (content changed)' % self.path('nested/n-impl.yaml')],
            overcloud.differences(self.record, change, None))

    def test_a_new_list_order(self):
        # Removed and given again: it goes last.
        change = self.change('a.yaml', remove=['a.yaml'])
        self.assertEqual([self.path(n) for n in ('b.yaml', 'n.yaml',
                                                 'a.yaml')],
                         change.environments)
        self.assertEqual(['  (order changed)'],
                         overcloud.differences(self.record, change, None))

    def test_the_lifecycle_environment_is_for_this_step_only(self):
        change = self.change()
        self.assertEqual(['  + %s (this step only)' % LIFECYCLE],
                         overcloud.differences(self.record, change,
                                               LIFECYCLE))


class TestDescribe(OvercloudTestCase):

    def test_no_stack_is_a_create(self):
        self.write('a.yaml', 'parameter_defaults:\n  A: 2\n')
        change = self.change('a.yaml', 'c.yaml')
        described = overcloud.describe(change, None)
        self.assertEqual({
            'operation': 'CREATE',
            'objects_added': [self.path('c.yaml')],
            'objects_changed': [self.path('a.yaml')],
            'environments': [self.path(n) for n in ('a.yaml', 'b.yaml',
                                                    'n.yaml', 'c.yaml')],
            'renders': False,
        }, described)

    def test_a_stack_is_an_update_and_lifecycle_goes_last(self):
        described = overcloud.describe(self.change(), object(), LIFECYCLE)
        self.assertEqual('UPDATE', described['operation'])
        self.assertEqual([self.path(n) for n in ('a.yaml', 'b.yaml',
                                                 'n.yaml')] + [LIFECYCLE],
                         described['environments'])
        self.assertEqual(([], []), (described['objects_added'],
                                    described['objects_changed']))

    def test_a_changed_rendering_input_renders(self):
        self.write('roles.yaml', '- name: Controller\n')
        files = self.files()
        files.add_input('roles_data', os.path.join(self.home, 'roles.yaml'),
                        '--roles-file')
        described = overcloud.describe(plans.Change(self.record, files),
                                       object())
        self.assertIs(True, described['renders'])

    def test_without_a_change(self):
        self.assertEqual({'operation': 'CREATE', 'objects_added': [],
                          'objects_changed': [], 'environments': [],
                          'renders': False},
                         overcloud.describe(None, None))
        self.assertEqual([LIFECYCLE], overcloud.describe(
            None, object(), LIFECYCLE)['environments'])
