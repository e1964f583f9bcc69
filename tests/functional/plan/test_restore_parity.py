"""plan restore through the plan_restore workflow, as a GUI drives it
(``openstack workflow execution create``), next to the real CLI: the same
recorded step and the same files in Swift after it (small templates)."""

import uuid

from tests.functional import deploy_base

# What differs between two plans given the same steps by different
# clients: ids, times and the command line.
_SAME = ('action', 'environments', 'templates', 'objects', 'outcome',
         'user', 'project')
_SAME_STATE = ('environments', 'inputs', 'render', 'created', 'templates',
               'release')


class TestRestoreParity(deploy_base.DeployTest):

    def setUp(self):
        super().setUp()
        self.gui = 'resgui-%s' % uuid.uuid4().hex[:8]
        self.addCleanup(self.delete_gui)
        later = self.write('%s/later.yaml' % self.plan,
                           'parameter_defaults:\n  Message: later\n')
        # The same steps on both plans: create with one file, amend to
        # add another.
        for plan in (self.plan, self.gui):
            self.openstack('overcloud', 'plan', 'create', plan,
                           '--templates', self.templates, '-e', self.mine)
            self.openstack('overcloud', 'plan', 'amend', plan, '-e', later)

    def delete_gui(self):
        plan, self.plan = self.plan, self.gui
        try:
            self.delete_all()
        finally:
            self.plan = plan

    def in_tree(self, plan):
        """The plan's files and their MD5s: not its record, nor
        plan-environment.yaml (each plan's passwords are its own)."""
        return {n: m for n, m in self.swift.listing(plan).items()
                if not n.startswith('user-environments/')
                and n != 'plan-environment.yaml'}

    def test_a_gui_restore_records_the_cli_step(self):
        from tripleoplanclient import protocol

        restored = self.openstack_json('overcloud', 'plan', 'restore',
                                       self.plan, '--step', '1')
        self.assertEqual(('restore', 'SUCCESS', 1),
                         (restored['action'], restored['status'],
                          restored['removed']))
        _, shown = self.gui_workflow('plan_restore', protocol.request(
            'plan_restore', container=self.gui, step='1'))
        self.assertEqual('SUCCESS', shown['State'], shown.get('State info'))
        cli, gui = (self.plan_record(p) for p in (self.plan, self.gui))
        ours, theirs = cli['history'][-1], gui['history'][-1]
        self.assertEqual(restored['id'], ours['id'])
        for key in _SAME:
            self.assertEqual(ours.get(key), theirs.get(key), key)
        self.assertEqual(1, ours['restored']['step'])
        self.assertEqual(1, theirs['restored']['step'])
        self.assertIn('overcloud plan restore %s --step 1' % self.plan,
                      ours['command'])
        self.assertEqual('mistral action tripleoplan.plan_restore',
                         theirs['command'])
        for key in _SAME_STATE:
            self.assertEqual(cli.get(key), gui.get(key), key)
        # A user file's mark (record.origin) is keyed to its plan's name.
        self.assertEqual(*({p: dict(e, tag=None) for p, e in r[
            'files'].items()} for r in (cli, gui)))
        self.assertEqual(self.in_tree(self.plan), self.in_tree(self.gui))

    def test_a_bad_request_records_nothing(self):
        from tripleoplanclient import protocol

        before = self.plan_record(self.gui)['history']
        for step in ('9', 'no such step!'):
            _, shown = self.gui_workflow('plan_restore', protocol.request(
                'plan_restore', container=self.gui, step=step))
            self.assertEqual('ERROR', shown['State'])
            self.assertIn('step', shown.get('State info') or '')
        self.assertEqual(before, self.plan_record(self.gui)['history'])
