"""Issue 26 (1): no caller acts as another through our Mistral actions.

A deployer (a member of the admin project) starts a deploy that Heat takes
a while over; its workflow's follow task holds a trust. Meanwhile another
member of the same project, and a reader, call ``tripleoplan.follow``
themselves, as an action execution and in a workflow of their own, with
Mistral's ``X-Target-*`` headers naming a recording listener on 127.0.0.1
as the deployer's Keystone, Swift and Heat, and with what they can read
of the deployer's execution. The listener hears nothing, the deployer's
trust and follow task live on, and the outcome is recorded by the
deployer's own workflow once Heat is done.
"""

import base64
import http.server
import json
import os
import threading
import time
import uuid

from tests.functional import base
from tests.functional import deploy_base
from tripleoplanclient import protocol

WAIT = 75   # seconds Heat spends on the deployer's stack


class _Recorder(http.server.BaseHTTPRequestHandler):
    heard = []

    def _any(self):
        self.heard.append((self.command, self.path, dict(self.headers)))
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

    def log_message(self, *args):
        pass


class TestTrustTakeover(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        assert cls.session is not None, 'the services run without Keystone'
        tag = uuid.uuid4().hex[:8]
        cls.password = 'pw-%s' % uuid.uuid4().hex
        cls.users = {}
        for who, role in (('deployer', 'member'), ('member', 'member'),
                          ('reader', 'reader')):
            name = 'tpc-%s-%s' % (who, tag)
            cls.users[who] = name
            cls.cli('user', 'create', '--domain', 'default',
                    '--password', cls.password, name)
            cls.cli('role', 'add', '--project', 'admin', '--user', name,
                    role)
        cls.envs = {who: cls.cloud_env(who, auth={
            'username': name, 'password': cls.password})
            for who, name in cls.users.items()}
        cls.sessions = {who: cls.user_session(name)
                        for who, name in cls.users.items()}
        cls.listener = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                       _Recorder)
        threading.Thread(target=cls.listener.serve_forever,
                         daemon=True).start()
        cls.fake = 'http://127.0.0.1:%d' % cls.listener.server_port
        cls.plan = 'trust-%s' % tag
        cls.templates = base.write_tree(os.path.join(cls.tmp, 't'),
                                        deploy_base.TEMPLATES)
        slow = base.write_tree(os.path.join(cls.tmp, 'env'), {
            'slow.yaml': 'parameter_defaults: {Wait: %d}\n' % WAIT})
        out = cls.cli(
            'overcloud', 'deploy', '--stack', cls.plan, '--templates',
            cls.templates, '-e', os.path.join(cls.templates, 'registry.yaml'),
            '-e', os.path.join(slow, 'slow.yaml'), '--no-wait', '-f', 'json',
            env=cls.envs['deployer'])
        cls.started = time.monotonic()
        cls.step = json.loads(out)
        record = base.FunctionalTest.plan_record(cls, cls.plan)
        cls.execution = record['history'][-1]['stack']['execution']

    @classmethod
    def user_session(cls, name):
        from keystoneauth1.identity import v3
        from keystoneauth1 import session
        return session.Session(auth=v3.Password(
            auth_url=cls.env['LOOPBACK_KEYSTONE_URL'], username=name,
            password=cls.password, user_domain_id='default',
            project_name='admin', project_domain_id='default'))

    @classmethod
    def tearDownClass(cls):
        import subprocess
        cls.listener.shutdown()
        for args in (('stack', 'delete', '-y', '--wait', cls.plan),
                     ('overcloud', 'plan', 'delete', '-y', cls.plan),
                     ('user', 'delete') + tuple(cls.users.values())):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    # -- helpers ---------------------------------------------------------

    def mistral(self, who, method, path, body=None, headers=None,
                text=None):
        """(status, JSON or text) of a request to Mistral as ``who``."""
        sess = self.sessions[who]
        answer = sess.request(
            self.env['LOOPBACK_MISTRAL_URL'] + path, method,
            json=body, data=text, headers=headers, raise_exc=False)
        try:
            return answer.status_code, answer.json()
        except ValueError:
            return answer.status_code, answer.text

    def user_id(self, name):
        return self.session.get(
            self.env['LOOPBACK_KEYSTONE_URL'] + '/users?name=' +
            name).json()['users'][0]['id']

    def deployer_trusts(self):
        """The deployer's id and its trusts to Mistral's service user
        (Heat holds one of its own), as the admin sees them."""
        user, mistral = (self.user_id(self.users['deployer']),
                         self.user_id('mistral'))
        return user, [t for t in self.session.get(
            self.env['LOOPBACK_KEYSTONE_URL'] +
            '/OS-TRUST/trusts?trustor_user_id=' + user).json()['trusts']
            if t['trustee_user_id'] == mistral]

    def target_headers(self, who, deployer_id):
        """Mistral's X-Target-* headers: the deployer as the caller, the
        listener as its Keystone, Swift and Heat."""
        project = self.env['LOOPBACK_PROJECT_ID']
        body = {'token': {
            'user': {'id': deployer_id, 'name': self.users['deployer']},
            'project': {'id': project, 'name': 'admin'},
            'roles': [{'name': 'member'}, {'name': 'admin'}],
            'catalog': [{'type': kind, 'endpoints': [
                {'interface': 'public', 'url': self.fake + path}]}
                for kind, path in (('identity', '/v3'),
                                   ('object-store', '/v1/AUTH_' + project),
                                   ('orchestration', '/v1/' + project))]}}
        return {'X-Target-Auth-Uri': self.fake + '/v3',
                'X-Target-Auth-Token': self.sessions[who].get_token(),
                'X-Target-User-Id': deployer_id,
                'X-Target-Project-Id': project,
                'X-Target-Service-Catalog': base64.b64encode(
                    json.dumps(body).encode()).decode()}

    def wait_execution(self, who, execution, states, deadline=120):
        end = time.monotonic() + deadline
        while True:
            status, found = self.mistral(who, 'GET',
                                         '/executions/' + execution)
            self.assertEqual(200, status, found)
            if found['state'] in states or time.monotonic() > end:
                return found
            time.sleep(1)

    # -- the test --------------------------------------------------------

    def test_no_member_or_reader_can_use_the_deployers_trust(self):
        deployer_id, trusts = self.deployer_trusts()
        self.assertEqual(1, len(trusts), trusts)
        trust = trusts[0]['id']
        # What a member of the project can read of the deploy execution:
        # never the trust's id (its sealed form only).
        status, tasks = self.mistral('member', 'GET', '/executions/%s/tasks'
                                     % self.execution)
        self.assertEqual(200, status, tasks)
        status, execution = self.mistral('member', 'GET', '/executions/' +
                                         self.execution)
        self.assertEqual(200, status, execution)
        readable = json.dumps([tasks, execution])
        self.assertNotIn(trust, readable)
        published = json.loads([t for t in tasks['tasks']
                                if t['name'] == 'deploy'][0]['published'])
        # the sealed trust, and the id itself as an older workbook had it
        started = dict(published['deploy'], trust_id=trust)
        self.assertIsInstance(started['trust'], str)

        # no endpoint named: the actions take their catalog's, which the
        # X-Target-* headers would make the listener
        request = protocol.request('deploy', container=self.plan,
                                   environments=[], step=self.step['id'])
        follow_input = {'request': request, 'started': started}
        refused = []
        for who in ('member', 'reader'):
            for target in (True, False):
                headers = self.target_headers(who, deployer_id) \
                    if target else {}
                # the action on its own
                status, answer = self.mistral(
                    who, 'POST', '/action_executions', body={
                        'name': 'tripleoplan.follow',
                        'input': json.dumps(follow_input),
                        'params': json.dumps({'save_result': True,
                                              'run_sync': True})},
                    headers=headers)
                self.assertIn(status, (201, 200), answer)
                self.assertEqual('ERROR', answer['state'], answer)
                refused.append((target, answer['output']))
                # in a workflow of the caller's own
                name = 'tpc_follow_%s' % uuid.uuid4().hex[:8]
                status, made = self.mistral(
                    who, 'POST', '/workflows', headers={
                        'Content-Type': 'text/plain'}, text=(
                        'version: "2.0"\n%s:\n  input: [request, started]\n'
                        '  tasks:\n    follow:\n      action: '
                        'tripleoplan.follow request=<%% $.request %%> '
                        'started=<%% $.started %%>\n' % name))
                if status == 403:     # a reader may not create workflows
                    continue
                self.assertEqual(201, status, made)
                status, ex = self.mistral(who, 'POST', '/executions', body={
                    'workflow_name': name,
                    'input': json.dumps(follow_input)}, headers=headers)
                self.assertEqual(201, status, ex)
                ended = self.wait_execution(who, ex['id'],
                                            ('ERROR', 'SUCCESS'))
                self.assertEqual('ERROR', ended['state'], ended)
                refused.append((target, ended['state_info']))
                self.mistral(who, 'DELETE', '/executions/' + ex['id'])
                self.mistral(who, 'DELETE', '/workflows/' + name)
        # member: action and workflow, each with and without X-Target-*;
        # reader: the action both ways (Mistral lets it make no workflow)
        self.assertGreaterEqual(len(refused), 6)
        for target, text in refused:
            self.assertRegex(text, r'X-Target-\* headers' if target else
                             r'belongs to another workflow execution')
        self.assertEqual([], _Recorder.heard)
        # the deployer's trust and follow task live on, while Heat works
        self.assertLess(time.monotonic() - self.started, WAIT,
                        'the stack ended before the checks: raise WAIT')
        self.assertEqual(200, self.session.get(
            self.env['LOOPBACK_KEYSTONE_URL'] + '/OS-TRUST/trusts/' + trust,
            raise_exc=False).status_code)
        self.assertEqual('RUNNING', self.wait_execution(
            'deployer', self.execution, ('RUNNING',))['state'])

        # ... and record the outcome as the deployer's workflow, then close
        # the trust
        ended = self.wait_execution('deployer', self.execution,
                                    ('SUCCESS', 'ERROR'), deadline=WAIT * 3)
        self.assertEqual('SUCCESS', ended['state'], ended)
        record = self.plan_record(self.plan)
        last = record['history'][-1]
        self.assertEqual(('SUCCESS', 'mistral', self.users['deployer']), (
            last['outcome']['status'], last['outcome'].get('recorded_by'),
            last['user']))
        self.assertEqual([], self.deployer_trusts()[1])
        self.assertEqual([], _Recorder.heard)
