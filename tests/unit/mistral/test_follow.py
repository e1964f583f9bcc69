"""The deploy workflow's follow task: one look at Heat per run, the
outcome recorded once the stack has ended."""

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.mistral import follow
from tripleoplanclient import protocol
from tripleoplanclient.record import log

HEAT = fakes.HEAT
STARTED = {'stack_id': fakes.STACK_ID, 'operation': 'UPDATE',
           'fingerprint': 'f', 'swift_gets': 0, 'files': 3}


class TestFollow(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()
        self.req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=[], step='abc',
            heat_url=HEAT))

    def stack_is(self, status):
        self.m.get(HEAT + '/stacks/p', status_code=302, headers={
            'Location': HEAT + '/stacks/p/' + fakes.STACK_ID})
        self.m.get(HEAT + '/stacks/p/' + fakes.STACK_ID,
                   headers=fakes.JSON, json=small_plan.stack(status))

    def look(self):
        return follow.follow(self.store, fakes.heat_client(), self.req,
                             STARTED)

    def outcome(self):
        import yaml
        data = self.swift.objects.get(log.outcome_path('abc'))
        return data and yaml.safe_load(data[0])

    def test_a_busy_stack_is_looked_at_again(self):
        self.stack_is('UPDATE_IN_PROGRESS')
        self.assertFalse(self.look()['done'])
        self.assertIsNone(self.outcome())

    def test_a_round_on_a_busy_stack_costs_one_request(self):
        # Heat first, by the stack's id: no outcome GET, no redirect.
        self.stack_is('UPDATE_IN_PROGRESS')
        self.m.reset_mock()
        self.look()
        self.assertEqual(
            [('GET', '/v1/admin/stacks/p/' + fakes.STACK_ID)],
            [(h.method, h.path) for h in self.m.request_history])

    def test_an_end_the_deploy_task_wrote_costs_no_request(self):
        # A redeploy with nothing changed: its outcome is on record.
        started = dict(STARTED, operation='NONE', step={
            'id': 'abc', 'outcome': {'status': 'SUCCESS'}})
        self.assertEqual({'done': True, 'recorded_by': 'mistral'},
                         follow.follow(self.store, fakes.heat_client(),
                                       self.req, started))
        self.assertEqual([], self.m.request_history)

    def test_a_stack_deleted_meanwhile_ends_the_following(self):
        # Heat still shows a deleted stack by its id.
        self.stack_is('DELETE_COMPLETE')
        self.assertEqual({'done': True, 'status': 'UNKNOWN'}, self.look())

    def test_the_end_is_recorded_with_what_the_deploy_task_knew(self):
        for status, outcome in (('UPDATE_FAILED', 'FAILED'),
                                ('UPDATE_COMPLETE', 'SUCCESS')):
            self.swift.objects.clear()
            self.stack_is(status)
            self.assertEqual({'done': True, 'status': outcome}, self.look())
            found = self.outcome()
            self.assertEqual((outcome, status, 'mistral'), (
                found['outcome']['status'], found['outcome']['stack_status'],
                found['outcome']['recorded_by']))
            self.assertEqual(('f', '2024-05-01T12:00:00Z'), (
                found['stack']['fingerprint'], found['stack']['updated']))

    def test_an_outcome_the_client_recorded_is_left_alone(self):
        self.store.writer.write_outcome('p', 'abc', {
            'status': 'FAILED', 'failed_resources': ['x']})
        # Heat is asked first (the round a busy stack costs), once.
        self.stack_is('UPDATE_COMPLETE')
        self.assertEqual('client', self.look()['recorded_by'])
        self.assertEqual(['x'], self.outcome()['outcome']['failed_resources'])
        self.assertEqual(1, len([h for h in self.m.request_history
                                 if h.url.startswith(HEAT)]))

    def test_a_client_outcome_that_lands_while_heat_is_asked_stays(self):
        def stack(request, context):
            # The client saw the same end meanwhile and recorded it.
            self.swift.store(log.outcome_path('abc'), log.dump(
                {'outcome': {'status': 'SUCCESS', 'by': 'client'}}))
            context.headers = fakes.JSON
            return small_plan.stack('UPDATE_COMPLETE')

        self.m.get(HEAT + '/stacks/p', status_code=302, headers={
            'Location': HEAT + '/stacks/p/' + fakes.STACK_ID})
        self.m.get(HEAT + '/stacks/p/' + fakes.STACK_ID, json=stack)
        self.assertEqual('client', self.look()['recorded_by'])
        self.assertEqual('client', self.outcome()['outcome']['by'])

    def test_a_client_outcome_that_lands_right_before_the_write_stays(self):
        # After every look of ours, before our PUT reaches Swift: only
        # Swift's If-None-Match check can see it.
        def put(request, context):
            self.swift.store(log.outcome_path('abc'), log.dump(
                {'outcome': {'status': 'SUCCESS', 'by': 'client'}}))
            return self.swift._put(request, context)

        self.stack_is('UPDATE_COMPLETE')
        self.m.put(fakes.SWIFT + '/p/' + log.outcome_path('abc'),
                   status_code=201, text=put)
        self.assertEqual('client', self.look()['recorded_by'])
        self.assertEqual('client', self.outcome()['outcome']['by'])


class TestWorkbook(fakes.HttpTestCase):

    def test_the_deploy_workflow_follows_until_done(self):
        import yaml
        book = yaml.safe_load(protocol.workbook())
        tasks = book['workflows']['deploy']['tasks']
        self.assertEqual(['follow'], tasks['deploy']['on-success'])
        follow_task = tasks['follow']
        self.assertEqual('tripleoplan.follow', follow_task['action'])
        self.assertEqual('<% not $.followed.done %>',
                         follow_task['retry']['continue-on'])
        self.assertEqual({'request': '<% $.request %>',
                          'started': '<% $.deploy %>'},
                         follow_task['input'])
        self.assertNotIn('on-success', book['workflows']['render']['tasks'][
            'render'])


class TestGone(fakes.HttpTestCase):

    def test_a_deleted_stack_and_plan_end_the_following(self):
        self.m.get(fakes.SWIFT + '/p', status_code=404)
        self.m.get(fakes.SWIFT + '/p/' + log.outcome_path('abc'),
                   status_code=404)
        for path in ('/stacks/p', '/stacks/p/' + fakes.STACK_ID):
            self.m.get(HEAT + path, status_code=404, headers=fakes.JSON,
                       json={'code': 404,
                             'error': {'message': 'not found'}})
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=[], step='abc',
            heat_url=HEAT))
        self.assertEqual({'done': True, 'status': 'UNKNOWN'}, follow.follow(
            fakes.plan_store(), fakes.heat_client(), req, STARTED))
        self.assertEqual([], [h for h in self.m.request_history
                              if h.method == 'PUT'])
