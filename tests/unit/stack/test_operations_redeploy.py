"""``overcloud deploy`` that changes nothing, client and deploy action
together (the command class; the action's body behind the fake Mistral):
the client reads the index alone and looks the stack up by its recorded
id; the step is on record with its outcome, the index current."""

import datetime
import io
import os

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.record import index
from tripleoplanclient.record import log

STACK_ID = fakes.STACK_ID
ENDPOINTS = fakes.ENDPOINTS
CREATED = datetime.datetime.now(datetime.timezone.utc).strftime(
    '%Y-%m-%dT%H:%M:%SZ')


class TestRedeploy(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.temp_dir()
        self.deploy_services()
        self.update = self.m.put(fakes.HEAT + '/stacks/' + STACK_ID,
                                 status_code=202)
        tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nparameters:\n'
                         '  NtpServer: {type: string, default: x}\n'
                         'resources: {}\n')
        fakes.write_file(os.path.join(tht, 'roles_data.yaml'),
                         '- name: Controller\n')
        self.env = fakes.write_file(os.path.join(self.dir, 'env.yaml'),
                                    'parameter_defaults: {NtpServer: a}\n')
        self.run_command(plan_commands.CreatePlan, 'p', '--templates', tht,
                         '-e', self.env)
        fakes.stack_is(self.m, None)
        self.run_command(deploy_commands.Deploy, '--stack', 'p',
                         '--no-wait')
        # its end, as the command following it records it
        step = log.id_of(max(n for n in self.swift.objects
                             if n.startswith(log.LOG_PREFIX)))
        fakes.plan_store().writer.write_outcome('p', step, {
            'status': 'SUCCESS', 'stack_status': 'CREATE_COMPLETE',
            'stack_id': STACK_ID}, {'id': STACK_ID, 'updated': CREATED})
        fakes.stack_is(self.m, {'stack': {
            'id': STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': 'done',
            'creation_time': CREATED}}, STACK_ID)

    def run_command(self, cls, *argv):
        app = fakes.make_app(ENDPOINTS)
        app.stdout = io.StringIO()
        app.stderr = io.StringIO()
        cmd = cls(app, None)
        parsed = cmd.get_parser('openstack').parse_args(list(argv))
        self.assertEqual(0, cmd.run(parsed))
        return app.stderr.getvalue()

    def counted(self, *argv):
        """Swift and Heat requests (client and action) of a deploy."""
        before = len(self.m.request_history)
        self.run_command(deploy_commands.Deploy, '--stack', 'p', *argv)
        return [(r.method, r.netloc, r.path.split('/v1/')[-1].split(
            '/', 1)[-1]) for r in self.m.request_history[before:]
            if r.netloc in ('swift.test', 'heat.test')]

    def test_the_index_and_the_stack_by_its_id(self):
        # requests-mock gives paths lower case
        index_get = ('GET', 'swift.test', 'p/' + log.PATH)
        by_id = ('GET', 'heat.test', 'stacks/p/' + STACK_ID)
        self.assertEqual([index_get, by_id,              # the client
                          index_get, by_id,              # the action
                          ('PUT', 'swift.test', 'p')],  # step+outcome+index
                         self.counted())
        self.assertEqual(0, self.update.call_count)
        rows = index.head(self.swift.objects[log.PATH][0], 'p').rows
        self.assertEqual(('deploy', 'SUCCESS', 'NONE'), (
            rows[-1]['action'], rows[-1]['outcome']['status'],
            rows[-1]['stack']['operation']))
        # the -e file given again, unchanged: nothing more to read
        self.assertEqual(5, len(self.counted('-e', self.env)))

    def test_a_changed_file_is_sent_and_the_stack_updated(self):
        fakes.write_file(self.env, 'parameter_defaults: {NtpServer: b}\n')
        requests = self.counted('-e', self.env, '--no-wait')
        # decided against Swift's listing, as before
        self.assertIn(('GET', 'swift.test', 'p'), requests)
        self.assertEqual(1, self.update.call_count)
        rows = index.head(self.swift.objects[log.PATH][0], 'p').rows
        self.assertEqual(('deploy', 'IN_PROGRESS', 'UPDATE'), (
            rows[-1]['action'], rows[-1]['outcome']['status'],
            rows[-1]['stack']['operation']))
