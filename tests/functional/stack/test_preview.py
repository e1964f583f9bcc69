"""``overcloud deploy|update preview`` with Heat's own answer, ``--dry-run``
(the command's own columns), and moving a plan to another templates tree,
on small templates against the loopback services.

Each preview is checked against the services' access logs: Swift saw only
reads of the plan, Heat only its template validation and the preview
itself. Then the real operation runs, and what Heat previewed is what
happened.
"""

import json
import os
import re
import shutil
import subprocess
import time
import uuid

from tests.functional import base

TEMPLATES = {
    'overcloud.yaml': '''heat_template_version: rocky
parameters:
  Length: {type: number, default: 8}
  Message: {type: string, default: hello}
  WithExtra: {type: boolean, default: true}
conditions:
  extra: {get_param: WithExtra}
resources:
  token:
    type: OS::Heat::RandomString
    properties: {length: {get_param: Length}}
  note:
    type: OS::Heat::TestResource
    properties: {value: {get_param: Message}}
  extra:
    type: OS::Heat::TestResource
    condition: extra
  nested:
    type: OS::Small::Nested
''',
    'nested.yaml': 'heat_template_version: rocky\nresources:\n'
                   '  inner: {type: OS::Heat::RandomString}\n',
    'registry.yaml': 'resource_registry:\n  OS::Small::Nested: nested.yaml\n',
    'roles_data.yaml': '- name: Controller\n',
    'environments/lifecycle/update-prepare.yaml':
        'parameter_defaults:\n  Message: update-prepare\n',
}
# A request line in Swift's proxy log or Heat's uWSGI log.
_REQUEST = re.compile(r'\b(GET|HEAD|PUT|POST|DELETE|PATCH|COPY) (/\S*)')


class RequestLog:
    """The requests a service logged since a mark: ``(method, path)``."""

    def __init__(self, path):
        self.path = path

    def _lines(self):
        with open(self.path, 'rb') as f:
            return f.read().decode('utf-8', 'replace').splitlines()

    def mark(self):
        return len(self._lines())

    def since(self, mark):
        time.sleep(1)       # both log once the response went out
        out = []
        for line in self._lines()[mark:]:
            found = _REQUEST.search(line)
            if found:
                out.append((found.group(1), found.group(2).split('?')[0]))
        return out


class PreviewTest(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'),
                                        TEMPLATES)
        cls.plan = 'preview-%s' % uuid.uuid4().hex[:8]
        cls.swift_log = RequestLog(cls.env['LOOPBACK_SWIFT_ACCESS_LOG'])
        cls.heat_log = RequestLog(cls.env['LOOPBACK_HEAT_ACCESS_LOG'])

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'stack', 'delete', '-y', '--wait',
                        cls.plan], env=cls.env, capture_output=True,
                       timeout=300)
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        cls.plan], env=cls.env, capture_output=True)
        super().tearDownClass()

    def preview(self, *args):
        """Run ``overcloud <command> preview <args>``: its JSON and
        stderr, after checking that no service was asked to change
        anything and the plan is as it was."""
        return self.unchanged(args[:2] + ('preview',) + args[2:])

    def dry_run(self, *args):
        """Run ``<args> --dry-run``: the command's own columns, status
        DRY_RUN, nothing changed."""
        shown, err = self.unchanged(args + ('--dry-run',))
        self.assertEqual((None, 'DRY_RUN'), (shown['id'], shown['status']))
        return shown, err

    def unchanged(self, args):
        before = self.snapshot(self.plan)
        marks = self.swift_log.mark(), self.heat_log.mark()
        out, err = self.openstack(*(args + ('-f', 'json')))
        shown = json.loads(out)
        # Tests run side by side: only the requests naming this plan (a
        # stack create names it only in its body: the test checks that no
        # stack exists after a create preview).
        swift = [r for r in self.swift_log.since(marks[0])
                 if '/%s' % self.plan in r[1]]
        heat = [r for r in self.heat_log.since(marks[1])
                if '/%s' % self.plan in r[1] or r[1].endswith(
                    ('/stacks/preview', '/validate'))]
        reads = ('GET', 'HEAD')
        self.assertEqual([], [r for r in swift if r[0] not in reads])
        self.assertEqual([], [r for r in heat if r[0] not in reads
                              and not r[1].endswith(('/preview',
                                                     '/validate'))])
        self.assertTrue(any(r[1].endswith('/preview') for r in heat)
                        or shown.get('heat_operation',
                                     shown.get('operation')) == 'NONE' or
                        before is None, heat)
        self.assertEqual(before, self.snapshot(self.plan))
        return shown, err

    def test_previews_then_the_real_operations(self):
        registry = os.path.join(self.templates, 'registry.yaml')
        # No plan yet: what the step would store; Heat has nothing to
        # preview from.
        shown, err = self.preview('overcloud', 'deploy', '--stack',
                                  self.plan, '--templates', self.templates,
                                  '-e', registry)
        self.assertEqual((True, 'CREATE'), (shown['plan_created'],
                                            shown['heat_operation']))
        self.assertIn('does not exist yet', err)
        self.assertIsNone(self.swift.listing(self.plan))

        self.openstack('overcloud', 'plan', 'create', self.plan,
                       '--templates', self.templates, '-e', registry)
        # A plan never deployed: Heat's create preview, nested included.
        shown, err = self.preview('overcloud', 'deploy', '--stack',
                                  self.plan)
        self.assertEqual(('CREATE', False), (shown['heat_operation'],
                                             shown['plan_created']))
        added = shown['resources_added']
        for name in ('token', 'note', 'extra'):
            self.assertIn('%s/%s' % (self.plan, name), added)
        self.assertTrue(any(r.endswith('/inner') for r in added), added)
        self.assertIn('Heat would CREATE the stack', err)
        self.openstack('stack', 'show', self.plan, fail=True)

        created = self.openstack_json('overcloud', 'deploy', '--stack',
                                      self.plan)
        self.assertEqual('CREATE_COMPLETE', created['stack_status'])
        before = self.resources(self.plan)

        # Nothing changed since: Heat would not even be asked.
        shown, _ = self.preview('overcloud', 'deploy', '--stack', self.plan)
        self.assertEqual('NONE', shown['heat_operation'])
        shown, _ = self.dry_run('overcloud', 'deploy', '--stack', self.plan)
        self.assertEqual(('NONE', created['stack_id'], 'CREATE_COMPLETE'), (
            shown['operation'], shown['stack_id'], shown['stack_status']))

        changes = self.write('changes.yaml', 'parameter_defaults:\n'
                             '  Length: 12\n  Message: bye\n'
                             '  WithExtra: false\n')
        shown, err = self.preview('overcloud', 'update', '--stack',
                                  self.plan, '-e', changes)
        root = self.plan + '/'
        self.assertEqual('UPDATE', shown['heat_operation'])
        self.assertEqual(['user-files' + changes],
                         shown['environments_added'])
        self.assertIn(root + 'token', shown['resources_replaced'])
        self.assertIn(root + 'note', shown['resources_updated'])
        self.assertEqual([root + 'extra'], shown['resources_deleted'])
        self.assertIn('replaced: %stoken (OS::Heat::RandomString)' % root,
                      err)
        self.assertIn('deleted: %sextra' % root, err)
        self.assertRegex(shown['nested_detail'], '^(shown|not shown)')
        # --dry-run: the columns of the real update below, Heat's summary
        # on stderr.
        dry, err = self.dry_run('overcloud', 'update', '--stack', self.plan,
                                '-e', changes)
        self.assertEqual(('update', 'UPDATE'), (dry['action'],
                                                dry['operation']))
        self.assertIn('user-files' + changes, dry['environments'])
        self.assertIn('Heat would UPDATE the stack', err)

        updated = self.openstack_json('overcloud', 'update', '--stack',
                                      self.plan, '-e', changes, '-y')
        self.assertEqual('UPDATE_COMPLETE', updated['stack_status'])
        self.assertEqual((list(dry), dry['environments']),
                         (list(updated), updated['environments']))
        after = self.resources(self.plan)
        # What Heat previewed is what it did.
        self.assertNotIn('extra', after)
        self.assertNotEqual(before['token'], after['token'])
        self.assertEqual(before['note'], after['note'])

        # The plan's diff from the first deploy to now says the same.
        diff = self.openstack_json('overcloud', 'plan', 'diff', self.plan,
                                   '--from', '2')
        self.assertEqual(['user-files' + changes],
                         diff['environments_added'])
        self.assertEqual(['user-files' + changes], diff['files_added'])
        self.assertEqual({'change': 'added', 'new': 12},
                         diff['parameters_changed']['Length'])
        self.assertIn('+  WithExtra: false', diff['diff'])
        # From the last deploy (the update) to now: nothing.
        diff = self.openstack_json('overcloud', 'plan', 'diff', self.plan)
        self.assertEqual(([], {}), (diff['files_changed'],
                                    diff['parameters_changed']))


class TemplatesSyncTest(base.BadInputTest):
    """--templates on the stack commands: refused input changes nothing;
    a new tree's removed files leave the plan."""

    TEMPLATES = TEMPLATES
    PREFIX = 'sync'

    def test_a_directory_that_is_no_templates_tree(self):
        empty = os.path.join(self.tmp, 'empty')
        os.makedirs(empty, exist_ok=True)
        self.write('empty/x.yaml', 'a: 1\n')
        for command in ('deploy', 'update', 'upgrade'):
            self.fail_with('--templates %s is not a templates tree' % empty,
                           'overcloud', command, '--stack', self.plan,
                           '--templates', empty, '-y')
        self.fail_with('is not a directory', 'overcloud', 'update',
                       '--stack', self.plan, '--templates',
                       os.path.join(self.tmp, 'missing'), '-y')

    def test_a_recorded_environment_the_new_tree_lacks(self):
        self.openstack('overcloud', 'plan', 'amend', self.plan, '--no-render',
                       '-e', os.path.join(self.templates,
                                          'registry.yaml'))
        self.before = self.snapshot(self.plan)
        new = os.path.join(self.tmp, 'new-tree')
        shutil.copytree(self.templates, new)
        os.remove(os.path.join(new, 'registry.yaml'))
        self.fail_with('does not have:\n  registry.yaml\nDrop each with '
                       '--remove-environment', 'overcloud', 'deploy',
                       '--stack', self.plan, '--templates', new)

    def test_the_plans_own_tree_again_changes_nothing(self):
        shown = self.openstack_json('overcloud', 'deploy', 'preview',
                                    '--stack', self.plan, '--templates',
                                    self.templates)
        self.assertEqual((0, 0, 0, []), (
            shown['objects_added'], shown['objects_changed'],
            shown['objects_removed'], shown['environments_added']))

    def test_a_diff_of_steps_the_plan_does_not_have(self):
        self.fail_with('has no step 99', 'overcloud', 'plan', 'diff',
                       self.plan, '--from', '99')
        self.fail_with('does not exist', 'overcloud', 'plan', 'diff',
                       self.new_plan)
