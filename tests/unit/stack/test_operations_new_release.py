"""A stack step that moves the plan to another templates release, and user
files whose local source changed: through the real prepare / Change on a
stateful fake Swift."""

import json
import os

from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.mistral import builder
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import origin
from tripleoplanclient.record import steps
from tripleoplanclient.stack import operations

TEMPLATE = (b'heat_template_version: rocky\nparameters:\n'
            b'  AdminPassword: {type: string, hidden: true}\n')
UPGRADE = operations.lifecycle_path('upgrade', 'prepare')
STACK = {'stack': {'id': 'sid', 'stack_name': 'p', 'links': [],
                   'stack_status': 'CREATE_COMPLETE',
                   'creation_time': '2026-01-01T00:00:00Z',
                   'updated_time': None}}


class ReleaseTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + '/stacks/p', json=STACK,
                   headers={'Content-Type': 'application/json'})
        self.old = self.tree('old', b'Version: 17.0.0\n', {
            'gone.yaml': b'heat_template_version: rocky\n',
            'environments/kept.yaml': b'parameter_defaults: {A: 1}\n',
            'environments/gone-env.yaml': b'parameter_defaults: {B: 1}\n'})
        self.new = self.tree('new', b'Version: 18.0.0\n', {
            'environments/kept.yaml': b'parameter_defaults: {A: 2}\n',
            'environments/rendered.j2.yaml': b'parameter_defaults: {}\n',
            UPGRADE: b'parameter_defaults: {Upgrade: true}\n'})
        self.user = self.write('mine/images.yaml',
                               b'parameter_defaults: {Image: old}\n')
        files = files_mod.PlanFiles(self.old)
        files.origin = origin.Origin('p', None)
        files.add_templates()
        files.add_environment(os.path.join(self.old,
                                           'environments/kept.yaml'))
        files.add_environment(self.user)
        steps.create(self.store, 'p', files, fakes.Recorder(self.store),
                     render=False)
        self.store.reader.history('p')      # the cache mended now, not later
        self.before = dict(self.swift.objects)

    def tree(self, name, pkg_info, extra):
        self.write(name + '/overcloud.yaml', TEMPLATE)
        self.write(name + '/PKG-INFO', b'Metadata-Version: 1.1\n' + pkg_info)
        for path, data in extra.items():
            self.write('%s/%s' % (name, path), data)
        return os.path.join(self.dir, name)

    def services(self):
        return operations.Services(
            self.store, fakes.heat_client(), fakes.HEAT, fakes.SWIFT, None,
            None, None, lambda line: None)

    def prepare(self, templates=None, remove=(), stage='prepare'):
        head = self.store.reader.head('p')
        files = files_mod.PlanFiles(templates or head.state['templates'])
        files.origin = origin.Origin('p', None)
        if templates:
            files.add_templates()
        return operations.prepare(self.services(), 'upgrade', 'p', files,
                                  remove, stage=stage,
                                  with_templates=bool(templates))

    def assertUnchanged(self):
        self.assertEqual(self.before, self.swift.objects)


class TestNewRelease(ReleaseTestCase):

    def test_the_sync_writes_removes_and_records_the_release(self):
        prepared = self.prepare(self.new)
        change = prepared.change
        self.assertEqual(['environments/gone-env.yaml', 'gone.yaml'],
                         change.deleted)
        self.assertIn(UPGRADE, change.added)
        self.assertEqual(UPGRADE, prepared.lifecycle)
        self.assertEqual('18.0.0', change.release['version'])
        old_md5 = content.md5(self.swift.objects['gone.yaml'][0])
        change.write(self.store, 'p')
        step = builder.step(change, 'upgrade')
        self.assertNotIn('gone.yaml', self.swift.objects)
        # What the old release held stays readable for its steps.
        self.assertIn(tree_mod.kept_name(old_md5), self.swift.objects)
        self.assertIsNone(step['change']['tree']['gone.yaml'])
        self.assertEqual(['environments/gone-env.yaml', 'gone.yaml'],
                         step['paths']['removed'])
        # User files and the plan's own passwords file stay.
        self.assertIn(files_mod.PlanFiles().plan_path(self.user),
                      self.swift.objects)
        self.assertIn(layout.PLAN_ENVIRONMENT, self.swift.objects)
        self.assertTrue(change.renders)
        lines = '\n'.join(prepared.differences())
        self.assertIn('templates: 17.0.0 -> 18.0.0', lines)
        self.assertIn('2 removed', lines)

    def test_a_recorded_environment_the_release_lacks_is_refused(self):
        # kept.yaml is in the list; a release without it is refused.
        os.remove(os.path.join(self.new, 'environments/kept.yaml'))
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'does not have:\n  environments/kept.yaml\n.*'
                '--remove-environment'):
            self.prepare(self.new)
        self.assertUnchanged()
        prepared = self.prepare(self.new,
                                remove=['environments/kept.yaml'])
        self.assertNotIn('environments/kept.yaml',
                         prepared.change.environments)

    def test_an_environment_the_release_renders_is_there(self):
        os.remove(os.path.join(self.new, 'environments/kept.yaml'))
        os.rename(os.path.join(self.new, 'environments/rendered.j2.yaml'),
                  os.path.join(self.new, 'environments/kept.j2.yaml'))
        self.assertEqual(['environments/gone-env.yaml', 'gone.yaml'],
                         self.prepare(self.new).change.deleted)

    def test_the_lifecycle_file_comes_from_the_new_release(self):
        # The old plan has none: without --templates the stage is refused.
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'no environments/lifecycle/upgrade-'):
            self.prepare()
        os.remove(os.path.join(self.new, UPGRADE))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'no environments/lifecycle/upgrade-'):
            self.prepare(self.new)
        self.assertIsNone(self.prepare(self.new, stage='converge').lifecycle)
        self.assertUnchanged()

    def test_a_directory_that_is_no_templates_tree_is_refused(self):
        os.remove(os.path.join(self.new, 'overcloud.yaml'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'is not a templates tree'):
            self.prepare(self.new)
        self.assertUnchanged()

    def test_the_same_release_again_changes_nothing(self):
        prepared = self.prepare(self.old, stage='converge')
        self.assertTrue(prepared.change.empty)
        self.assertIsNone(prepared.change.release)

    def test_a_password_the_new_release_needs_is_generated(self):
        before = yaml.safe_load(
            self.swift.objects[layout.PLAN_ENVIRONMENT][0])['passwords']
        self.write('new/overcloud.yaml', TEMPLATE + b'  NewPassword: '
                   b'{type: string, hidden: true}\n')
        change = self.prepare(self.new).change
        self.assertIn(layout.PLAN_ENVIRONMENT, change.changed)
        change.write(self.store, 'p')
        after = yaml.safe_load(
            self.swift.objects[layout.PLAN_ENVIRONMENT][0])['passwords']
        self.assertEqual(before['AdminPassword'], after['AdminPassword'])
        self.assertEqual(['AdminPassword', 'NewPassword'], sorted(after))


class TestChangedSources(ReleaseTestCase):

    def test_a_source_changed_since_it_was_read_is_sent_again(self):
        path = files_mod.PlanFiles().plan_path(self.user)
        self.assertEqual([], self.prepare(stage='converge').resent)
        self.write('mine/images.yaml', b'parameter_defaults: {Image: new}\n')
        prepared = self.prepare(stage='converge')
        self.assertEqual([path], prepared.resent)
        self.assertEqual([path], prepared.change.changed)
        self.assertIn('%s (its local source changed' % path,
                      '\n'.join(prepared.differences()))

    def test_a_missing_source_keeps_the_stored_copy(self):
        os.remove(self.user)
        self.assertEqual([], self.prepare(stage='converge').resent)

    def test_a_restored_copy_is_not_undone_by_the_source(self):
        path = files_mod.PlanFiles().plan_path(self.user)
        self.write('mine/images.yaml', b'parameter_defaults: {Image: new}\n')
        self.cmd(plan_commands.AmendPlan, 'p', '--no-render', '-e',
                 self.user)
        self.cmd(plan_commands.RestorePlan, 'p', '--step', '1')
        # The source is what the client read last (step 2): the restored
        # copy of step 1 stands.
        self.assertEqual([], self.prepare(stage='converge').resent)
        self.write('mine/images.yaml', b'parameter_defaults: {Image: 3}\n')
        self.assertEqual([path], self.prepare(stage='converge').resent)


class TestConfirmation(ReleaseTestCase):
    """update/upgrade without -y on a terminal: the question comes with
    what the step changes and Heat's preview of it."""

    def upgrade(self, answer, *argv):
        from unittest import mock

        from tripleoplanclient.osc import deploy as deploy_commands
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'orchestration': fakes.HEAT,
                              'workflow': fakes.MISTRAL})
        cmd = deploy_commands.Upgrade(app, None)
        parsed = cmd.get_parser('x').parse_args(
            ['--stack', 'p', '--templates', self.new] + list(argv))
        with mock.patch('sys.stdin') as stdin, \
                mock.patch('builtins.input', return_value=answer) as asked:
            stdin.isatty.return_value = True
            try:
                cmd.take_action(parsed)
            finally:
                self.shown = app.stderr.getvalue()
                self.asked = asked.call_count

    def test_the_question_shows_heats_preview(self):
        preview = self.m.post(fakes.MISTRAL + '/action_executions',
                              status_code=201, json={
                                  'id': None, 'state': 'SUCCESS',
                                  'output': json.dumps({'result': {
                                      'operation': 'UPDATE', 'nested': False,
                                      'nested_error': 'TypeError',
                                      'resources': {'replaced': [{
                                          'name': 'Net', 'stack': 'p',
                                          'type': 'OS::Neutron::Net'}],
                                          'updated': [{
                                              'name': 'Controller',
                                              'stack': 'p', 'type': 'T'}]}}
                                  })})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Not confirmed: nothing was changed'):
            self.upgrade('n')
        self.assertIn('templates: 17.0.0 -> 18.0.0', self.shown)
        self.assertIn('Heat would UPDATE the stack: 0 added, 1 updated, 1 '
                      'replaced', self.shown)
        self.assertIn('replaced: p/Net (OS::Neutron::Net)', self.shown)
        self.assertEqual(1, preview.call_count)
        self.assertUnchanged()

    def test_with_yes_no_question_and_no_preview(self):
        # -y: nothing to ask, so Heat is not asked for a preview either
        # (the command would go on to Mistral's deploy workflow: refused
        # here by the missing workbook, after the question would have
        # been).
        self.m.get(fakes.MISTRAL + '/workflows/tripleoplan.v1.render',
                   status_code=404, json={'faultstring': 'not found'})
        preview = self.m.post(fakes.MISTRAL + '/action_executions',
                              status_code=500)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'has no workflow tripleoplan.v1.render'):
            self.upgrade('y', '-y')
        self.assertEqual((0, 0), (self.asked, preview.call_count))
        self.assertIn('templates: 17.0.0 -> 18.0.0', self.shown)
