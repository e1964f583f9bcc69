"""The deploy action's step (``mistral.stack_step``) on a stateful fake
Swift and a faked Heat: the step recorded before Heat is asked, whoever
the client; the outcomes known in Mistral written there; bad or busy
requests refused with nothing recorded."""

from osc_lib import exceptions

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tests.unit import small_plan
from tripleoplanclient.common import content
from tripleoplanclient.mistral import follow
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol

HEAT = fakes.HEAT
STACK_ID = fakes.STACK_ID
UPDATE = stack_step_base.UPDATE
HEAD_UPDATE = HEAT + '/stacks/' + STACK_ID


class TestStackStep(stack_step_base.StackStepTestCase):

    def test_a_gui_gets_the_step_on_record_before_heat_is_asked(self):
        fakes.stack_is(self.m, None)
        extra = b'parameter_defaults: {Extra: 1}\n'
        path = 'user-files/home/me/extra.yaml'
        self.swift.store(path, extra)
        md5 = content.md5(extra)
        answer = self.ask('deploy', container='p', add=[path],
                          tree={path: md5}, files={path: {
                              'source': '/home/me/extra.yaml', 'md5': md5}})
        step = answer['step']
        self.assertEqual(('deploy', 'IN_PROGRESS', 'CREATE'), (
            step['action'], step['outcome']['status'],
            step['stack']['operation']))
        self.assertEqual(['environments/env.yaml', path],
                         step['stack']['environments'])
        self.assertEqual(('CREATE', STACK_ID),
                         (answer['operation'], answer['stack_id']))
        rows, head = self.store.reader.history('p')
        self.assertEqual((step['id'], 'mistral action tripleoplan.deploy'),
                         (rows[-1]['id'], rows[-1]['command']))
        self.assertEqual('/home/me/extra.yaml',
                         head.state['files'][path]['source'])
        # the step object landed before Heat's create was asked
        self.assertEqual(step['id'], self.create_saw)

    def test_the_pre_hooks_run_is_recorded_in_the_step(self):
        fakes.stack_is(self.m, None)
        ran = [{'hook': 'pre', 'group': 'pre-deployment', 'run': 'r1',
                'status': 'PASSED'}]
        step = self.ask('deploy', container='p', validations=ran)['step']
        self.assertEqual(ran, step['validations'])
        rows, _ = self.store.reader.history('p')
        self.assertEqual((step['id'], ran),
                         (rows[-1]['id'], rows[-1]['validations']))

    def test_heat_refusing_is_the_steps_final_outcome(self):
        fakes.stack_is(self.m, None)
        self.m.post(HEAT + '/stacks', status_code=400, headers=fakes.JSON,
                    json={'code': 400, 'error': {'message': 'bad type'}})
        answer = self.ask('deploy', container='p')
        step = answer['step']
        self.assertEqual('FAILED', step['outcome']['status'])
        self.assertIn('Heat refused the stack create: bad type',
                      step['outcome']['reason'])
        self.assertEqual('FAILED', self.outcome(step['id'])['outcome'][
            'status'])
        # and the follow task has nothing to follow
        self.assertEqual({'done': True}, follow.follow(
            self.store, fakes.heat_client(), protocol.read(
                'deploy', protocol.request('deploy', container='p')),
            answer))

    def test_nothing_changed_is_recorded_here_without_heat(self):
        fakes.stack_is(self.m, None)
        first = self.ask('deploy', container='p')['step']
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'),
                       STACK_ID)
        self.store.writer.write_outcome('p', first['id'], {
            'status': 'SUCCESS'}, {
            'fingerprint': self.fingerprint(),
            'updated': '2024-05-01T12:00:00Z'})
        before = len(self.m.request_history)
        answer = self.ask('deploy', container='p')
        # the stack looked up once (its name, then its id), not again
        # after the commit
        self.assertEqual(2, len([
            r for r in self.m.request_history[before:]
            if r.method == 'GET' and '/stacks/p' in r.path]))
        self.assertEqual(('NONE', 'SUCCESS'), (
            answer['operation'], answer['step']['outcome']['status']))
        self.assertEqual(1, self.create.call_count)
        self.assertEqual('SUCCESS', self.outcome(answer['step']['id'])[
            'outcome']['status'])
        # --force asks Heat all the same
        self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        forced = self.ask('deploy', container='p', force=True)
        self.assertEqual('UPDATE', forced['operation'])

    def fingerprint(self):
        from tripleoplanclient.mistral import assembly
        from tripleoplanclient.mistral import objects
        _, listing = self.store.container.listing('p')
        return assembly.fingerprint(assembly.assemble(objects.PlanObjects(
            self.store, 'p', listing, objects.ContentCache()),
            fakes.SWIFT + '/p/', ['environments/env.yaml']))

    def test_update_adds_its_lifecycle_file_for_this_step_only(self):
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'),
                       STACK_ID)
        self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        step = self.ask('deploy', container='p', action='update',
                        stage='prepare')['step']
        self.assertEqual((UPDATE, [UPDATE, 'environments/env.yaml']), (
            step['lifecycle'], step['stack']['environments']))
        self.assertEqual(['environments/env.yaml'], step['environments'])

    def heat_update(self, **fields):
        """The environment files Heat merged for the stack update, the
        merged parameter_defaults the stack got, and the step."""
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'),
                       STACK_ID)
        self.m.put(HEAD_UPDATE, status_code=202)
        step = self.ask('deploy', container='p', action='update',
                        stage='prepare', **fields)['step']
        # Heat merges the environment files in its template validation
        # (deploy.merged), each over the ones before it.
        merge, update = [r for r in self.m.request_history if (
            r.method, r.path.rsplit('/', 1)[-1]) in (
                ('POST', 'validate'), ('PUT', STACK_ID))]
        urls = merge.json()['environment_files']
        return ([u[len(fakes.SWIFT + '/p/'):] for u in urls],
                update.json()['environment']['parameter_defaults'], step)

    def test_the_lifecycle_file_goes_before_the_plans_list(self):
        # As tripleoclient prepends it: the operator's -e files override
        # what the lifecycle file sets (here env.yaml's AdminPassword).
        lifecycle = b'parameter_defaults: {AdminPassword: lifecycle}\n'
        self.swift.store(UPDATE, lifecycle)
        heat, merged, step = self.heat_update(
            tree={UPDATE: content.md5(lifecycle)})
        self.assertEqual([layout.PLAN_ENVIRONMENT, UPDATE,
                          'environments/env.yaml'], heat)
        self.assertEqual('x', merged['AdminPassword'])
        self.assertEqual(heat[1:], step['stack']['environments'])
        self.assertEqual(['environments/env.yaml'], step['environments'])

    def test_a_lifecycle_file_in_the_plans_list_keeps_its_place(self):
        self.ask('plan_amend', container='p', add=[UPDATE])
        heat, _, step = self.heat_update()
        self.assertEqual([layout.PLAN_ENVIRONMENT, 'environments/env.yaml',
                          UPDATE], heat)
        self.assertEqual(heat[1:], step['stack']['environments'])

    def test_an_upgrade_to_a_new_release_moves_the_tree(self):
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'),
                       STACK_ID)
        self.m.put(HEAD_UPDATE, status_code=202)
        self.swift.store('new.yaml', b'y: 2\n')
        release = {'version': '19.0.0', 'digest': 'd19'}
        step = self.ask('deploy', container='p', action='upgrade',
                        templates='/tht19', release=release, tree={
                            'new.yaml': content.md5(b'y: 2\n'),
                            'old.yaml': None})['step']
        self.assertEqual('IN_PROGRESS', step['outcome']['status'])
        rows, head = self.store.reader.history('p')
        self.assertEqual((release, '/tht19'), (head.state['release'],
                                               head.state['templates']))
        tree = self.store.container.view('p', head.state['tree']).full()
        self.assertIn('new.yaml', tree)
        self.assertNotIn('old.yaml', tree)
        self.assertEqual('19.0.0', rows[-1]['templates'])

    def test_refused_with_nothing_recorded(self):
        before = dict(self.swift.objects)
        fakes.stack_is(self.m, None)
        for fields, message in (
                ({'environments': ['x.yaml']}, 'environments is worked out'),
                ({'action': 'rollback'}, 'action must be one of'),
                ({'action': 'upgrade', 'stage': 'prepare'},
                 'Stack p does not exist'),
                ({'stage': 'prepare'}, 'only for update and upgrade'),
                ({'remove': ['nope.yaml']}, 'nope.yaml not in its'),
                ({'tree': {'a.yaml': content.md5(b'a')}},
                 'Swift does not hold'),
                ({'plan_created': {'step': 1}}, 'plan_created must be'),
                ({'validations': [{'hook': 'post', 'group': 'g', 'run': 'r',
                                   'status': 'PASSED'}]},
                 'validations must be'),
                ({'validations': [{'hook': 'pre', 'group': 'g', 'run': 'r',
                                   'status': 'PASSED', 'text': 'x'}]},
                 'validations must be'),
                ({'validations': [{'hook': 'pre', 'group': 'g', 'run': 'r',
                                   'status': 'x' * 129}]},
                 'validations must be'),
                ({'release': '19.0.0'}, 'release must be {version')):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                self.ask('deploy', container='p', **fields)
            self.assertEqual(before, self.swift.objects)
        fakes.stack_is(self.m, small_plan.stack('UPDATE_IN_PROGRESS'),
                       STACK_ID)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'UPDATE_IN_PROGRESS'):
            self.ask('deploy', container='p')
        self.assertEqual(before, self.swift.objects)
