"""The validation actions' bodies: a run writes its start with the
caller's token and everything after on the trust's store (the run may
outlive the token). Swift faked over HTTP; ansible-playbook for real."""

import shutil

from tests.unit import fakes
from tripleoplanclient.mistral import validation_answers
from tripleoplanclient.record import plan_store
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import results
from tripleoplanclient.validations import runner


def swift_as(token):
    from swiftclient import client as swift_client
    return plan_store.PlanStore(lambda: swift_client.Connection(
        preauthurl=fakes.SWIFT, preauthtoken=token, retries=0), workers=1)


class TestRunWrites(fakes.HttpTestCase):

    def test_after_its_start_a_run_writes_through_the_trust(self):
        if runner.ansible_playbook() is None or not shutil.which('bwrap'):
            self.skipTest('ansible-core or bubblewrap is not installed')
        installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        installed.store('groups.yaml', b'prep: [{description: d}]\n')
        for name in ('one', 'two'):
            installed.store(name + '.yaml', (
                '- hosts: localhost\n  gather_facts: false\n  vars:\n'
                '    metadata: {name: N, description: d, groups: [prep]}\n'
                '  tasks:\n    - assert: {that: true}\n').encode())
        run = validation_answers.answer(
            'validation_run', swift_as('caller-token'), {
                'plan': None, 'names': ['one', 'two'], 'group': None,
                'timeout': 60}, {'endpoints': {}, 'project': 'p',
                                 'hidden_paths': [],
                                 'support_cache': None}.__getitem__,
            'run-9',
            later=swift_as('trust-token'))
        self.assertEqual('PASSED', run['status'])
        writes = [(r.path.split('/', 4)[-1],
                   r.headers['X-Auth-Token'].decode())
                  for r in self.m.request_history if r.method == 'PUT' and
                  results.CONTAINER in r.url]
        self.assertEqual(('run-9/run.json', 'caller-token'), writes[0])
        self.assertEqual({'trust-token'}, {t for _, t in writes[1:]})
        self.assertIn('run-9/two.json', [n for n, _ in writes[1:]])
        self.assertIn('run-9/run.json', kept.objects)


class TestInstallForOtherCallers(fakes.HttpTestCase):
    """The validation_install action (a GUI's): the shipped playbooks
    only, in the container's layout, the installed groups kept."""

    def test_the_shipped_playbooks_and_the_installed_groups(self):
        installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        installed.store('groups.yaml', b'upstream: [{description: U}]\n')
        found = validation_answers.answer('validation_install',
                                          swift_as('t'), {})
        self.assertEqual(8, found['validations'])
        self.assertIn('validation-playbooks/check-disk-space.yaml',
                      installed.objects)
        groups, _ = catalog.collect(swift_as('t'))
        self.assertEqual('U', groups['upstream'])
        self.assertIn('pre-deployment', groups)
