"""A real undercloud: Keystone in front of Swift, Heat and Mistral.

The admin deploys a small plan; a user of another project and a user with
only the ``reader`` role in the admin's project then try everything
through the real CLI. The record names who acted; no token or password
lands where it does not belong; Keystone refusing or missing is a clear
error. (Tokens that expire during a long deploy: test_deploy_tht, run
with 120 s tokens.)
"""

import json
import os
import re
import subprocess
import time
import uuid

import yaml

from tests.functional import base
from tests.functional import deploy_base

# every service's INFO log of this run
REFUSED = r'does not exist|not allowed|[Nn]ot [Ff]ound|refused'


class TestKeystone(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        assert cls.session is not None, 'the services run without Keystone'
        tag = uuid.uuid4().hex[:8]
        cls.password = 'pw-%s' % uuid.uuid4().hex
        cls.other_project = 'tpc-other-%s' % tag
        cls.other_user = 'tpc-other-%s' % tag
        cls.reader = 'tpc-reader-%s' % tag
        cls.cli('project', 'create', '--domain', 'default',
                cls.other_project)
        for user, project, role in ((cls.other_user, cls.other_project,
                                     'member'),
                                    (cls.reader, 'admin', 'reader')):
            cls.cli('user', 'create', '--domain', 'default', '--password',
                    cls.password, user)
            cls.cli('role', 'add', '--project', project, '--user', user,
                    role)
        cls.other_env = cls.cloud_env('other', auth={
            'username': cls.other_user, 'password': cls.password,
            'project_name': cls.other_project})
        cls.reader_env = cls.cloud_env('reader', auth={
            'username': cls.reader, 'password': cls.password})
        # the admin's plan, deployed with a token we know (v3token cloud)
        cls.token = cls.session.get_token()
        cls.token_env = cls.cloud_env('bytoken', auth_type='v3token', auth={
            'username': None, 'password': None, 'user_domain_name': None,
            'token': cls.token})
        cls.plan = 'walls-%s' % tag
        cls.templates = base.write_tree(os.path.join(cls.tmp, 't'),
                                        deploy_base.TEMPLATES)
        cls.outputs = [cls.cli(
            'overcloud', 'deploy', '--stack', cls.plan, '--templates',
            cls.templates, '-e', os.path.join(cls.templates, 'registry.yaml'),
            '-f', 'json', env=cls.token_env)]

    @classmethod
    def tearDownClass(cls):
        for args in (('stack', 'delete', '-y', '--wait', cls.plan),
                     ('overcloud', 'plan', 'delete', '-y', cls.plan),
                     ('user', 'delete', cls.other_user, cls.reader),
                     ('project', 'delete', cls.other_project)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def history(self, plan, env=None):
        out, _ = self.openstack('overcloud', 'plan', 'show-history', plan,
                                '-f', 'json', env=env or self.env)
        return json.loads(out)

    def refused(self, env, *args, pattern=REFUSED):
        out, err = self.openstack(*args, fail=True, env=env)
        self.assertRegex(err, pattern)
        self.assert_not_done(out, 'REFUSED')
        return err

    # -- who acted -------------------------------------------------------

    def test_each_step_names_the_keystone_user_and_project(self):
        rows = self.history(self.plan)
        self.assertEqual([('admin', 'admin')] * len(rows),
                         [(r['user'], r['project']) for r in rows])
        self.assertEqual(['create', 'deploy'], [r['action'] for r in rows])
        mine = 'mine-%s' % uuid.uuid4().hex[:8]
        self.openstack('overcloud', 'plan', 'create', mine, '--templates',
                       self.templates, '--no-render', env=self.other_env)
        try:
            row, = self.history(mine, env=self.other_env)
            self.assertEqual((self.other_user, self.other_project),
                             (row['user'], row['project']))
            # and the wall stands the other way too
            out, _ = self.openstack('overcloud', 'plan', 'list', '-f',
                                    'value', '-c', 'Plan')
            self.assertNotIn(mine, out.split())
        finally:
            self.openstack('overcloud', 'plan', 'delete', '-y', mine,
                           env=self.other_env)

    # -- projects are walls ----------------------------------------------

    def test_another_project_can_neither_see_nor_touch_the_plan(self):
        before = self.snapshot(self.plan)
        env = self.write('walls/e.yaml', 'parameter_defaults: {X: 1}\n')
        out, _ = self.openstack('overcloud', 'plan', 'list', '-f', 'value',
                                '-c', 'Plan', env=self.other_env)
        self.assertNotIn(self.plan, out.split())
        for args in (
                ('overcloud', 'plan', 'show-history', self.plan),
                ('overcloud', 'plan', 'export', self.plan, '--output-file',
                 os.path.join(self.tmp, 'walls.tar.gz')),
                ('overcloud', 'plan', 'amend', self.plan, '-e', env,
                 '--no-render'),
                ('overcloud', 'deploy', '--stack', self.plan, '-y'),
                ('overcloud', 'plan', 'delete', '-y', self.plan),
                ('overcloud', 'plan', 'capabilities', self.plan),
                ('overcloud', 'plan', 'parameters', 'show', self.plan),
                ('overcloud', 'plan', 'validate', self.plan),
                ('stack', 'show', self.plan)):
            self.refused(self.other_env, *args)
        execution = self.plan_record(self.plan)['history'][-1]['stack'][
            'execution']
        self.refused(self.other_env, 'workflow', 'execution', 'show',
                     execution)
        self.assertEqual(before, self.snapshot(self.plan))
        self.assertFalse(os.path.exists(os.path.join(self.tmp,
                                                     'walls.tar.gz')))
        stack = json.loads(self.openstack('stack', 'show', self.plan, '-f',
                                          'json')[0])
        self.assertEqual('CREATE_COMPLETE', stack['stack_status'])

    def test_a_reader_reads_and_every_write_is_refused(self):
        before = self.snapshot(self.plan)
        out, _ = self.openstack('overcloud', 'plan', 'list', '-f', 'value',
                                '-c', 'Plan', env=self.reader_env)
        self.assertIn(self.plan, out.split())
        rows = self.history(self.plan, env=self.reader_env)
        self.assertEqual(['create', 'deploy'], [r['action'] for r in rows])
        self.openstack('overcloud', 'plan', 'diff', self.plan, '--from', '1',
                       env=self.reader_env)

        archive = os.path.join(self.tmp, 'reader.tar.gz')
        self.openstack('overcloud', 'plan', 'export', self.plan,
                       '--output-file', archive, env=self.reader_env)
        self.assertTrue(os.path.getsize(archive))
        env = self.write('reader/e.yaml', 'parameter_defaults: {X: 1}\n')
        # a plan without stack, so that its delete gets as far as Swift
        bare = 'bare-%s' % uuid.uuid4().hex[:8]
        self.openstack('overcloud', 'plan', 'create', bare, '--templates',
                       self.templates, '--no-render')
        self.addCleanup(self.openstack, 'overcloud', 'plan', 'delete', '-y',
                        bare)
        bare_before = self.snapshot(bare)
        # The library's reads act as the reader: Heat lets it validate no
        # template; once a member had the plan validated, the answer kept
        # for the plan's content is the reader's too (it reads every file
        # of the plan anyway).
        show = ('overcloud', 'plan', 'parameters', 'show', self.plan, '-f',
                'json')
        self.refused(self.reader_env, *show,
                     pattern=r'Heat at \S+ does not let this user validate '
                             r'templates.*member')
        rows = self.openstack(*show)[0]
        self.assertEqual(json.loads(rows), json.loads(
            self.openstack(*show, env=self.reader_env)[0]))
        for args in (
                ('overcloud', 'plan', 'amend', self.plan, '-e', env,
                 '--no-render'),
                ('overcloud', 'deploy', '--stack', self.plan, '-y'),
                ('overcloud', 'plan', 'create', 'ro-%s' % bare,
                 '--templates', self.templates, '--no-render'),
                ('overcloud', 'plan', 'delete', '-y', bare)):
            self.refused(self.reader_env, *args, pattern=r'not allowed')
        self.assertEqual(before, self.snapshot(self.plan))
        self.assertEqual(bare_before, self.snapshot(bare))
        self.assertIsNone(self.swift.listing('ro-%s' % bare))

    # -- bad credentials --------------------------------------------------

    def test_a_refused_or_missing_keystone_is_a_clear_error(self):
        before = self.snapshot(self.plan)
        # a token of its own that the admin revokes
        self.session.invalidate()
        revoked = self.session.get_token()
        self.session.invalidate()
        cases = [
            (self.cloud_env('badpw', auth={'password': 'wrong'}),
             r'Keystone at \S+ refused the credentials of cloud "badpw" '
             r'\(user admin, project admin\).*Check'),
            (self.cloud_env('noproject', auth={'project_name': 'nosuch'}),
             r'refused the credentials of cloud "noproject" \(user admin, '
             r'project nosuch\)'),
            (self.cloud_env('down', auth={
                'auth_url': 'http://127.0.0.1:9/v3'}),
             r'Keystone is unreachable at http://127.0.0.1:9/v3 for cloud '
             r'"down".*check auth_url'),
            (self.cloud_env('revoked', auth_type='v3token', auth={
                'username': None, 'password': None,
                'user_domain_name': None, 'token': revoked}),
             r'does not accept the token of cloud "revoked".*expired or '
             r'was revoked')]
        self.openstack('token', 'revoke', revoked)
        for env, pattern in cases:
            for args in (('overcloud', 'plan', 'show-history', self.plan),
                         ('overcloud', 'plan', 'amend', self.plan, '-e',
                          self.write('bad/e.yaml', 'parameter_defaults: {}\n'),
                          '--no-render')):
                err = self.refused(env, *args, pattern=pattern)
                self.assertIn('Nothing was changed', err)
        self.assertEqual(before, self.snapshot(self.plan))

    # -- the cost of auth -------------------------------------------------

    def test_one_token_request_per_command(self):
        """keystoneauth's own debug lines (secrets redacted) count the
        client's requests to Keystone: one token, its catalog with it,
        and at most one look at the API version."""
        keystone = self.env['LOOPBACK_KEYSTONE_URL'].rstrip('/')
        root = keystone.rsplit('/v3', 1)[0]
        for args in (('overcloud', 'plan', 'show-history', self.plan),
                     ('overcloud', 'deploy', '--stack', self.plan, '-y')):
            _, err = self.openstack('--debug', *args)
            tokens = re.findall(r'Making authentication request to (\S+)',
                                err)
            self.assertEqual([keystone + '/auth/tokens'], tokens, args)
            calls = re.findall(r'REQ: curl -g -i -X (\w+) (\S+)', err)
            others = [(m, u) for m, u in calls if u.startswith(root)]
            self.assertLessEqual(len(others), 1, others)
            for secret in (base.admin_password(self.env), self.token):
                self.assertNotIn(secret, err)

    # -- secrets ----------------------------------------------------------

    def test_no_token_or_password_where_it_does_not_belong(self):
        passwords = list(yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords'].values())
        self.assertGreater(len(passwords), 0)
        secrets = [str(p) for p in passwords if len(str(p)) >= 8] + [
            self.token, self.password, base.admin_password(self.env)]
        # a redeploy and a dry run with the known token, their output too
        outputs = list(self.outputs)
        for args in (('overcloud', 'deploy', '--stack', self.plan, '-y'),
                     ('overcloud', 'update', '--stack', self.plan,
                      '--dry-run'),
                     ('overcloud', 'plan', 'show-history', self.plan),
                     ('overcloud', 'plan', 'parameters', 'show', self.plan,
                      '--all')):
            out, err = self.openstack(*args + ('-f', 'json'),
                                      env=self.token_env)
            outputs += [out, err]
        time.sleep(2)       # the follow task's last look, the logs' lines
        places = {'output': '\n'.join(outputs)}
        listing = self.swift.listing(self.plan)
        places['record'] = '\n'.join(
            self.swift.get(self.plan, name).decode('utf-8', 'replace')
            for name in listing if name.startswith('user-environments/'))
        # the project's last 1000 executions and action executions (the
        # newest first: a long-lived Mistral has more), input and output,
        # as Mistral's API gives them; the deploy's as the CLI shows
        mistral = base.Swift(self.env['LOOPBACK_MISTRAL_URL'], self.session)
        for what in ('executions', 'action_executions'):
            status, _, body = mistral.request(
                'GET', '%s?limit=1000&sort_keys=created_at&sort_dirs=desc'
                '&include_output=true' % what)
            self.assertEqual(200, status)
            places[what] = body.decode()
        self.assertIn(self.plan, places['executions'])
        execution = self.plan_record(self.plan)['history'][-1]['stack'][
            'execution']
        for what in ('show', 'input show', 'output show'):
            places['execution %s' % what] = self.openstack(
                'workflow', 'execution', *what.split() + [execution])[0]
        for var in base.SERVICE_LOGS:
            with open(self.env[var], errors='replace') as f:
                places[var] = f.read()
        for where, text in places.items():
            for secret in secrets:
                self.assertNotIn(secret, text, 'a secret in %s' % where)
        # the check can fail: the secrets are where they belong
        self.assertTrue(re.search(re.escape(passwords[0]), self.swift.get(
            self.plan, 'plan-environment.yaml').decode()))
