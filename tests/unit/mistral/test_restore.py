"""The plan_restore action's body (``mistral.restore``) on a stateful fake
Swift: the step it records for any caller, and every bad request or busy
stack refused with nothing written."""

from tests.unit import fakes
from tests.unit.record import past_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient import protocol


class RestoreTestCase(past_base.PastTestCase):

    def ask(self, store=None, **fields):
        fields.setdefault('container', 'p')
        return fakes.run_ours(store or self.store, protocol.request(
            'plan_restore', swift_url=fakes.SWIFT, **fields),
            protocol.action('plan_restore'))

    def newest(self):
        rows, _ = self.store.reader.history('p')
        return rows[-1]


class TestRequest(RestoreTestCase):

    def test_bad_fields_are_refused_by_name_and_nothing_is_written(self):
        self.story()
        fakes.stack_is(self.m, None)
        self.store.reader.history('p')    # the index mended, by a reader
        before = dict(self.swift.objects)
        for fields, named in (
                ({'step': {'id': 1}}, 'step must be a step number or id'),
                ({'step': True}, 'step must be a step number or id'),
                ({'step': '1; rm'}, 'step must be a step number or id'),
                ({'step': '9'}, 'has no step 9'),
                ({'step': 'abcdef012345'}, "no step with id 'abcdef012345'"),
                ({'step': '1', 'container': '../x'}, 'x')):
            with self.assertRaisesRegex(exceptions.CommandError, named):
                self.ask(**fields)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'missing step'):
            fakes.run_ours(self.store, dict(protocol.request(
                'plan_restore', container='p'), step=None),
                'tripleoplan.plan_restore')
        self.assertEqual(before, self.swift.objects)

    def test_refused_while_the_stack_works(self):
        self.story()
        fakes.stack_is(self.m, {'stack': {
            'id': 's1', 'stack_name': 'p',
            'stack_status': 'UPDATE_IN_PROGRESS',
            'creation_time': '2026-01-01T00:00:00Z'}}, stack_id='s1')
        self.store.reader.history('p')    # the index mended, by a reader
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'UPDATE_IN_PROGRESS.*Nothing was '
                                    'changed'):
            self.ask(step='1')
        self.assertEqual(before, self.swift.objects)


class TestStep(RestoreTestCase):

    def test_an_id_or_a_number_restores_as_the_caller_with_its_command(self):
        self.story()
        fakes.stack_is(self.m, None)
        first = self.store.reader.history('p')[0][0]
        store = fakes.plan_store(actor=lambda: {'user': 'gui-user',
                                                'project': 'demo'})
        answer = self.ask(store, step=first['id'], command=[
            'overcloud', 'plan', 'restore', 'p', '--step', first['id']])
        self.assertEqual({'step': 1, 'id': first['id']}, answer['restored'])
        self.assertEqual(('restore', 'SUCCESS', 4),
                         (answer['action'], answer['status'],
                          len(self.store.reader.history('p')[0])))
        row = self.newest()
        self.assertEqual(('gui-user', 'demo'), (row['user'], row['project']))
        self.assertEqual('openstack overcloud plan restore p --step %s'
                         % first['id'], row['command'])
        # A caller that sends no command line: the action is named.
        self.assertEqual(3, self.ask(step=3)['restored']['step'])
        self.assertEqual('mistral action tripleoplan.plan_restore',
                         self.newest()['command'])

    def test_a_snapshot_then_and_now_share_is_read_once(self):
        self.story()
        fakes.stack_is(self.m, None)
        self.store.reader.history('p')    # the index mended, by a reader
        self.swift.requests.clear()
        self.ask(step='1')
        self.assertEqual(1, len([r for r in self.swift.requests
                                 if r[0] == 'GET' and 'trees/' in r[1]]))

    def test_the_command_shows_the_actions_answer(self):
        self.story()
        fakes.stack_is(self.m, None)
        columns, values = self.cmd(plan_commands.RestorePlan, 'p',
                                   '--step', '1')
        self.assertEqual(plan_commands.STEP_COLUMNS, columns)
        shown = dict(zip(columns, values))
        self.assertEqual(('restore', 'SUCCESS', 2, 1),
                         (shown['action'], shown['status'],
                          shown['changed'], shown['removed']))
        # One request to Mistral: the action did the rest.
        self.assertEqual([('tripleoplan.plan_restore', 'sync')],
                         self.mistral.runs)
