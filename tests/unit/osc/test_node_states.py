"""overcloud node introspect|provide|tag|configure and overcloud profiles
list, run as commands against a Mistral that runs the node workflows
in-process (their action bodies: ``nodes.states``, ``nodes.profiles``,
``nodes.configure``) on the fake Ironic: rows that parse whatever the
outcome, and an exit status that tells it."""

import io
import json
from unittest import mock


from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tests.unit.osc import node_commands
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import configure
from tripleoplanclient.nodes import inspection
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import profiles
from tripleoplanclient.nodes import states
from tripleoplanclient.osc import base
from tripleoplanclient.osc import node_states
from tripleoplanclient.osc import profiles as profiles_cmd
from tripleoplanclient import protocol


class NodeMistral(fakes.FakeMistral):
    """Our node workflows, each run to its end at once: the start task,
    then the follow task every round until it is done (the clock moved
    on a round each time); ``follow_error``: the follow task fails."""

    follow_error = None
    # follow rounds before the task gives up (Mistral's retry count)
    rounds = 50

    def __init__(self, mocker, ironic_):
        super().__init__(mocker, None)
        self.ironic = ironic_
        self.now = 0.0

    def clock(self):
        return self.now

    def _body(self, name, req):
        verb = {'node_introspect': 'introspect',
                'node_provide': 'provide'}.get(name)
        if verb:
            nodes = states.select(self.ironic, req['nodes'] or [],
                                  req['all_manageable'], verb)
            if name == 'node_introspect':
                return inspection.start(
                    self.ironic, nodes, req['provide'], req['timeout'],
                    inspection.settings(req), self.clock)
            return states.start_provide(self.ironic, nodes,
                                        req['timeout'], self.clock)
        if name == 'node_tag':
            return {'nodes': profiles.tag(self.ironic, states.select(
                self.ironic, req['nodes'], False, 'tag', states=None),
                req['profile'])}
        if name == 'node_configure':
            return {'nodes': configure.configure(self.ironic, states.select(
                self.ironic, req['nodes'], False, 'configure', states=None),
                req)}
        return {'nodes': profiles.listing(self.ironic, req['all'])}

    def _start(self, request, context):
        from requests_mock import mocker

        # Mistral runs the actions in its own process: requests-mock's
        # lock, held while it answers the client, is let go meanwhile (the
        # actions' threads call Ironic), as FakeMistral._run does
        held = mocker._send_lock._release_save()
        try:
            return self._run_workflow(request)
        finally:
            mocker._send_lock._acquire_restore(held)

    def _run_workflow(self, request):
        body = request.json()
        name = body['workflow_name'].rsplit('.', 1)[1]
        req = protocol.read(name, json.loads(body['input'])['request'])
        self.runs.append((name, 'workflow'))
        output, state, info = {}, 'SUCCESS', None
        try:
            output[name] = self._body(name, req)
            task = {'id': 't1', 'name': name, 'state': 'SUCCESS',
                    'state_info': None,
                    'published': json.dumps({name: output[name]})}
        except exceptions.CommandError as exc:
            state, info = 'ERROR', str(exc)
            task = {'id': 't1', 'name': name, 'state': 'ERROR',
                    'state_info': 'Failed to run action [action_ex_id=x, '
                                  'idx=0]: %s' % exc, 'published': '{}'}
        if state == 'SUCCESS' and name in protocol.FOLLOW:
            if self.follow_error:
                state, info = 'ERROR', self.follow_error
            else:
                look = inspection.follow if name == 'node_introspect' \
                    else states.follow
                for _ in range(self.rounds):
                    output['followed'] = look(
                        self.ironic, output[name], self.clock)
                    if output['followed']['done']:
                        break
                    self.now += protocol.NODE_FOLLOW_DELAY
        execution = {'id': 'e%d' % (len(self.executions) + 1),
                     'workflow_name': body['workflow_name'],
                     'state': state, 'state_info': info,
                     'output': json.dumps(output), 'task': task}
        self.executions[execution['id']] = execution
        return {k: v for k, v in execution.items() if k != 'task'}


class NodeCommandTest(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.mistral = NodeMistral(self.m, ironic.Ironic(
            fakes.session(), fake_ironic.URL))

    def run_command(self, cls, *argv):
        return node_commands.run_json(cls, {
            'workflow': fakes.MISTRAL, 'baremetal': fake_ironic.URL}, *argv)

    def nodes(self, count, **fields):
        return [self.fake.add_node(name='n%d' % i, **fields)['name']
                for i in range(count)]


class TestIntrospectProvide(NodeCommandTest):

    def test_one_node_failing_exits_1_with_every_row(self):
        names = self.nodes(3)
        self.fake.hold('n1', 2)
        self.fake.fail('n1', 'inspect', 'Ramdisk reported error: no disk')
        code, rows, err = self.run_command(node_states.IntrospectNode,
                                           '--max-retries', '0', *names)
        self.assertEqual(1, code, err)
        self.assertEqual({'n0': 'SUCCESS', 'n1': 'FAILED', 'n2': 'SUCCESS'},
                         {r['name']: r['status'] for r in rows})
        failed = [r for r in rows if r['name'] == 'n1'][0]
        self.assertEqual('Ramdisk reported error: no disk (1 attempt); '
                         'powered off', failed['error'])
        self.assertIn('n1 (inspect failed): Ramdisk reported error', err)
        self.assertIn('Introspecting 3 nodes: 2 node(s) done, 1 failed', err)
        self.assertEqual(set(node_states.INTROSPECT_COLUMNS),
                         set(rows[0]))

    def test_retries_follow_the_options_and_the_row_counts_attempts(self):
        names = self.nodes(2)
        self.fake.fail('n1', 'inspect', 'BMC did not answer')
        code, rows, err = self.run_command(
            node_states.IntrospectNode, '--retry-timeout', '4',
            '--max-retries', '2', '--node-timeout', '60', '--concurrency',
            '1', *names)
        self.assertEqual(0, code, err)
        self.assertEqual({('n0', 'SUCCESS', 1), ('n1', 'SUCCESS', 2)},
                         {(r['name'], r['status'], r['attempts'])
                          for r in rows})
        # the request carried the options
        mark = self.fake.node('n1')['extra']['tripleoplan_inspection']
        self.assertEqual(2, mark['attempt'])

    def test_bad_per_node_options_are_usage(self):
        parser = node_states.IntrospectNode(
            fakes.make_app({}), None).get_parser('openstack')
        for option, bad in (('--max-retries', '-1'), ('--max-retries', '11'),
                            ('--concurrency', '0'), ('--node-timeout', '1.5'),
                            ('--retry-timeout', 'soon')):
            with mock.patch('sys.stderr', io.StringIO()) as err:
                self.assertRaises(SystemExit, parser.parse_args,
                                  ['n0', option, bad])
            self.assertIn('give a whole number from', err.getvalue())
        self.assertEqual(0, parser.parse_args(
            ['n0', '--retry-timeout', '0']).retry_timeout)

    def test_every_node_passing_exits_0_provided_with_provide(self):
        names = self.nodes(2, power_state='power on')
        code, rows, err = self.run_command(node_states.IntrospectNode,
                                           '--all-manageable', '--provide')
        self.assertEqual(0, code, err)
        self.assertEqual({(n, 'SUCCESS', 'available') for n in names},
                         {(r['name'], r['status'], r['provision_state'])
                          for r in rows})

    def test_a_node_not_manageable_is_refused_exit_3(self):
        self.nodes(1)
        self.fake.add_node(name='a', provision_state='available')
        code, rows, err = self.run_command(node_states.IntrospectNode,
                                           'n0', 'a')
        self.assertEqual(3, code)
        self.assertEqual([('n0', 'REFUSED'), ('a', 'REFUSED')],
                         [(r['name'], r['status']) for r in rows])
        self.assertIn('a is available, not manageable', err)
        # the rows say why too, in one line
        for row in rows:
            self.assertIn('a is available, not manageable', row['error'])
            self.assertNotIn('\n', row['error'])
        self.assertEqual([], self.fake.writes())

    def test_a_refusal_prints_its_rows_as_a_table_too(self):
        self.fake.add_node(name='a', provision_state='available')
        app = fakes.make_app({'workflow': fakes.MISTRAL,
                              'baremetal': fake_ironic.URL})
        app.stdout = io.StringIO()
        cmd = node_states.IntrospectNode(app, None)
        self.assertEqual(3, cmd.run(cmd.get_parser('openstack').parse_args(
            ['a'])))
        self.assertRegex(app.stdout.getvalue(),
                         r'\| a +\| None +\| None +\| REFUSED ')

    def test_a_failure_after_the_start_is_no_refusal(self):
        self.nodes(1)
        self.mistral.follow_error = 'Ironic is unreachable'
        code, rows, err = self.run_command(node_states.ProvideNode, 'n0')
        self.assertEqual(1, code)
        self.assertEqual(['FAILED'], [r['status'] for r in rows])
        self.assertIn('Ironic is unreachable', err)

    def test_no_wait_returns_once_started(self):
        self.nodes(1, power_state='power on')
        code, rows, err = self.run_command(node_states.ProvideNode, 'n0',
                                           '--no-wait')
        self.assertEqual(0, code, err)
        self.assertEqual(['IN_PROGRESS'], [r['status'] for r in rows])
        self.assertIn('workflow execution show e1', err)

    def test_follow_rounds_run_out_exit_4(self):
        self.nodes(1)
        self.fake.hold('n0', 100)
        self.mistral.rounds = 2
        code, rows, err = self.run_command(node_states.IntrospectNode, 'n0')
        self.assertEqual(4, code, err)
        self.assertEqual(['IN_PROGRESS'], [r['status'] for r in rows])
        self.assertIn('Introspecting 1 node: still running after 3660 s; it '
                      'goes on in Mistral', err)

    def test_a_timeout_beyond_what_the_follow_task_waits_is_usage(self):
        self.assertLessEqual(
            base.NODE_TIMEOUT_MAX,
            protocol.FOLLOW_ROUNDS * protocol.NODE_FOLLOW_DELAY)
        parser = node_states.IntrospectNode(
            fakes.make_app({}), None).get_parser('openstack')
        for bad in ('0', '-5', '99999', 'soon'):
            with mock.patch('sys.stderr', io.StringIO()):
                self.assertRaises(SystemExit, parser.parse_args,
                                  ['n0', '--timeout', bad])
        self.assertEqual(90, parser.parse_args(['n0', '--timeout',
                                                '90']).timeout)


class TestTagConfigureProfiles(NodeCommandTest):

    def test_tag_then_list(self):
        self.nodes(2, provision_state='available', properties={
            'capabilities': 'compute_profile:true'})
        code, rows, _ = self.run_command(node_states.TagNode, 'n0', 'n1',
                                         '--profile', 'compute')
        self.assertEqual((0, ['SUCCESS', 'SUCCESS']),
                         (code, [r['status'] for r in rows]))
        app = fakes.make_app({'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = profiles_cmd.ListProfiles(app, None)
        cmd.run(cmd.get_parser('openstack').parse_args(['-f', 'json']))
        listed = json.loads(app.stdout.getvalue())
        self.assertEqual([('n0', 'compute', ['compute']),
                          ('n1', 'compute', ['compute'])],
                         [(r['name'], r['current_profile'],
                           r['possible_profiles']) for r in listed])

    def test_configure_a_node_without_inventory_fails_alone(self):
        self.nodes(2)
        self.fake.inventories[self.fake.node('n0')['uuid']] = {
            'disks': [{'name': '/dev/sda', 'size': 10 * 1024 ** 3,
                       'serial': 'S0'}]}
        code, rows, _ = self.run_command(node_states.ConfigureNode, 'n0',
                                         'n1', '--root-device', 'largest')
        self.assertEqual(1, code)
        by = {r['name']: r for r in rows}
        self.assertEqual(({'serial': 'S0'}, 'SUCCESS'), (
            by['n0']['root_device'], by['n0']['status']))
        self.assertEqual('FAILED', by['n1']['status'])

    def test_configure_bad_json_is_refused(self):
        self.nodes(1)
        code, rows, err = self.run_command(node_states.ConfigureNode, 'n0',
                                           '--root-device', '{"serial":')
        self.assertEqual(3, code)
        self.assertIn('not JSON', err)
        self.assertEqual([], self.fake.writes())
