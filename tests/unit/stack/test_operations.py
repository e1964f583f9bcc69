"""What a stack step shows before it runs: Prepared.differences() and
describe().

Both read a record and a record.steps.Change; the Change here is the real
one, worked out from real files on disk, as the commands build it.
"""

import os
import tempfile
import unittest

from tripleoplanclient.mistral import builder
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.record import log
from tripleoplanclient.record import steps
from tripleoplanclient.stack import operations

LIFECYCLE = operations.lifecycle_path('update', 'prepare')


class OperationsTestCase(unittest.TestCase):

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
        # The plan as its last step left it: a, b and n.
        files = self.files('a.yaml', 'b.yaml', 'n.yaml')
        change = steps.Change(log.new_state(), files)
        step = builder.step(change, 'create', argv=[])
        builder.render_step(lambda plan, inputs, tree: {'state': 'SUCCESS'},
                            'p', step, change.render_inputs)
        empty = log.Head(log.new_state(), 0, None, [])
        self.head = steps.after(empty, log.seal(step, empty))
        self.rows = [log.row(step, 1)]

    def write(self, name, text):
        path = os.path.join(self.home, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def path(self, name):
        """The plan path of a local user file."""
        return files_mod.PlanFiles().plan_path(
            os.path.join(self.home, name))

    def files(self, *names):
        files = files_mod.PlanFiles()
        for name in names:
            files.add_environment(os.path.join(self.home, name))
        return files

    def change(self, *names, remove=()):
        return steps.Change(self.head.state, self.files(*names),
                            [self.path(n) for n in remove])

    def prepared(self, change, stack=None, lifecycle=None):
        return operations.Prepared('update', 'p', change.files,
                                   change.remove, stack, self.rows,
                                   self.head, change, lifecycle)

    def differences(self, change, lifecycle=None):
        """The lines under the heading."""
        lines = self.prepared(change, object(), lifecycle).differences()
        self.assertEqual('Update of stack p, against the plan after step '
                         '1:', lines[0])
        return lines[1:]


class TestDifferences(OperationsTestCase):

    def test_the_same_list_and_content_is_no_line(self):
        change = self.change('a.yaml', 'b.yaml')
        self.assertEqual(['  (the same environment list)'],
                         self.differences(change))

    def test_removed_added_and_changed(self):
        self.write('b.yaml', 'parameter_defaults:\n  B: 2\n')
        change = self.change('b.yaml', 'c.yaml', remove=['a.yaml'])
        self.assertEqual([
            '  - %s' % self.path('a.yaml'),
            '  + %s' % self.path('c.yaml'),
            '  ~ %s (content changed)' % self.path('b.yaml'),
        ], self.differences(change))

    def test_a_changed_file_an_environment_references(self):
        self.write('nested/n-impl.yaml', 'heat_template_version: queens\n')
        change = self.change('n.yaml')
        self.assertEqual(
            ['  ~ %s (content changed)' % self.path('nested/n-impl.yaml')],
            self.differences(change))

    def test_a_new_list_order(self):
        # Removed and given again: it goes last.
        change = self.change('a.yaml', remove=['a.yaml'])
        self.assertEqual([self.path(n) for n in ('b.yaml', 'n.yaml',
                                                 'a.yaml')],
                         change.environments)
        self.assertEqual(['  (order changed)'],
                         self.differences(change))

    def test_the_lifecycle_environment_is_for_this_step_only(self):
        change = self.change()
        self.assertEqual(['  + %s (this step only, before the list)'
                          % LIFECYCLE],
                         self.differences(change, LIFECYCLE))


class TestDescribe(OperationsTestCase):

    def test_no_stack_is_a_create(self):
        self.write('a.yaml', 'parameter_defaults:\n  A: 2\n')
        change = self.change('a.yaml', 'c.yaml')
        described = operations.describe(self.prepared(change))
        self.assertEqual({
            'operation': 'CREATE',
            'plan_created': False,
            'objects_added': [self.path('c.yaml')],
            'objects_changed': [self.path('a.yaml')],
            'objects_removed': [],
            'environments': [self.path(n) for n in ('a.yaml', 'b.yaml',
                                                    'n.yaml', 'c.yaml')],
            'environments_added': [self.path('c.yaml')],
            'environments_removed': [],
            'files_changed': [self.path('a.yaml')],
            'templates': None,
            'renders': False,
        }, described)

    def test_a_stack_is_an_update_and_lifecycle_goes_first(self):
        described = operations.describe(
            self.prepared(self.change(), object(), LIFECYCLE))
        self.assertEqual('UPDATE', described['operation'])
        self.assertEqual([LIFECYCLE] + [self.path(n) for n in (
            'a.yaml', 'b.yaml', 'n.yaml')],
                         described['environments'])
        self.assertEqual(([], []), (described['objects_added'],
                                    described['objects_changed']))

    def test_a_changed_rendering_input_renders(self):
        self.write('roles.yaml', '- name: Controller\n')
        files = self.files()
        files.add_input('roles_data', os.path.join(self.home, 'roles.yaml'),
                        '--roles-file')
        described = operations.describe(
            self.prepared(steps.Change(self.head.state, files), object()))
        self.assertIs(True, described['renders'])

    def test_a_plan_to_create_lists_every_object(self):
        files = self.files('a.yaml')
        prepared = operations.Prepared('deploy', 'p', files, [], None, None,
                                       None, None, with_templates=True)
        self.assertEqual({'operation': 'CREATE', 'plan_created': True,
                          'objects_added': [self.path('a.yaml')],
                          'objects_changed': [], 'objects_removed': [],
                          'environments': [self.path('a.yaml')],
                          'environments_added': [self.path('a.yaml')],
                          'environments_removed': [], 'files_changed': [],
                          'templates': None, 'renders': True},
                         operations.describe(prepared))
        self.assertIs(False, operations.describe(
            prepared, renders_on_create=False)['renders'])
