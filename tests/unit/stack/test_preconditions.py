"""The refusals before a stack step (``stack.preconditions``): each with
its message, in their order; and the client (``stack.operations``,
``stack.execution``) and the deploy action (``mistral.stack_step``)
refusing the same step with the same words, on a stateful fake Swift."""

import os
import unittest

from osc_lib import exceptions

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient import protocol
from tripleoplanclient.record import log
from tripleoplanclient.stack import execution
from tripleoplanclient.stack import operations
from tripleoplanclient.stack import preconditions

STACK_MISSING = ('Stack p does not exist: run "openstack overcloud deploy '
                 '--stack p" first. Nothing was changed.')
PLAN_MISSING = ('Plan p does not exist: run "openstack overcloud deploy '
                '--stack p --templates <dir> ..." first. Nothing was '
                'changed.')
NOTHING_TO_REMOVE = ('Plan p does not exist: nothing to remove an '
                     'environment from. Nothing was changed.')
NO_LIFECYCLE = ('The templates of plan p have no environments/lifecycle/'
                'upgrade-prepare.yaml: they do not support "upgrade --stage '
                'prepare". Nothing was changed.')
NEEDS_RENDER = ('Plan p needs a render before its stack can be deployed; '
                'run the command without --no-render. Nothing was changed.')
BUSY = 'Stack p is UPDATE_IN_PROGRESS'


def busy():
    raise exceptions.CommandError(BUSY)


class TestRefusal(unittest.TestCase):

    def message(self, *args, **facts):
        refused = preconditions.refusal('p', *args, **facts)
        return None if refused is None else str(refused)

    def test_each_refusal_and_its_message(self):
        for action, facts, message in (
                ('update', {'stack': False}, STACK_MISSING),
                ('upgrade', {'stack': False}, STACK_MISSING),
                ('deploy', {'idle': busy}, BUSY),
                ('deploy', {'created': False}, PLAN_MISSING),
                ('update', {'created': False, 'creates': True},
                 PLAN_MISSING),
                ('deploy', {'created': False, 'creates': True,
                            'removes': True}, NOTHING_TO_REMOVE),
                ('upgrade', {'stage': 'prepare', 'held': False},
                 NO_LIFECYCLE),
                ('deploy', {'renders': True, 'rendering': False},
                 NEEDS_RENDER)):
            self.assertEqual(message, self.message(action, **facts),
                             msg=(action, facts))

    def test_refusals_are_commanderrors(self):
        self.assertIsInstance(preconditions.refusal('p', 'update',
                                                    stack=False),
                              exceptions.CommandError)

    def test_a_step_that_may_go_on(self):
        for action, facts in (
                # A deploy creates the stack; an update needs it.
                ('deploy', {'stack': False}),
                ('update', {'stack': True, 'idle': lambda: None,
                            'created': True}),
                # A deploy --templates creates the plan.
                ('deploy', {'created': False, 'creates': True}),
                # THT 18: converge without its file is the plain list.
                ('update', {'stage': 'converge', 'held': False}),
                ('upgrade', {'stage': 'prepare', 'held': True}),
                ('deploy', {'renders': True, 'rendering': True}),
                ('deploy', {'renders': False, 'rendering': False})):
            self.assertIsNone(self.message(action, **facts),
                              msg=(action, facts))

    def test_a_fact_not_given_is_not_checked(self):
        self.assertIsNone(self.message('update'))
        self.assertIsNone(self.message('upgrade', stage='prepare'))
        self.assertIsNone(self.message('deploy', rendering=False))

    def test_the_order(self):
        asked = []

        def idle():
            asked.append('idle')
            busy()

        facts = {'stack': False, 'idle': idle, 'created': False,
                 'stage': 'prepare', 'held': False, 'renders': True,
                 'rendering': False}
        order = []
        for fact, message in (('stack', STACK_MISSING), ('idle', BUSY),
                              ('created', PLAN_MISSING),
                              ('held', NO_LIFECYCLE),
                              ('renders', NEEDS_RENDER)):
            order.append(self.message('upgrade', **facts))
            self.assertEqual(message, order[-1])
            facts.pop(fact)
        self.assertIsNone(self.message('upgrade', **facts))
        # The busy stack is asked about only once the stack is known to
        # exist where it must.
        self.assertEqual(['idle'], asked)

    def test_the_lifecycle_environment(self):
        held = []

        def holds(path):
            held.append(path)
            return path.endswith('-prepare.yaml')

        self.assertIsNone(preconditions.lifecycle_environment(
            'update', None, holds))
        self.assertEqual([], held)
        self.assertEqual(
            'environments/lifecycle/update-prepare.yaml',
            preconditions.lifecycle_environment('update', 'prepare', holds))
        self.assertIsNone(preconditions.lifecycle_environment(
            'upgrade', 'converge', holds))
        self.assertEqual(['environments/lifecycle/update-prepare.yaml',
                          'environments/lifecycle/upgrade-converge.yaml'],
                         held)


class TestBothSides(fakes.PlanTestCase):
    """The same step refused by the client, before it sends anything, and
    by the deploy action, with nothing recorded, in the same words."""

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        self.tht = os.path.dirname(self.write(
            'tht/overcloud.yaml', b'heat_template_version: rocky\n'))
        self.cmd(plan_commands.CreatePlan, 'p', '--templates', self.tht,
                 '--no-render')
        self.store.reader.history('p')      # the index mended now, not later
        self.before = dict(self.swift.objects)

    def services(self):
        # No renderer: as --no-render would have it.
        return operations.Services(
            self.store, fakes.heat_client(), fakes.HEAT, fakes.SWIFT, None,
            None, None, lambda line: None)

    def client(self, action, stage=None):
        """The client's refusal of the step, nothing sent."""
        files = files_mod.PlanFiles(self.tht)
        with self.assertRaises(exceptions.CommandError) as caught:
            prepared = operations.prepare(self.services(), action, 'p',
                                          files, stage=stage)
            execution.execute(self.services(), operations.Options(),
                              prepared)
        self.assertEqual(self.before, self.swift.objects)
        return str(caught.exception)

    def action(self, action, stage=None):
        """The deploy action's refusal of the step, nothing recorded."""
        with self.assertRaises(exceptions.CommandError) as caught:
            fakes.run_ours(self.store, protocol.request(
                'deploy', container='p', swift_url=fakes.SWIFT,
                heat_url=fakes.HEAT, action=action, stage=stage,
                render=False), 'tripleoplan.deploy')
        self.assertEqual(self.before, self.swift.objects)
        return str(caught.exception)

    def assertBothRefuse(self, message, action, stage=None):
        self.assertEqual((message, message), (
            self.client(action, stage), self.action(action, stage)))

    def test_no_stack_to_update(self):
        self.assertBothRefuse(STACK_MISSING, 'update')

    def test_a_busy_stack(self):
        fakes.stack_is(self.m, small_plan.stack('UPDATE_IN_PROGRESS',
                                                updated=None))
        self.assertBothRefuse(
            'Stack p is UPDATE_IN_PROGRESS: wait until it ends (openstack '
            'stack show p), then run the command again. Nothing was '
            'changed.', 'deploy')

    def test_no_lifecycle_file_to_prepare_with(self):
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE',
                                                updated=None))
        self.assertBothRefuse(NO_LIFECYCLE, 'upgrade', 'prepare')

    def test_a_render_needed_and_not_allowed(self):
        self.assertBothRefuse(NEEDS_RENDER, 'deploy')


class TestPlanNeverCreated(fakes.PlanTestCase):
    """A plan whose create step failed: its record exists, the plan
    does not."""

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        head = self.store.reader.head('p', required=False)
        self.store.writer.write_step('p', log.make_step(
            'create', {'environments': {'set': []}}, outcome='FAILED'),
            head)
        self.store.reader.history('p')      # the index mended now, not later
        self.before = dict(self.swift.objects)

    def refusals(self, action):
        services = operations.Services(
            self.store, fakes.heat_client(), fakes.HEAT, fakes.SWIFT, None,
            None, None, lambda line: None)
        found = []
        with self.assertRaises(exceptions.CommandError) as caught:
            operations.prepare(services, action, 'p',
                               files_mod.PlanFiles())
        found.append(str(caught.exception))
        with self.assertRaises(exceptions.CommandError) as caught:
            fakes.run_ours(self.store, protocol.request(
                'deploy', container='p', swift_url=fakes.SWIFT,
                heat_url=fakes.HEAT, action=action), 'tripleoplan.deploy')
        found.append(str(caught.exception))
        self.assertEqual(self.before, self.swift.objects)
        return found

    def test_a_deploy_of_it(self):
        self.assertEqual([PLAN_MISSING] * 2, self.refusals('deploy'))

    def test_an_update_without_a_stack_either(self):
        # The stack first, on both sides.
        self.assertEqual([STACK_MISSING] * 2, self.refusals('update'))
