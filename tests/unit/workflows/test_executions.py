"""The client side of Mistral, against its REST API faked with
requests-mock and the real python-mistralclient."""

import json
import threading

import requests
import yaml

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions
from tripleoplanclient.workflows import plans
from tripleoplanclient.workflows import workbook

URL = fakes.MISTRAL


class WorkflowsTest(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.lines = []
        self.clock = fakes.FakeClock()
        self.wf = executions.Workflows(fakes.mistral_client(), URL,
                                       self.lines.append,
                                       sleep=self.clock.sleep,
                                       clock=self.clock)

    def workflow(self, tags=(protocol.TAG,), status=200):
        return self.m.get(URL + '/workflows/' + executions.RENDER,
                          status_code=status, json={
                              'id': 'w', 'name': executions.RENDER,
                              'tags': list(tags), 'definition': ''})

    def execution(self, states, output=None, state_info=None):
        self.m.post(URL + '/executions', status_code=201,
                    json={'id': 'e1', 'state': 'RUNNING'})
        responses = [{'json': {'id': 'e1', 'state': s,
                               'state_info': state_info,
                               'output': json.dumps(output or {})}}
                     for s in states]
        return self.m.get(URL + '/executions/e1', responses)

    def test_render_success_reports_the_summary(self):
        self.workflow()
        gets = self.execution(['RUNNING', 'SUCCESS'], output={'render': {
            'outputs': 50, 'written': ['a.yaml'], 'removed': ['b.yaml'],
            'hashes': {'a.yaml': 'm1'}}})
        entry = self.wf.render(plans.render_request(
            'p', 'http://swift/v1/A', {'roles_data': 'r.yaml'}), 60)
        # The hashes and paths are for the step's tree (record.steps).
        self.assertEqual({'execution': 'e1', 'state': 'SUCCESS',
                          'outputs': 50, 'written': 1, 'removed': 1,
                          'hashes': {'a.yaml': 'm1'},
                          'removed_paths': ['b.yaml']}, entry)
        self.assertEqual(2, gets.call_count)
        body = self.m.request_history[1].json()
        self.assertEqual(executions.RENDER, body['workflow_name'])
        self.assertEqual({'request': {
            'container': 'p', 'swift_url': 'http://swift/v1/A',
            'roles_data': 'r.yaml', 'network_data': None, 'tree': None,
            'protocol': protocol.PROTOCOL}}, json.loads(body['input']))
        self.assertIn('Rendered 50 templates', self.lines[-1])
        # what happens to the plan, the execution's id once
        self.assertEqual([
            'Rendering plan p: started in Mistral (execution e1)',
            'Rendering plan p: done in 0.8 s'], self.lines[:-1])

    def test_error_carries_state_info(self):
        self.workflow()
        self.execution(['ERROR'], state_info='roles_data.yaml must be a list')
        entry = self.wf.render(plans.render_request('p', None, {}), 60)
        self.assertEqual('ERROR', entry['state'])
        self.assertEqual('roles_data.yaml must be a list', entry['info'])

    def test_timeout_leaves_the_execution_running(self):
        self.workflow()
        self.execution(['RUNNING'] * 100)
        entry = self.wf.render(plans.render_request('p', None, {}), 5)
        self.assertEqual('TIMEOUT', entry['state'])
        self.assertIn('still RUNNING after 5 s', entry['info'])
        self.assertEqual(5.0, self.clock.now)

    def test_missing_workbook(self):
        self.workflow(status=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'workbook install'):
            self.wf.check()

    def test_workbook_of_another_protocol(self):
        self.workflow(tags=['tripleoplan-protocol-0'])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'another version.*protocol-0'):
            self.wf.check()

    def test_mistral_unreachable(self):
        self.m.get(URL + '/workflows/' + executions.RENDER,
                   exc=requests.exceptions.ConnectionError)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Mistral is unreachable at ' + URL):
            self.wf.check()

    def test_check_is_asked_once(self):
        get = self.workflow()
        self.wf.check()
        self.wf.check()
        self.assertEqual(1, get.call_count)


class InstallWorkbookTest(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.client = fakes.mistral_client()

    def version(self, protocol=protocol.PROTOCOL, status=201):
        return self.m.post(URL + '/action_executions', status_code=status,
                           json={'id': 'a', 'state': 'SUCCESS', 'output':
                                 json.dumps({'result': {
                                     'protocol': protocol}})})

    def test_creates_when_missing(self):
        self.m.get(URL + '/workbooks/' + protocol.WORKBOOK, status_code=404,
                   json={'faultstring': 'not found'})
        create = self.m.post(URL + '/workbooks', status_code=201,
                             json={'name': protocol.WORKBOOK})
        self.version()
        self.assertEqual(('created', protocol.PROTOCOL),
                         workbook.install_workbook(self.client, URL))
        self.assertEqual(protocol.workbook(),
                         create.last_request.text)

    def test_a_workbook_of_another_project_is_a_clear_error(self):
        self.m.get(URL + '/workbooks/' + protocol.WORKBOOK, json={
            'name': protocol.WORKBOOK, 'definition': 'old',
            'scope': 'public'})
        self.m.put(URL + '/workbooks', status_code=403, json={
            'faultstring': 'Operation forbidden (insufficient permissions)'})
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'does not let this user update the public workbook '
                'tripleoplan.v1.*project that installed it.*openstack '
                'workbook delete tripleoplan.v1'):
            workbook.install_workbook(self.client, URL)

    def test_unchanged_is_not_rewritten(self):
        self.m.get(URL + '/workbooks/' + protocol.WORKBOOK, json={
            'name': protocol.WORKBOOK,
            'definition': protocol.workbook()})
        self.version()
        self.assertEqual(('unchanged', protocol.PROTOCOL),
                         workbook.install_workbook(self.client, URL))

    def test_actions_of_another_protocol(self):
        self.m.get(URL + '/workbooks/' + protocol.WORKBOOK, json={
            'name': protocol.WORKBOOK, 'definition': 'old'})
        self.m.put(URL + '/workbooks', json={'name': protocol.WORKBOOK})
        self.version(protocol=5)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'updated.*protocol 5'):
            workbook.install_workbook(self.client, URL)

    def test_no_mistral_configured_is_a_clear_error(self):
        wf = executions.Workflows(None, None, lambda line: None)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'No workflow \\(Mistral\\) endpoint'):
            wf.check()


class WorkbookTest(fakes.HttpTestCase):
    """The generated workbook hands each workflow's request to its action."""

    def test_every_workflow_passes_its_request_to_its_action(self):
        book = yaml.safe_load(protocol.workbook())
        self.assertEqual(protocol.WORKBOOK, book['name'])
        self.assertEqual(set(protocol.WORKFLOWS), set(book['workflows']))
        for name, (action, _, _) in protocol.WORKFLOWS.items():
            flow = book['workflows'][name]
            self.assertEqual(['request'], flow['input'])
            self.assertIn(protocol.TAG, flow['tags'])
            task = flow['tasks'][name]
            self.assertEqual(action, task['action'])
            self.assertEqual({'request': '<% $.request %>'}, task['input'])


class TestDeployTask(WorkflowsTest):
    """The client waits for the deploy task, not for the execution, which
    goes on following the stack."""

    def tasks(self, *states, published=None):
        self.m.post(URL + '/executions', status_code=201,
                    json={'id': 'e1', 'state': 'RUNNING'})
        self.workflow()
        return self.m.get(URL + '/executions/e1/tasks', [
            {'json': {'tasks': [{'id': 't', 'name': 'deploy', 'state': s,
                                 'state_info': 'Heat said no',
                                 'workflow_execution_id': 'e1',
                                 'published': json.dumps(published or {})}]
                      if s else []}} for s in states])

    def request(self):
        return protocol.request('deploy', container='p', environments=[])

    def test_the_deploy_task_result_while_the_execution_runs(self):
        seen = []
        lists = self.tasks(None, 'RUNNING', 'SUCCESS', published={
            'deploy': {'stack_id': 's', 'operation': 'CREATE'}})
        self.m.get(URL + '/executions/e1', json={'id': 'e1',
                                                 'state': 'RUNNING'})
        result, execution = self.wf.deploy(self.request(), 60,
                                           started=seen.append)
        self.assertEqual(({'stack_id': 's', 'operation': 'CREATE'}, 'e1'),
                         (result, execution))
        self.assertEqual(['e1'], seen)
        self.assertEqual(3, lists.call_count)
        # the deploy task's end only starts the stack operation: the
        # command says what started
        self.assertEqual(['Deploying p: started in Mistral (execution e1)'],
                         self.lines)

    def test_a_failed_deploy_task_is_heats_reason(self):
        self.tasks('ERROR')
        with self.assertRaisesRegex(exceptions.CommandError, 'Heat said no'):
            self.wf.deploy(self.request(), 60)
        self.assertRegex(self.lines[-1], r'^Deploying p: failed after '
                                         r'[0-9.]+ s$')

    def test_losing_sight_of_the_execution_is_unobserved(self):
        self.tasks('RUNNING')
        with self.assertRaises(executions.Unobserved):
            self.wf.deploy(self.request(), 5)
        self.m.get(URL + '/executions/e1/tasks', status_code=500)
        with self.assertRaises(executions.Unobserved):
            self.wf.deploy(self.request(), 5)


class TestPreview(WorkflowsTest):
    """The preview action runs on its own, synchronously, unsaved."""

    def request(self, **fields):
        return protocol.request('preview', container='p', environments=[],
                                **fields)

    def answer(self, state='SUCCESS', result=None, status=201, **kwargs):
        # What Mistral answers for an unsaved run: no id.
        return self.m.post(URL + '/action_executions', status_code=status,
                           json={'id': None, 'state': state,
                                 'name': protocol.action('preview'),
                                 'output': json.dumps({'result': result})},
                           **kwargs)

    def test_run_sync_and_unsaved(self):
        summary = {'operation': 'UPDATE', 'resources': {}}
        post = self.answer(result=summary)
        request = self.request(overlay=protocol.encode_overlay({
            'a.yaml': b'secret: 1\n'}))
        self.assertEqual(summary, self.wf.preview(request, 60))
        body = post.last_request.json()
        self.assertEqual('tripleoplan.preview', body['name'])
        self.assertEqual({'run_sync': True, 'save_result': False},
                         json.loads(body['params']))
        self.assertEqual({'request': request}, json.loads(body['input']))
        # No workbook needed: only the action is asked for.
        self.assertEqual(1, len(self.m.request_history))
        self.assertEqual(['Previewing the stack operation of plan p: done '
                          'in 0.0 s'], self.lines)

    def test_the_actions_failure_is_its_message(self):
        self.answer(state='ERROR', result='Plan p has no e.yaml; add it.')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    '^Plan p has no e.yaml; add it.$'):
            self.wf.preview(self.request(), 60)

    def test_an_action_mistral_does_not_know(self):
        self.m.post(URL + '/action_executions', status_code=400, json={
            'faultstring': 'Failed to find action [action_name='
                           'tripleoplan.preview]'})
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'has no action tripleoplan.preview.*pip install -U '
                '"tripleoplanclient\\[mistral\\]".*restart Mistral, then '
                'run "openstack overcloud workbook install"'):
            self.wf.preview(self.request(), 60)

    def test_mistral_giving_up_on_its_rpc_call(self):
        self.m.post(URL + '/action_executions', status_code=500, json={
            'faultstring': 'This rpc call "start_action" took longer than '
                           'configured 60 seconds.'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'raise rpc_response_timeout'):
            self.wf.preview(self.request(), 60)

    def test_a_request_mistral_would_refuse_as_too_large(self):
        post = self.answer(result={'operation': 'NONE'})
        big = self.request(overlay={'a': 'A' * 2 * 1024 * 1024})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'execution_field_size_limit_kb'):
            self.wf.preview(big, 60)
        self.assertEqual(0, post.call_count)
        self.wf.preview(big, 60, field_limit_kb=None)
        self.assertEqual(1, post.call_count)
        self.m.post(URL + '/action_executions', status_code=400, json={
            'faultstring': 'Field size limit exceeded [class=ActionExecution'
                           ', field=input, size=2049KB, limit=1024KB]'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'too large.*execution_field_size'):
            self.wf.preview(big, 60, field_limit_kb=None)

    def test_other_refusals_name_mistral(self):
        self.m.post(URL + '/action_executions', status_code=403, json={
            'faultstring': 'Forbidden'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Mistral at %s refused the preview: '
                                    'Forbidden' % URL):
            self.wf.preview(self.request(), 60)

    def test_mistral_unreachable(self):
        self.m.post(URL + '/action_executions',
                    exc=requests.exceptions.ConnectionError)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Mistral is unreachable at ' + URL):
            self.wf.preview(self.request(), 60)

    def test_no_mistral_configured(self):
        wf = executions.Workflows(None, None, self.lines.append)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'No workflow \\(Mistral\\) endpoint'):
            wf.preview(self.request(), 60)

    def test_mistral_not_answering_in_time(self):
        release = threading.Event()
        self.addCleanup(release.set)

        def slow(request, context):
            release.wait(10)
            return {'state': 'SUCCESS', 'output': '{}'}
        self.m.post(URL + '/action_executions', status_code=201, json=slow)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'did not answer within 0.05 s.*Nothing '
                                    'was changed'):
            self.wf.preview(self.request(), 0.05)

    def test_a_result_that_is_no_summary(self):
        self.answer(result='ok')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'returned no summary'):
            self.wf.preview(self.request(), 60)
