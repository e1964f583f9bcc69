"""Reserved plan paths and export members, through the commands, on a
stateful fake Swift: a refusal writes nothing, and the generated
passwords survive every command."""

import io
import json
import os

from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import preview as preview_commands
from tripleoplanclient.plan import export
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.record import past
from tripleoplanclient.record import steps
from tripleoplanclient.stack import operations

TEMPLATE = (b'heat_template_version: rocky\nparameters:\n'
            b'  AdminPassword: {type: string, hidden: true}\n')
THT_PLAN_ENV = b'version: 1.0\nname: overcloud\ntemplate: overcloud.yaml\n'


class ReservedTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        self.tht = os.path.dirname(self.write('tht/overcloud.yaml',
                                              TEMPLATE))
        self.write('tht/' + layout.PLAN_ENVIRONMENT, THT_PLAN_ENV)
        files = files_mod.PlanFiles(self.tht)
        files.add_templates()
        steps.create(self.store, 'p', files, fakes.Recorder(self.store),
                     render=False)
        # A reader mends the record's cache once the steps settle: done
        # now, so that any later write is the command's.
        self.store.reader.history('p')
        self.before = dict(self.swift.objects)

    def passwords(self):
        data = self.swift.objects[layout.PLAN_ENVIRONMENT][0]
        return yaml.safe_load(data)['passwords']

    def assertUnchanged(self):
        self.assertEqual(self.before, self.swift.objects)


class TestPasswordsSurvive(ReservedTestCase):

    def test_create_adds_passwords_to_the_templates_own_file(self):
        self.assertEqual(['AdminPassword'], list(self.passwords()))
        stored = yaml.safe_load(
            self.swift.objects[layout.PLAN_ENVIRONMENT][0])
        self.assertEqual('overcloud.yaml', stored['template'])

    def test_amend_cannot_replace_plan_environment(self):
        mine = self.write('x', b'version: 1.0\n')
        for spec in ('%s=%s' % (mine, layout.PLAN_ENVIRONMENT),
                     os.path.join(self.tht, layout.PLAN_ENVIRONMENT),
                     '%s=user-environments/environments.yaml' % mine,
                     '%s=.' % mine, '%s=a//b' % mine):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        '--upload-file', msg=spec):
                self.cmd(plan_commands.AmendPlan, 'p', '--no-render',
                         '--upload-file', spec)
        self.assertUnchanged()

    def test_a_templates_sync_keeps_the_stored_passwords(self):
        generated = self.passwords()
        # The templates' own file changes, and the sync sends the rest.
        self.write('tht/' + layout.PLAN_ENVIRONMENT,
                   THT_PLAN_ENV + b'passwords: {AdminPassword: mine}\n')
        self.write('tht/extra.yaml', b'heat_template_version: rocky\n')
        services = operations.Services(
            self.store, fakes.heat_client(), fakes.HEAT, fakes.SWIFT, None,
            None, None, lambda line: None)
        files = files_mod.PlanFiles(self.tht)
        files.add_templates()
        prepared = operations.prepare(services, 'deploy', 'p', files,
                                      with_templates=True)
        self.assertEqual(['extra.yaml'], prepared.change.added)
        self.assertEqual([], prepared.change.changed)
        prepared.change.write(self.store, 'p')
        self.assertIn('extra.yaml', self.swift.objects)
        self.assertEqual(generated, self.passwords())

    def test_deploy_dry_run_with_templates_leaves_plan_environment(self):
        self.write('tht/' + layout.PLAN_ENVIRONMENT, b'version: 2.0\n')
        self.write('tht/extra.yaml', b'heat_template_version: rocky\n')
        preview = self.m.post(fakes.MISTRAL + '/action_executions',
                              status_code=201, json={
                                  'id': None, 'state': 'SUCCESS',
                                  'output': json.dumps({'result': {
                                      'operation': 'CREATE', 'nested': True,
                                      'resources': {}}})})
        names, values = self.cmd(preview_commands.DeployPreview, '--stack',
                                 'p', '--templates', self.tht)
        shown = dict(zip(names, values))
        self.assertEqual((1, 0), (shown['objects_added'],
                                  shown['objects_changed']))
        self.assertEqual('CREATE', shown['heat_operation'])
        # Heat's preview gets the step's one new file, not the templates'
        # plan-environment.yaml (the stored one, with the passwords, stays).
        request = json.loads(preview.last_request.json()['input'])['request']
        self.assertEqual(['extra.yaml'], sorted(request['overlay']))
        self.assertUnchanged()

    def test_a_tree_with_a_record_path_is_refused_before_any_write(self):
        self.write('tht/user-environments/log/x.yaml', b'{}\n')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'user-environments/log/x.yaml.*Remove '
                                    'or rename it in the templates tree'):
            self.cmd(deploy_commands.Deploy, '--stack', 'p',
                     '--templates', self.tht, '--dry-run')
        self.assertUnchanged()

    def test_create_with_such_a_tree_sends_no_request(self):
        self.write('tht/user-environments/environments.yaml', b'{}\n')
        requests = len(self.swift.requests)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'holds the plan\'s record'):
            self.cmd(plan_commands.CreatePlan, 'q', '--templates',
                     self.tht, '--no-render')
        self.assertEqual(requests, len(self.swift.requests))


class TestExportMembers(ReservedTestCase):

    def test_hostile_object_names_refuse_the_export(self):
        for name in ('../../x', '/abs/x', 'a\\b', 'a//b', 'a/./b'):
            self.swift.objects.clear()
            self.swift.objects.update(self.before)
            self.swift.store(name, b'evil')
            out = os.path.join(self.dir, 'p.tar.gz')
            with self.assertRaises(exceptions.CommandError,
                                   msg=name) as cm:
                self.cmd(plan_commands.ExportPlan, 'p', '--output-file',
                         out)
            self.assertIn(repr(name), str(cm.exception))
            self.assertIn('Rename or delete that object', str(cm.exception))
            self.assertFalse(os.path.exists(out))
            self.assertEqual([], [n for n in os.listdir(self.dir)
                                  if n.startswith('.p.tar.gz')])

    def test_the_store_checks_members_before_reading_any(self):
        gets = len([r for r in self.swift.requests if r[0] == 'GET'])
        with self.assertRaisesRegex(exceptions.CommandError, "'/abs/x'"):
            export.export(self.store.container, 'p',
                          {'/abs/x': 'overcloud.yaml'}, io.BytesIO())
        self.assertEqual(gets, len([r for r in self.swift.requests
                                    if r[0] == 'GET']))

    def test_a_step_export_is_still_whole(self):
        out = io.BytesIO()
        count = past.export(self.store, past.at(self.store, 'p', '1'), out)
        self.assertEqual(3, count)
