"""overcloud node manage|clean|bios configure|bios reset and overcloud
raid create, run as commands against a Mistral that runs the node_manage
and node_clean workflows in-process (their action bodies:
``nodes.cleaning``, its follow each round) on the fake
Ironic: rows that parse whatever the outcome, an exit status that tells
it."""

import json
import os
import tempfile

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tests.unit.osc import node_commands
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import cleaning
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import states
from tripleoplanclient.osc import node_cleaning
from tripleoplanclient import protocol


class CleaningMistral(fakes.FakeMistral):
    """node_manage and node_clean run to their end at once: the start
    task, then the follow task each round (the clock moved on)."""

    def __init__(self, mocker, ironic_):
        super().__init__(mocker, None)
        self.ironic = ironic_
        self.now = 0.0
        self.requests = []

    def clock(self):
        return self.now

    def _start(self, request, context):
        from requests_mock import mocker
        held = mocker._send_lock._release_save()
        try:
            return self._run_workflow(request.json())
        finally:
            mocker._send_lock._acquire_restore(held)

    def _begin(self, name, req):
        if name == 'node_manage':
            return cleaning.start_manage(self.ironic, cleaning.select_manage(
                self.ironic, req['nodes'] or [], req['all_state']),
                req['timeout'], self.clock)
        cleaning.clean_steps(req['operation'], req['configuration'])
        return cleaning.start_clean(
            self.ironic, states.select(self.ironic, req['nodes'] or [],
                                       req['all_manageable'], 'clean'),
            req['operation'], req['configuration'], req['provide'],
            req['timeout'], self.clock)

    def _run_workflow(self, body):
        name = body['workflow_name'].rsplit('.', 1)[1]
        req = protocol.read(name, json.loads(body['input'])['request'])
        self.requests.append(req)
        output, state = {}, 'SUCCESS'
        try:
            output[name] = self._begin(name, req)
            task = {'id': 't1', 'name': name, 'state': 'SUCCESS',
                    'state_info': None,
                    'published': json.dumps({name: output[name]})}
            for _ in range(50):
                output['followed'] = cleaning.follow(
                    self.ironic, output[name], self.clock)
                if output['followed']['done']:
                    break
                self.now += protocol.NODE_FOLLOW_DELAY
        except exceptions.CommandError as exc:
            state = 'ERROR'
            task = {'id': 't1', 'name': name, 'state': 'ERROR',
                    'state_info': 'Failed to run action [action_ex_id=x, '
                                  'idx=0]: %s' % exc, 'published': '{}'}
        execution = {'id': 'e%d' % (len(self.executions) + 1),
                     'workflow_name': body['workflow_name'], 'state': state,
                     'state_info': None, 'output': json.dumps(output),
                     'task': task}
        self.executions[execution['id']] = execution
        return {k: v for k, v in execution.items() if k != 'task'}


class CleaningCommandTest(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.mistral = CleaningMistral(self.m, ironic.Ironic(
            fakes.session(), fake_ironic.URL))

    def run_command(self, cls, *argv):
        return node_commands.run_json(cls, {
            'workflow': fakes.MISTRAL, 'baremetal': fake_ironic.URL}, *argv)

    def steps(self):
        return [[s['step'] for s in r.body['clean_steps']]
                for r in self.fake.log if r.path.endswith('/provision')
                and r.body['target'] == 'clean']


class TestClean(CleaningCommandTest):

    def test_clean_and_provide(self):
        self.fake.add_node(name='n0', power_state='power on')
        code, rows, err = self.run_command(node_cleaning.CleanNode, 'n0',
                                           '--provide')
        self.assertEqual(0, code, err)
        self.assertEqual([('n0', 'available', 'SUCCESS', None)], [
            (r['name'], r['provision_state'], r['status'], r['error'])
            for r in rows])
        self.assertEqual([['erase_devices_metadata']], self.steps())

    def test_a_node_failing_exits_1_the_other_cleaned(self):
        for name in ('n0', 'n1'):
            self.fake.add_node(name=name)
        self.fake.fail('n1', 'clean', 'No such clean step')
        code, rows, err = self.run_command(node_cleaning.CleanNode,
                                           '--all-manageable')
        self.assertEqual(1, code)
        self.assertEqual({'n0': ('manageable', 'SUCCESS'),
                          'n1': ('clean failed', 'FAILED')},
                         {r['name']: (r['provision_state'], r['status'])
                          for r in rows})
        self.assertIn('n1 (clean failed): No such clean step', err)

    def test_not_manageable_refused_exit_3_nothing_asked(self):
        self.fake.add_node(name='a', provision_state='available')
        code, rows, err = self.run_command(node_cleaning.CleanNode, 'a')
        self.assertEqual((3, [('a', 'REFUSED')]), (
            code, [(r['name'], r['status']) for r in rows]))
        self.assertIn('a is available, not manageable', err)
        self.assertEqual([], self.fake.writes())


class TestBIOSAndRAID(CleaningCommandTest):

    def setUp(self):
        super().setUp()
        self.fake.add_node(name='n0')
        self.dir = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.dir)

    def test_bios_configuration_inline_or_from_a_yaml_file(self):
        settings = [{'name': 'LogicalProc', 'value': 'Enabled'}]
        code, rows, err = self.run_command(
            node_cleaning.ConfigureBIOS, 'n0', '--configuration',
            json.dumps({'settings': settings}))
        self.assertEqual((0, 'SUCCESS'), (code, rows[0]['status']), err)
        path = fakes.write_file(os.path.join(self.dir, 'bios.yaml'),
                                'settings:\n- name: LogicalProc\n'
                                '  value: Enabled\n')
        code, _, err = self.run_command(node_cleaning.ConfigureBIOS, 'n0',
                                        '--configuration', path)
        self.assertEqual(0, code, err)
        self.assertEqual([settings] * 2, [
            r['configuration'] and r['configuration']['settings']
            for r in self.mistral.requests])
        self.assertEqual([['apply_configuration']] * 2, self.steps())

    def test_bad_configurations_refused_exit_3_nothing_asked(self):
        anchored = fakes.write_file(os.path.join(self.dir, 'a.yaml'),
                                    'settings: &s [1]\nmore: *s\n')
        for argv, said in (
                (['--configuration', '{"settings": '], 'not valid YAML'),
                (['--configuration', '{"settings": [{"name": "x"}]}'],
                 'setting 1 is not a mapping'),
                (['--configuration', anchored], 'a.yaml'),
                (['--configuration', '[]'], 'at least one setting')):
            code, rows, err = self.run_command(node_cleaning.ConfigureBIOS,
                                               'n0', *argv)
            self.assertEqual((3, ['REFUSED']), (
                code, [r['status'] for r in rows]), err)
            self.assertIn(said, err)
        self.assertEqual([], self.fake.writes())

    def test_bios_reset(self):
        code, rows, err = self.run_command(node_cleaning.ResetBIOS, 'n0')
        self.assertEqual(0, code, err)
        self.assertEqual([['factory_reset']], self.steps())

    def test_raid_create_on_named_nodes(self):
        self.fake.add_node(name='n1')
        config = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1',
                                     'is_root_volume': True}]}
        path = fakes.write_file(os.path.join(self.dir, 'raid.json'),
                                json.dumps(config))
        code, rows, err = self.run_command(node_cleaning.CreateRAID,
                                           '--node', 'n0', '--node', 'n1',
                                           path)
        self.assertEqual(0, code, err)
        self.assertEqual(['n0', 'n1'], [r['name'] for r in rows])
        self.assertEqual(config, self.fake.node('n1')['target_raid_config'])
        self.assertEqual([['delete_configuration', 'create_configuration']]
                         * 2, self.steps())
        code, rows, err = self.run_command(
            node_cleaning.CreateRAID, '--node', 'n0',
            '{"logical_disks": [{"size_gb": 10, "raid_level": "7"}]}')
        self.assertEqual((3, ['REFUSED']), (code, [r['status']
                                                   for r in rows]))
        self.assertIn('raid_level must be one of', err)


class TestManage(CleaningCommandTest):

    def test_manage_named_and_all_enroll(self):
        self.fake.add_node(name='a', provision_state='available')
        self.fake.add_node(name='e', provision_state='enroll')
        self.fake.add_node(name='f', provision_state='enroll')
        self.fake.fail('f', 'manage', 'Failed to get power state')
        code, rows, err = self.run_command(node_cleaning.ManageNode, 'a')
        self.assertEqual((0, [('a', 'manageable', 'SUCCESS')]), (code, [
            (r['name'], r['provision_state'], r['status']) for r in rows]))
        code, rows, err = self.run_command(node_cleaning.ManageNode,
                                           '--all-enroll')
        self.assertEqual(1, code)
        self.assertEqual({'e': 'SUCCESS', 'f': 'FAILED'},
                         {r['name']: r['status'] for r in rows})
        self.assertIn('Failed to get power state', err)
        code, rows, err = self.run_command(node_cleaning.ManageNode, 'zz')
        self.assertEqual(3, code)
        self.assertIn('no node zz in Ironic', err)
