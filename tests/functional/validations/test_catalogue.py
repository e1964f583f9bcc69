"""tripleo-validations 16.0.0 and validations-common 1.9.0, as PyPI
installs them (their data files under ``<venv>/share/ansible``, in the
test venv: tools/run-tests.sh), installed from the client and run
unchanged: their roles and modules from the validations container,
mounted read-only in Mistral's sandbox.

The catalogue goes into a project of its own (its container is its
own: the other tests' validations and groups stay as they are). The
runs on a server need the admin project (the loopback lets only its
plans reach the sshd server): there the upstream playbooks are a
plan's own (``custom-validations/``) and the container gets only the
upstream roles and modules, which change nothing the others list.
"""

import json
import os
import shutil
import subprocess
import uuid

import yaml

from tests.functional import base
from tests.functional import servers
from tripleoplanclient.validations import shipped

PACKAGES = ('tripleo-validations', 'validations-common')
PLAYBOOKS = 'validation-playbooks'


def share():
    """The upstream tree as pip installed it beside this Python (an
    AssertionError saying how to install it)."""
    from importlib import metadata
    for name in PACKAGES:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise AssertionError(
                '%s is not installed in the test venv: pip install '
                '--no-deps tripleo-validations==16.0.0 '
                'validations-common==1.9.0 (tools/run-tests.sh does)'
                % name)
    import sys
    return os.path.join(sys.prefix, 'share', 'ansible')


def upstream_ids(package):
    """The playbook ids ``package``'s record installs."""
    from importlib import metadata
    return sorted(os.path.basename(str(f))[:-len('.yaml')]
                  for f in metadata.distribution(package).files
                  if '/%s/' % PLAYBOOKS in '/' + str(f) and
                  str(f).endswith('.yaml'))


class TestCatalogue(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.share = share()
        tag = uuid.uuid4().hex[:8]
        password = 'pw-%s' % uuid.uuid4().hex
        cls.project = cls.user = 'tpc-catalogue-%s' % tag
        cls.cli('project', 'create', '--domain', 'default', cls.project)
        cls.cli('user', 'create', '--domain', 'default', '--password',
                password, cls.user)
        cls.cli('role', 'add', '--project', cls.project, '--user',
                cls.user, 'member')
        cls.own = cls.cloud_env('catalogue', auth={
            'username': cls.user, 'password': password,
            'project_name': cls.project})
        cls.installed = json.loads(cls.cli(
            'overcloud', 'validation', 'install', '--from-package',
            PACKAGES[0], '--from-package', PACKAGES[1], '-f', 'json',
            env=cls.own))

    @classmethod
    def tearDownClass(cls):
        for args in (('user', 'delete', cls.user),
                     ('project', 'delete', cls.project)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def mine(self, *args, fail=False):
        return self.openstack(*args, env=self.own, fail=fail)

    def run_validations(self, *names):
        """``(exit status, row, stderr)`` of a run of ``names``."""
        return servers.run_validations(self.own, *names)

    def test_the_65_are_listed_with_their_labels(self):
        ids = upstream_ids(PACKAGES[0])
        self.assertEqual(65, len(ids))
        common = upstream_ids(PACKAGES[1])
        ours = [n[:-len('.yaml')] for n in shipped.files()
                if n != 'groups.yaml']
        self.assertEqual(len(set(ids + common + ours)),
                         self.installed['validations'])
        self.assertEqual(['the shipped validations',
                          '--from-package tripleo-validations',
                          '--from-package validations-common'],
                         self.installed['sources'])
        rows = {r['id']: r for r in json.loads(self.mine(
            'overcloud', 'validation', 'list', '-f', 'json')[0])}
        self.assertEqual([], [i for i in ids + common if i not in rows])
        # validations-common 1.9.0's verify-package names a group that is
        # not: listed, not run
        self.assertEqual(['verify-package'], [
            i for i in ids + common if rows[i]['problem']])
        self.assertIn('unknown group(s) pre-ugrade',
                      rows['verify-package']['problem'])
        for vid in ids:
            with open(os.path.join(self.share, PLAYBOOKS,
                                   vid + '.yaml')) as f:
                meta = yaml.safe_load(f)[0]['vars']['metadata']
            self.assertEqual(
                (meta['name'].strip(), meta.get('groups') or [],
                 meta.get('categories') or [], meta.get('products') or []),
                (rows[vid]['name'], rows[vid]['groups'],
                 rows[vid]['categories'], rows[vid]['products']), vid)
        # validations-common's check-disk-space overrides ours (a later
        # source wins)
        self.assertEqual('Verify server fits the disk space requirements',
                         rows['check-disk-space']['name'])

    def test_a_second_install_writes_nothing(self):
        again = json.loads(self.mine(
            'overcloud', 'validation', 'install', '--from-package',
            PACKAGES[0], '--from-package', PACKAGES[1], '-f', 'json')[0])
        self.assertEqual(([], self.installed['unchanged'] +
                          len(self.installed['written'])),
                         (again['written'], again['unchanged']))
        # the roles and modules are there, in the upstream layout
        listed = json.loads(self.mine(
            'object', 'list', 'tripleo-validations', '--prefix', 'library/',
            '-f', 'json')[0])
        self.assertIn('library/validations_read_ini.py',
                      [o['Name'] for o in listed])

    def test_a_run_uses_the_containers_roles(self):
        _, run, err = self.run_validations('no-op', 'check-ram',
                                           'undercloud-disk-space')
        self.assertEqual(['no-op: PASSED'], run['validations'][:1], err)
        for done in run['validations'][1:]:
            self.assertRegex(done, ': (PASSED|FAILED)$', run['message'])
        # without its role in the container, the same playbook cannot
        # run: Ansible's own words
        subprocess.run(['openstack', 'object', 'delete',
                        'tripleo-validations',
                        'roles/no_op/tasks/main.yml'], env=self.own,
                       check=True, capture_output=True)
        try:
            rc, run, _ = self.run_validations('no-op')
            self.assertEqual((1, ['no-op: ERROR']), (rc, run['validations']))
            self.assertIn("the role 'no_op' was not found", run['message'])
        finally:
            self.mine('overcloud', 'validation', 'install',
                      '--from-package', PACKAGES[0], '--from-package',
                      PACKAGES[1])

    def test_a_bad_source_is_refused_with_nothing_written(self):
        tree = os.path.join(self.tmp, 'bad')
        os.makedirs(os.path.join(tree, 'roles'))
        os.symlink('/etc', os.path.join(tree, 'roles', 'etc'))
        base.write_tree(tree, {'groups.yaml': 'x: [{description: X}]\n'})
        _, err = self.mine('overcloud', 'validation', 'install', '--from',
                           tree, fail=True)
        self.assertIn('roles/etc is a link out of the directory', err)
        _, err = self.mine('overcloud', 'validation', 'install',
                           '--from-package', 'no-such-validations', fail=True)
        self.assertIn('no such distribution', err)
        rows = json.loads(self.mine('overcloud', 'validation', 'list', '-f',
                                    'json')[0])
        self.assertNotIn('x', {g for r in rows for g in r['groups']})


SERVER = 'overcloud-controller-0'
STACK = '''heat_template_version: rocky
outputs:
  RoleNetHostnameMap:
    value: {Controller: {ctlplane: [%s]}}
  RoleNetIpMap:
    value: {Controller: {ctlplane: ['127.0.0.1']}}
''' % SERVER
# upstream playbooks on the undercloud and the servers
ON_SERVERS = ('check-kernel-version', 'check-rsyslog')


class TestCatalogueOnServers(servers.DeployedPlanTest):

    PREFIX = 'catalogue'

    @classmethod
    def setUpClass(cls):
        env = base.loopback_env()
        servers.required_port(env)
        tree = share()
        cls.TEMPLATES = {'overcloud.yaml': STACK,
                         'roles_data.yaml': '- name: Controller\n'}
        for vid in ON_SERVERS:
            with open(os.path.join(tree, PLAYBOOKS, vid + '.yaml')) as f:
                cls.TEMPLATES['custom-validations/%s.yaml' % vid] = f.read()
        super().setUpClass()

    @classmethod
    def install_validations(cls):
        # the upstream roles and modules only (no playbook, no group of
        # theirs: the other tests' lists stay as they are)
        support = os.path.join(cls.tmp, 'support')
        for top in ('roles', 'library'):
            shutil.copytree(os.path.join(share(), top),
                            os.path.join(support, top), symlinks=False)
        cls.cli('overcloud', 'validation', 'install', '--from', support)

    def test_upstream_playbooks_target_the_undercloud_and_the_servers(self):
        _, run, err = self.run_validations(*ON_SERVERS)
        kept = {vid: json.loads(self.swift.get(
            'tripleo-validations-results', '%s/%s.json' % (run['run'], vid)))
            for vid in ON_SERVERS}
        # hosts: all: the undercloud and the plan's server, each checked
        self.assertEqual({'undercloud', SERVER},
                         set(kept['check-rsyslog']['stats']), err)
        # not Red Hat here: its checks are skipped, on each host
        self.assertEqual('PASSED', kept['check-rsyslog']['status'])
        # not an el8 kernel here: a verdict on each host, with the role's
        # own message
        self.assertEqual(('FAILED', [SERVER, 'undercloud']), (
            kept['check-kernel-version']['status'],
            kept['check-kernel-version']['failed_hosts']), err)
        self.assertIn('does not match configured kernel_version',
                      kept['check-kernel-version']['failures'][0]['msg'])
