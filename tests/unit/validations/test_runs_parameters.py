"""A run given extra vars, a limit, labels and a skiplist, from its
request to its kept results (ansible-playbook for real), on stateful
fake Swift containers."""

import json

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import results
from tripleoplanclient.validations import runner
from tripleoplanclient.validations import runs

GROUPS = b'prep: [{description: The undercloud}]\n'
SECRET = 'hunter2-sekrit'


def playbook(task, extra='', categories='[]'):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: N, description: d, groups: [prep], '
            'categories: %s}\n%s  tasks:\n    - %s\n' % (
                categories, extra, task)).encode()


def request(**fields):
    return dict({'names': None, 'group': None, 'plan': None}, **fields)


class TestRunParameters(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        self.swift_info(bulk=False)
        self.installed.store('groups.yaml', GROUPS)
        self.installed.store('ram.yaml', playbook(
            'assert: {that: "min_ram | int >= 8", fail_msg: "too small"}',
            '    min_ram: 4\n', categories='[hardware]'))
        self.installed.store('login.yaml', playbook(
            'fail: {msg: "refused {{ db_password }} of {{ db_user }}"}'))
        self.installed.store('other.yaml', playbook('debug: {}'))
        self.inputs = {'endpoints': {}}

    def run_them(self, run_id, **fields):
        given = fields.get('extra_vars')
        run, chosen = runs.start(self.store, request(**fields), run_id)
        return runs.execute(self.store, run, chosen, self.inputs.get, 120,
                            extra_vars=given)

    def test_an_extra_var_changes_the_verdict_and_is_kept(self):
        done = self.run_them('r1', names=['ram'])
        self.assertEqual('FAILED', done['status'])
        done = self.run_them('r2', names=['ram'],
                             extra_vars={'min_ram': '16'})
        self.assertEqual('PASSED', done['status'])
        kept = json.loads(self.kept.objects['r2/run.json'][0])
        self.assertEqual({'min_ram': '16'}, kept['extra_vars'])

    def test_a_secret_extra_var_is_masked_in_all_that_is_kept(self):
        done = self.run_them('r3', names=['login'], extra_vars={
            'db_password': SECRET, 'db_user': 'admin'})
        self.assertEqual('FAILED', done['status'])
        self.assertIn('refused *** of admin',
                      done['validations'][0]['message'])
        kept = b''.join(data for data, _ in self.kept.objects.values())
        self.assertIn(b'refused *** of admin', kept)
        self.assertNotIn(SECRET.encode(), kept)
        self.assertNotIn(SECRET, json.dumps(done))
        self.assertEqual({'db_password': '***', 'db_user': 'admin'},
                         done['extra_vars'])

    def test_a_skiplist_skips_with_its_reason(self):
        done = self.run_them('r4', names=['ram', 'other'], skiplist={
            'ram': {'hosts': 'all', 'reason': 'known small', 'lp': None},
            'other': {'hosts': 'h9', 'reason': 'not there'}})
        self.assertEqual('PASSED', done['status'])
        self.assertEqual(
            [('SKIPPED', 'skipped (skiplist): known small'),
             ('PASSED', None)],
            [(v['status'], v['message']) for v in done['validations']])
        self.assertEqual({'hosts': ['h9'], 'reason': 'not there',
                          'lp': None}, done['skiplist']['other'])

    def test_the_limit_reaches_ansible(self):
        done = self.run_them('r5', names=['other'], limit='localhost')
        self.assertEqual('PASSED', done['status'])
        # a validation none of whose hosts is left: skipped, not passed
        done = self.run_them('r6', names=['other'], limit='nowhere')
        self.assertEqual(('SKIPPED', 'none of its hosts is in --limit '
                          'nowhere'), (done['validations'][0]['status'],
                                       done['validations'][0]['message']))
        self.assertEqual('nowhere', done['limit'])
        done = self.run_them('r6b', names=['other'], skiplist={
            'other': {'hosts': 'localhost'}})
        self.assertEqual('SKIPPED', done['validations'][0]['status'])
        self.assertIn('all,localhost,!localhost',
                      done['validations'][0]['message'])

    def test_by_category_any_of_the_labels(self):
        run, chosen = runs.start(self.store, request(
            categories=['hardware']), 'r7')
        self.assertEqual(['ram'], [v['id'] for v in chosen])
        self.assertEqual(['hardware'], run['categories'])
        run, chosen = runs.start(self.store, request(
            group='prep', categories=['hardware']), 'r8')
        self.assertEqual(['login', 'other', 'ram'],
                         [v['id'] for v in chosen])

    def test_bad_input_is_refused_with_nothing_written(self):
        for fields, message in (
                ({'extra_vars': {'tripleoplan_plan': 'x'}}, 'run\'s own'),
                ({'limit': '@/etc/hosts'}, '--limit'),
                ({'skiplist': {'ram': {'hosts': 'a b'}}}, 'not a host'),
                ({'categories': 'hardware'}, 'must list names'),
                ({'names': None, 'products': ['none']},
                 'No validation in product none')):
            fields.setdefault('names', ['ram'])
            with self.assertRaisesRegex(exceptions.CommandError, message):
                runs.start(self.store, request(**fields), 'r9')
        self.assertEqual({}, self.kept.objects)
