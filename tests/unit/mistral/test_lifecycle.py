"""The plan_create, plan_amend, plan_list and plan_delete actions' bodies
(``mistral.lifecycle``) on a stateful fake Swift: what a GUI that wrote
the files itself gets, the same step as the CLI's, and every bad request
refused with nothing recorded."""

import yaml

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol
from tripleoplanclient.record import log
from tripleoplanclient.record import steps

TEMPLATE = (b'heat_template_version: rocky\nparameters:\n'
            b'  AdminPassword: {type: string, hidden: true}\n'
            b'  NtpServer: {type: string, default: pool.ntp.org}\n')
ENV = b'parameter_defaults: {NtpServer: ntp.example}\n'
SETUP = b'[metadata]\nname = tripleo-heat-templates\nversion = 18.0.0\n'


class LifecycleTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.tht = self.dir + '/tht'
        self.write('tht/overcloud.yaml', TEMPLATE)
        self.write('tht/setup.cfg', SETUP)
        self.write('tht/environments/ntp.yaml', ENV)

    def ask(self, name, **fields):
        return fakes.run_ours(self.store, protocol.request(
            name, swift_url=fakes.SWIFT, **fields), protocol.action(name))

    def steps(self):
        return sorted(n for n in self.swift.objects
                      if n.startswith(log.LOG_PREFIX))

    def as_a_gui(self, objects):
        """Write ``objects`` to Swift, as a GUI does, then create."""
        for name, data in objects.items():
            self.swift.store(name, data)
        return self.ask('plan_create', container='p',
                        environments=['environments/ntp.yaml'],
                        render=False)


class TestCreate(LifecycleTestCase):

    def test_a_gui_that_wrote_the_files_gets_the_cli_step(self):
        result = self.as_a_gui({'overcloud.yaml': TEMPLATE,
                                'setup.cfg': SETUP,
                                'environments/ntp.yaml': ENV})
        self.assertEqual(('create', 'SUCCESS', 4),
                         (result['action'], result['status'],
                          result['added']))
        gui = self.store.reader.head('p').state
        env = yaml.safe_load(self.swift.objects[layout.PLAN_ENVIRONMENT][0])
        self.assertEqual(['AdminPassword'], sorted(env['passwords']))
        self.assertEqual(25, len(env['passwords']['AdminPassword']))

        # The CLI's create of the same tree, in another container.
        cli_swift = fakes.FakeSwift(self.m, plan='c')
        files = files_mod.PlanFiles(self.tht)
        files.add_templates()
        files.add_environment(self.tht + '/environments/ntp.yaml')
        steps.create(self.store, 'c', files, fakes.Recorder(self.store),
                     render=False)
        cli = self.store.reader.head('c').state
        for key in ('environments', 'files', 'inputs', 'created', 'render'):
            self.assertEqual(cli[key], gui[key], key)
        self.assertEqual('18.0.0', gui['release']['version'])
        self.assertEqual(cli['release'], gui['release'])
        # The same tree but for the generated passwords.
        gui_tree = self.store.container.view('p', gui['tree']).full()
        cli_tree = self.store.container.view('c', cli['tree']).full()
        self.assertEqual(set(cli_tree), set(gui_tree))
        self.assertEqual(
            [layout.PLAN_ENVIRONMENT],
            [p for p in cli_tree if cli_tree[p] != gui_tree[p]])
        self.assertIn('overcloud.yaml', cli_swift.objects)

    def template_gets(self):
        """Plan objects other than plan-environment.yaml read so far."""
        return [r.path for r in self.m.request_history
                if r.method == 'GET' and r.path.startswith('/v1/') and
                r.path.count('/') > 3 and 'user-environments' not in
                r.path and not r.path.endswith('/plan-environment.yaml')]

    def test_the_cli_names_the_passwords_and_no_template_is_read(self):
        files = files_mod.PlanFiles(self.tht)
        files.add_templates()
        files.add_environment(self.tht + '/environments/ntp.yaml')
        self.assertEqual(['AdminPassword'],
                         steps.create_request(files)['passwords'])
        steps.create(self.store, 'p', files, fakes.Recorder(self.store),
                     render=False)
        env = yaml.safe_load(self.swift.objects[layout.PLAN_ENVIRONMENT][0])
        self.assertEqual(['AdminPassword'], sorted(env['passwords']))
        # The templates crossed the wire once: client to Swift.
        self.assertEqual([], self.template_gets())

    def test_names_given_are_generated_and_none_searched(self):
        # Trusted for which values to generate: the caller may write
        # plan-environment.yaml itself anyway.
        self.swift.store('overcloud.yaml', TEMPLATE)
        self.swift.store('environments/ntp.yaml', ENV)
        self.ask('plan_create', container='p', render=False,
                 environments=['environments/ntp.yaml'],
                 passwords=['RabbitCookie', 'Chosen', 'Chosen'])
        env = yaml.safe_load(self.swift.objects[layout.PLAN_ENVIRONMENT][0])
        self.assertEqual(['Chosen', 'RabbitCookie'], sorted(env['passwords']))
        self.assertRegex(env['passwords']['RabbitCookie'], '^[A-Z]{20}$')
        self.assertEqual([], self.template_gets())

    def test_bad_password_names_are_refused_and_nothing_recorded(self):
        self.swift.store('overcloud.yaml', TEMPLATE)
        before = dict(self.swift.objects)
        for names in ('AdminPassword', [''], [1], ['a\nb'], ['x' * 256],
                      ['P%d' % i for i in range(5001)]):
            with self.assertRaisesRegex(
                    exceptions.CommandError, 'Bad request for plan p: '
                    'passwords must list at most 5000 parameter names'):
                self.ask('plan_create', container='p', environments=[],
                         render=False, passwords=names)
            self.assertEqual(before, self.swift.objects)

    def test_recorded_as_the_action_when_no_command_is_given(self):
        self.as_a_gui({'overcloud.yaml': TEMPLATE,
                       'environments/ntp.yaml': ENV})
        rows, _ = self.store.reader.history('p')
        self.assertEqual('mistral action tripleoplan.plan_create',
                         rows[0]['command'])

    def test_a_file_swift_does_not_hold_is_refused_and_nothing_recorded(self):
        self.swift.store('overcloud.yaml', TEMPLATE)
        before = dict(self.swift.objects)
        for tree in ({'overcloud.yaml': content.md5(b'other')},
                     {'overcloud.yaml': content.md5(TEMPLATE),
                      'missing.yaml': content.md5(b'x')}):
            with self.assertRaisesRegex(
                    exceptions.CommandError,
                    'Swift does not hold what the request says was written '
                    'to (overcloud|missing).yaml'):
                self.ask('plan_create', container='p', tree=tree,
                         environments=[], render=False)
            self.assertEqual(before, self.swift.objects)

    def test_bad_requests_are_named_and_nothing_recorded(self):
        self.m.get(fakes.SWIFT + '/q', status_code=404)
        self.swift.store('overcloud.yaml', TEMPLATE)
        before = dict(self.swift.objects)
        md5 = content.md5(TEMPLATE)
        for fields, message in (
                ({'tree': ['overcloud.yaml']}, 'tree must map plan paths'),
                ({'tree': {layout.RECORD_DIR + 'log/x': md5}},
                 'holds the plan\'s record'),
                ({'tree': {'../../etc/passwd': md5}},
                 'not a plain relative path'),
                ({'files': {'overcloud.yaml': {'md5': md5}}},
                 'files overcloud.yaml must each be'),
                ({'container': 'bad/name'}, 'Plan name'),
                ({'environments': 'overcloud.yaml'},
                 'environments must list plan paths'),
                ({'inputs': ['roles_data.yaml']}, 'inputs must map'),
                ({'container': 'q'}, 'Plan q has no container')):
            fields = dict({'container': 'p', 'environments': [],
                           'render': False}, **fields)
            with self.assertRaisesRegex(exceptions.CommandError, message):
                self.ask('plan_create', **fields)
            self.assertEqual(before, self.swift.objects)

    def test_a_plan_that_exists_is_not_created_again(self):
        self.as_a_gui({'overcloud.yaml': TEMPLATE,
                       'environments/ntp.yaml': ENV})
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p already exists'):
            self.as_a_gui({})
        self.assertEqual(before, self.swift.objects)


class TestAmend(LifecycleTestCase):

    def setUp(self):
        super().setUp()
        self.as_a_gui({'overcloud.yaml': TEMPLATE,
                       'environments/ntp.yaml': ENV})

    def test_a_written_file_is_recorded_once(self):
        self.swift.store('user-files/x.yaml', b'{}\n')
        tree = {'user-files/x.yaml': content.md5(b'{}\n')}
        fields = dict(container='p', add=['user-files/x.yaml'], tree=tree,
                      files={'user-files/x.yaml': {
                          'source': '/home/stack/x.yaml',
                          'md5': tree['user-files/x.yaml']}})
        result = self.ask('plan_amend', **fields)
        self.assertEqual(('amend', 1, 0),
                         (result['action'], result['added'],
                          result['changed']))
        self.assertEqual(['environments/ntp.yaml', 'user-files/x.yaml'],
                         result['environments'])
        self.assertEqual('/home/stack/x.yaml', self.store.reader.head(
            'p').state['files']['user-files/x.yaml']['source'])
        count = len(self.steps())
        self.assertEqual('UNCHANGED', self.ask('plan_amend',
                                               **fields)['status'])
        self.assertEqual(count, len(self.steps()))

    def test_removing_what_is_not_listed_is_refused(self):
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'nope.yaml not in its environment '
                                    'list'):
            self.ask('plan_amend', container='p', remove=['nope.yaml'])
        self.assertEqual(before, self.swift.objects)

    def test_malformed_lists_are_refused(self):
        before = dict(self.swift.objects)
        for fields, message in (({'add': [1]}, 'add must list plan paths'),
                                ({'remove': 'x'},
                                 'remove must list plan paths')):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                self.ask('plan_amend', container='p', **fields)
            self.assertEqual(before, self.swift.objects)

    def test_a_file_not_written_is_refused_where_it_is_read(self):
        # The amend asks Swift nothing about the claimed files (its budget:
        # the index and one archive); an action that reads a file checks
        # it against the recorded MD5 and names it.
        self.ask('plan_amend', container='p', add=['user-files/y.yaml'],
                 tree={'user-files/y.yaml': content.md5(b'{}\n')})
        head = self.store.reader.head('p')
        _, listing = self.store.container.listing('p')
        read = plan_objects.PlanObjects(
            self.store, 'p', plan_objects.recorded(
                self.store, 'p', listing, head.state['tree'],
                plan_objects.ContentCache()), plan_objects.ContentCache())
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'user-files/y.yaml vanished from plan p'):
            read.read('user-files/y.yaml')
        self.swift.store('user-files/y.yaml', b'other\n')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'user-files/y.yaml of plan p does not '
                                    'hold the content its record names'):
            read.read('user-files/y.yaml')

    def test_an_unknown_plan_is_named(self):
        self.m.get(fakes.SWIFT + '/q', status_code=404)
        self.m.get(fakes.SWIFT + '/q/' + log.PATH, status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan q does not exist'):
            self.ask('plan_amend', container='q', remove=['a.yaml'])


class TestListAndDelete(LifecycleTestCase):

    def setUp(self):
        super().setUp()
        self.as_a_gui({'overcloud.yaml': TEMPLATE,
                       'environments/ntp.yaml': ENV})

    def test_check_only_deletes_nothing_and_a_stack_refuses(self):
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        before = dict(self.swift.objects)
        found = self.ask('plan_delete', containers=['p'], check_only=True)
        self.assertEqual({'plans': [{'name': 'p', 'objects': len(before)}],
                          'deleted': False}, found)
        self.assertEqual(before, self.swift.objects)
        fakes.stack_is(self.m, {'stack': {
            'id': '1', 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE'}})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Stack p exists: delete the stack'):
            self.ask('plan_delete', containers=['p'])
        self.assertEqual(before, self.swift.objects)

    def test_a_stack_heat_has_just_deleted_is_gone(self):
        # `openstack stack delete --wait` returns on DELETE_COMPLETE,
        # while Heat still answers the name for a moment
        fakes.stack_is(self.m, {'stack': {
            'id': '1', 'stack_name': 'p',
            'stack_status': 'DELETE_COMPLETE'}})
        self.m.delete(fakes.SWIFT + '/p', status_code=204)
        self.assertTrue(self.ask('plan_delete', containers=['p'])['deleted'])
        self.assertEqual({}, self.swift.objects)

    def test_bad_names_are_refused(self):
        for containers in (None, [], 'p', ['p', '../x']):
            with self.assertRaises(exceptions.CommandError):
                self.ask('plan_delete', containers=containers)
