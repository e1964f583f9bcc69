"""Parameters and targets of validation runs through the real CLI, run by
ansible-playbook in the loopback Mistral's executor: an extra var
changes a verdict, a secret one is masked in everything a user can read
back, ``--limit`` runs on one server of two (the loopback's sshd at
127.0.0.1 and 127.0.0.2), a skiplist skips a validation and a server,
``show`` / ``show parameter --download`` give a vars file a run takes,
``group list`` and ``list --category`` count and filter.
"""

import json
import os
import uuid

import yaml

from tests.functional import base
from tests.functional import servers

HOSTS = ['overcloud-controller-0', 'overcloud-controller-1']
STACK = '''heat_template_version: rocky
outputs:
  RoleNetHostnameMap:
    value: {Controller: {ctlplane: [%s, %s]}}
  RoleNetIpMap:
    value: {Controller: {ctlplane: ['127.0.0.1', '127.0.0.2']}}
''' % tuple(HOSTS)
SECRET = 'pw-%s' % uuid.uuid4().hex
CATEGORY = 'paramtest-%s' % uuid.uuid4().hex[:6]


def playbook(name, tasks, hosts='localhost', play_vars='', more=''):
    return ('- hosts: %s\n  gather_facts: false\n  vars:\n    metadata:\n'
            '      name: %s\n      description: A test\'s own.\n'
            '      groups: [prep]\n      categories: [%s]\n%s%s'
            '  tasks:\n%s' % (hosts, name, CATEGORY, more, play_vars, tasks))


class TestValidationParameters(servers.DeployedPlanTest):

    PREFIX = 'parameters'
    TEMPLATES = {
        'overcloud.yaml': STACK,
        'roles_data.yaml': '- name: Controller\n',
        'custom-validations/param-min-ram.yaml': playbook(
            'Enough RAM', '    - assert:\n        that: min_ram | int >= 8\n'
            '        fail_msg: "{{ min_ram }} MB is too little"\n',
            play_vars='    min_ram: 4\n'),
        'custom-validations/param-login.yaml': playbook(
            'Database login', '    - fail:\n        msg: "refused '
            '{{ db_user }} with {{ db_password }}"\n',
            play_vars='    db_user: admin\n    db_password: changeme\n'),
        'custom-validations/param-where.yaml': playbook(
            'Where it runs', '    - command: id -un\n', hosts='overcloud',
            more='      requires: [inventory]\n'),
    }

    @classmethod
    def setUpClass(cls):
        env = base.loopback_env()
        servers.required_port(env, ('127.0.0.1', '127.0.0.2'))
        super().setUpClass()

    def kept(self, run_id, name):
        return json.loads(self.swift.get('tripleo-validations-results',
                                         '%s/%s' % (run_id, name)))

    def test_an_extra_var_changes_the_verdict(self):
        rc, run, _ = self.run_validations('param-min-ram')
        self.assertEqual((1, 'FAILED'), (rc, run['status']))
        self.assertIn('4 MB is too little', run['message'])
        rc, run, err = self.run_validations('param-min-ram', '--extra-vars',
                                            'min_ram=16')
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual({'min_ram': '16'},
                         self.kept(run['run'], 'run.json')['extra_vars'])

    def test_a_secret_extra_var_is_masked_wherever_it_is_read(self):
        path = self.write('secret-vars.yaml', 'db_password: %s\n'
                          'db_user: operator\n' % SECRET)
        rc, run, err = self.run_validations(
            'param-login', '--extra-vars-file', path)
        self.assertEqual((1, 'FAILED'), (rc, run['status']))
        self.assertIn('refused operator with ***', run['message'])
        self.assertIn('refused operator with ***', err)
        shown, _ = self.openstack('overcloud', 'validation', 'show',
                                  run['run'], '-f', 'json')
        self.assertIn('refused operator with ***',
                      json.loads(shown)['failures'][0])
        rows, _ = self.openstack('overcloud', 'validation', 'results',
                                 '--plan', self.plan, '-f', 'json')
        listing = self.swift.listing('tripleo-validations-results',
                                     prefix=run['run'] + '/')
        stored = [self.swift.get('tripleo-validations-results', n).decode()
                  for n in listing]
        self.assertEqual({'db_password': '***', 'db_user': 'operator'},
                         self.kept(run['run'], 'run.json')['extra_vars'])
        # Mistral keeps the run's workflow input: the secret is sealed
        kept_input, _ = self.openstack('workflow', 'execution', 'input',
                                       'show', run['run'])
        self.assertIn('sealed_vars', kept_input)
        for text in [json.dumps(run), err, shown, rows, kept_input] + stored:
            self.assertNotIn(SECRET, text)

    def test_limit_runs_on_one_server_of_two(self):
        rc, run, err = self.run_validations('param-where')
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual(HOSTS, sorted(self.kept(
            run['run'], 'param-where.json')['stats']))
        rc, run, err = self.run_validations('param-where', '--limit',
                                            HOSTS[1])
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual([HOSTS[1]], list(self.kept(
            run['run'], 'param-where.json')['stats']))
        self.assertEqual(HOSTS[1], self.kept(run['run'], 'run.json')['limit'])

    def test_a_skiplist_skips_a_validation_and_a_server(self):
        path = self.write('skiplist.yaml', yaml.safe_dump({
            'param-min-ram': {'hosts': 'all', 'reason': 'known small',
                              'lp': 'https://bugs.launchpad.net/x/+bug/1'},
            'param-where': {'hosts': HOSTS[0], 'reason': 'in repair'}}))
        rc, run, err = self.run_validations('param-min-ram', 'param-where',
                                            '--skiplist', path)
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual(['param-min-ram: SKIPPED', 'param-where: PASSED'],
                         run['validations'])
        self.assertIn('param-min-ram: SKIPPED (0.0 s): skipped (skiplist): '
                      'known small (https://bugs.launchpad.net/x/+bug/1)',
                      err)
        self.assertEqual([HOSTS[1]], list(self.kept(
            run['run'], 'param-where.json')['stats']))

    def test_show_and_downloaded_parameters_feed_a_run(self):
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    'param-login', '--plan', self.plan)
        self.assertEqual(
            ('param-login', 'Database login', ['prep'], [CATEGORY], 'plan',
             {'db_user': 'admin', 'db_password': '***'}),
            (shown['id'], shown['name'], shown['groups'],
             shown['categories'], shown['source'], shown['parameters']))
        path = os.path.join(self.tmp, 'downloaded-%s.yaml'
                            % uuid.uuid4().hex[:6])
        rows = self.openstack_json(
            'overcloud', 'validation', 'show', 'parameter', 'param-min-ram',
            'param-login', '--plan', self.plan, '--download', path)
        self.assertEqual(
            [('param-min-ram', 'min_ram', 4),
             ('param-login', 'db_password', '***'),
             ('param-login', 'db_user', 'admin')],
            [(r['validation'], r['parameter'], r['default']) for r in rows])
        with open(path) as f:
            found = yaml.safe_load(f)
        self.assertEqual({'min_ram': 4, 'db_user': 'admin',
                          'db_password': 'changeme'}, found)
        self.fail_with('exists: remove it', 'overcloud', 'validation',
                       'show', 'parameter', 'param-min-ram', '--plan',
                       self.plan, '--download', path)
        with open(path, 'w') as f:
            yaml.safe_dump(dict(found, min_ram=32), f)
        rc, run, err = self.run_validations('param-min-ram',
                                            '--extra-vars-file', path)
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)

    def test_group_list_and_list_by_category(self):
        installed = {g['group']: g for g in self.openstack_json(
            'overcloud', 'validation', 'group', 'list')}
        with_plan = {g['group']: g for g in self.openstack_json(
            'overcloud', 'validation', 'group', 'list', '--plan', self.plan)}
        self.assertEqual(installed['prep']['validations'] + 3,
                         with_plan['prep']['validations'])
        self.assertTrue(with_plan['prep']['description'])
        rows = self.openstack_json('overcloud', 'validation', 'list',
                                   '--plan', self.plan, '--category',
                                   CATEGORY)
        self.assertEqual(['param-login', 'param-min-ram', 'param-where'],
                         sorted(r['id'] for r in rows))
        self.assertEqual([[CATEGORY]] * 3, [r['categories'] for r in rows])
        # a validation none of whose hosts is in the limit: skipped
        rc, run, err = self.run_validations('--category', CATEGORY,
                                            '--limit', HOSTS[0])
        self.assertEqual(['param-login: SKIPPED', 'param-min-ram: SKIPPED',
                          'param-where: PASSED'],
                         sorted(run['validations']), err)
        self.assertIn('none of its hosts is in --limit %s' % HOSTS[0], err)
