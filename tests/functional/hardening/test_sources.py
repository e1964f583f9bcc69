"""Issue 26 (hardening II), finding 3, through the real ``openstack`` on
the Keystone undercloud: a plan's record never chooses a local file.

Another member of the operator's project writes a step straight into the
plan's container naming the operator's clouds.yaml as the source of user
files (and of ``plan-environment.yaml``); the operator's deploy reads none
of it, lists each one, and still sends the operator's own changed file.
A file the other member recorded with the CLI is theirs: the operator's
commands do not read it, theirs do.
"""

import json
import os
import subprocess
import uuid

from tests.functional import base

CANARY = 'tpc-canary-%s' % uuid.uuid4().hex


class TestRecordedSources(base.PlanTest):

    PREFIX = 'srcs'
    TEMPLATES = {'overcloud.yaml': 'heat_template_version: wallaby\n',
                 'roles_data.yaml': '- name: Controller\n'}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        assert cls.session is not None, 'the services run without Keystone'
        # The key that marks sources: this run's own, for every user.
        cls.env['XDG_CONFIG_HOME'] = os.path.join(cls.tmp, 'config')
        tag = uuid.uuid4().hex[:8]
        cls.member = 'tpc-srcs-%s' % tag
        password = 'pw-%s' % uuid.uuid4().hex
        for args in (('user', 'create', '--domain', 'default', '--password',
                      password, cls.member),
                     ('role', 'add', '--project', 'admin', '--user',
                      cls.member, 'member')):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           check=True, capture_output=True, timeout=600)
        cls.member_env = cls.cloud_env('srcs-member', auth={
            'username': cls.member, 'password': password})

    @classmethod
    def tearDownClass(cls):
        for args in (('stack', 'delete', '-y', '--wait', cls.plan),
                     ('user', 'delete', cls.member)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def plan_path(self, local):
        return 'user-files' + local

    def craft(self, entries):
        """A step PUT into the plan as the other member, in the operator's
        name, with the files and sources it likes."""
        from swiftclient import client as swift_client

        from tripleoplanclient.record import log
        from tripleoplanclient.record import plan_store

        token, _ = self.openstack('token', 'issue', '-f', 'value', '-c',
                                  'id', env=self.member_env)
        token = token.strip()
        plans = plan_store.PlanStore(lambda: swift_client.Connection(
            preauthurl=self.env['LOOPBACK_SWIFT_URL'], preauthtoken=token))
        head = plans.reader.head(self.plan)
        step = log.make_step('amend', {'files': entries})
        step.update(user='admin', project='admin')
        plans.writer.write_step(self.plan, step, head)

    def stored(self):
        """Every object of the plan: name -> bytes."""
        return {name: self.swift.get(self.plan, name)
                for name in self.swift.listing(self.plan)}

    def test_a_crafted_step_reads_no_local_file(self):
        images = self.write('op/images.yaml',
                            'parameter_defaults: {TpcImage: old}\n')
        self.openstack('overcloud', 'plan', 'amend', self.plan, '-e', images,
                       '--no-render')
        clouds = self.write('home/.config/openstack/clouds.yaml',
                            'clouds: {x: {auth: {password: %s}}}\n' % CANARY)
        crafted = {self.plan_path(clouds): clouds,
                   'plan-environment.yaml': clouds,
                   'user-files/x.yaml': clouds}
        self.craft({p: {'source': s, 'md5': '0' * 32}
                    for p, s in crafted.items()})
        passwords = self.swift.listing(self.plan)['plan-environment.yaml']
        self.write('op/images.yaml', 'parameter_defaults: {TpcImage: new}\n')

        out, err = self.openstack('overcloud', 'deploy', '--stack',
                                  self.plan, '--dry-run', '-f', 'json')
        self.assertNotIn(CANARY, out + err)
        self.assertIn('3 recorded source(s) not read', err)
        for path in crafted:
            self.assertIn('%s <- %s: ' % (path, clouds), err)
        self.assertIn('~ %s (its local source changed'
                      % self.plan_path(images), err)

        _, err = self.openstack('overcloud', 'deploy', '--stack', self.plan,
                                '--timeout', '10')
        self.assertIn('3 recorded source(s) not read', err)
        self.assertIn('%s: its local source changed since it was last read'
                      % self.plan_path(images), err)
        stored = self.stored()
        self.assertFalse([n for n, data in stored.items()
                          if CANARY.encode() in data])
        self.assertEqual(passwords, self.swift.listing(
            self.plan)['plan-environment.yaml'])
        self.assertIn(b'TpcImage: new', stored[self.plan_path(images)])

    def test_a_file_another_user_recorded_is_theirs(self):
        theirs = self.write('member/net.yaml',
                            'parameter_defaults: {TpcNet: 1}\n')
        path = self.plan_path(theirs)
        self.openstack('overcloud', 'plan', 'amend', self.plan, '-e', theirs,
                       '--no-render', env=self.member_env)
        self.write('member/net.yaml', 'parameter_defaults: {TpcNet: 2}\n')
        shown = self.openstack_json('overcloud', 'deploy', 'preview',
                                    '--stack', self.plan)
        _, err = self.openstack('overcloud', 'deploy', '--stack', self.plan,
                                '--dry-run')
        self.assertNotIn(path, shown['files_changed'])
        self.assertIn('%s <- %s: not recorded by this Keystone user'
                      % (path, theirs), err)
        out, err = self.openstack('overcloud', 'deploy', 'preview',
                                  '--stack', self.plan, '-f', 'json',
                                  env=self.member_env)
        self.assertIn(path, json.loads(out)['files_changed'])
        self.assertNotIn('%s <- ' % path, err)
