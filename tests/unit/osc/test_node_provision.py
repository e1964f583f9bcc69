"""overcloud node provision | unprovision as cliff runs them: a file
with problems refused before Mistral is asked (exit 3, the rows still
parse), a row per instance and the environment written with ``-o``,
a failed deploy exit 1. Behind them a Mistral whose node_provision
workflow runs our action bodies (start, then follow) on the fake
Ironic and the plan in the fake Swift."""

import json
import os
import re
from unittest import mock

import yaml

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tests.unit.nodes import plan_and_ironic
from tests.unit.nodes import ssh_keys
from tests.unit.osc import node_commands
from tripleoplanclient.mistral import node_provision as mistral_side
from tripleoplanclient.osc import node_provision
from tripleoplanclient.osc import plan as plan_cmd
from tripleoplanclient import protocol

ROLES = [{'name': 'Controller', 'defaults': {'profile': 'control'}}]


REFUSED_ROW = {'role': None, 'hostname': None, 'node': None,
               'ctlplane_ip': None, 'state': 'REFUSED'}


class NodeProvisionCommandTest(plan_and_ironic.PlanAndIronic,
                               fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        # the login user's default key: ~/.ssh/id_ed25519.pub
        self.write('home/.ssh/id_ed25519.pub', ssh_keys.public_key() + '\n')
        patcher = mock.patch.dict(os.environ, HOME=self.dir + '/home')
        patcher.start()
        self.addCleanup(patcher.stop)
        self.executions = {}
        self.m.post(fakes.MISTRAL + '/executions', json=self.start,
                    status_code=201, headers=fakes.JSON)
        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/([^/]+)$'),
                   json=lambda r, c: self.executions[r.path.rsplit('/')[-1]][
                       'execution'], headers=fakes.JSON)
        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/([^/]+)/tasks'),
                   json=lambda r, c: {'tasks': [self.executions[
                       r.path.split('/')[-2]]['task']]}, headers=fakes.JSON)

    def start(self, request, context):
        """Our workflow: its task, then its follow task, at once."""
        from requests_mock import mocker

        from tripleoplanclient.common import exceptions
        body = request.json()
        name = body['workflow_name'].rsplit('.', 1)[1]
        verb = name[len('node_'):]
        req = protocol.read(name, json.loads(body['input'])['request'])
        held = mocker._send_lock._release_save()
        try:
            started = getattr(mistral_side, verb)(self.ironic, self.store,
                                                  req)
            followed = mistral_side.follow(self.ironic, self.store, req,
                                           started, verb)
            task = {'id': 't1', 'name': name, 'state': 'SUCCESS',
                    'state_info': None,
                    'published': json.dumps({name: started})}
            output = {name: started, 'followed': followed}
        except exceptions.CommandError as exc:
            task = {'id': 't1', 'name': name, 'state': 'ERROR',
                    'state_info': 'Failed to run action [action_ex_id=x, '
                                  'idx=0]: %s' % exc, 'published': '{}'}
            output = {}
        finally:
            mocker._send_lock._acquire_restore(held)
        ident = 'e%d' % (len(self.executions) + 1)
        execution = {'id': ident, 'workflow_name': body['workflow_name'],
                     'state': task['state'], 'output': json.dumps(output)}
        self.executions[ident] = {'execution': execution, 'task': task}
        return execution

    def run_command(self, cls, *argv):
        return node_commands.run_json(cls, dict(
            fakes.ENDPOINTS, workflowv2=fakes.MISTRAL,
            baremetal=fake_ironic.URL), *argv)

    def deployment(self, roles=ROLES):
        return self.write('bm.yaml', yaml.safe_dump(roles))

    def test_bad_file_refused_before_mistral(self):
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p',
            self.deployment([{'name': 'Controller', 'count': 'x'}]))
        self.assertEqual((3, [REFUSED_ROW]), (code, rows))
        self.assertIn('count must be a whole number', err)
        self.assertEqual({}, self.executions)

    def test_rows_and_output_file(self):
        out = os.path.join(self.dir, 'env.yaml')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p',
            self.deployment(), '-o', out)
        self.assertEqual(0, code, err)
        self.assertEqual([{'role': 'Controller', 'hostname':
                           'p-controller-0', 'node': 'c0',
                           'ctlplane_ip': '192.168.24.10',
                           'state': 'active'}], rows)
        with open(out, 'rb') as f:
            self.assertEqual(self.swift.objects[
                protocol.PROVISION_ENVIRONMENT][0], f.read())
        self.assertIn('step', err)

        code, rows, err = self.run_command(
            node_provision.UnprovisionNodes, '--stack', 'p', '--all', '-y',
            self.deployment(), '--network-ports')
        self.assertEqual(0, code, err)
        self.assertEqual(['available'], [r['state'] for r in rows])

    def test_the_recorded_step_names_the_files_as_given(self):
        self.write('work/mine.yaml', 'parameter_defaults: {A: 1}\n')
        here = os.getcwd()
        os.chdir(os.path.join(self.dir, 'work'))
        self.addCleanup(os.chdir, here)
        self.cmd(plan_cmd.AmendPlan, 'p', '-e', 'mine.yaml', '--no-render')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p',
            self.deployment())
        self.assertEqual(0, code, err)
        self.assertRegex(err, r'recorded \(provision\), environments: '
                              r'mine\.yaml, baremetal-environment\.yaml')

    def test_no_wait_returns_once_ironic_was_asked(self):
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', '--no-wait',
            self.deployment())
        self.assertEqual(0, code, err)
        self.assertEqual(['deploying'], [r['state'] for r in rows])
        self.assertIn('goes on in Mistral', err)

    def test_too_few_refused_failed_deploy_exit_1(self):
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment(
                [{'name': 'Controller', 'count': 2,
                  'defaults': {'profile': 'control'}}]))
        self.assertEqual((3, [REFUSED_ROW]), (code, rows))
        self.assertIn('role Controller: 1 more available node(s)', err)
        self.fake.fail('c0', 'active', 'boom')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment())
        self.assertEqual(1, code, err)
        self.assertEqual(['deploy failed'], [r['state'] for r in rows])
        self.assertIn('Node c0 (deploy failed): boom', err)

    def test_login_user_and_keys_sent_concurrency_kept(self):
        key = self.write('k.pub', ssh_keys.public_key(7) + '\n')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment(),
            '--overcloud-ssh-user', 'stack', '--overcloud-ssh-key', key,
            '--concurrency', '3', '--network-ports')
        self.assertEqual(0, code, err)
        sent = [r for r in self.m.request_history
                if r.method == 'POST' and r.url.endswith('/executions')]
        request = json.loads(sent[-1].json()['input'])['request']
        self.assertEqual(('stack', [ssh_keys.public_key(7)], 3), (
            request['ssh_user'], request['ssh_keys'],
            request['concurrency']))

    def test_a_private_key_is_never_sent(self):
        private = self.write('id_x', ssh_keys.PRIVATE)
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment(),
            '--overcloud-ssh-key', private)
        self.assertEqual((3, [REFUSED_ROW]), (code, rows))
        self.assertIn('id_x holds a private key', err)
        self.assertNotIn(ssh_keys.PRIVATE_MARK, err)
        self.assertEqual({}, self.executions)
        # tripleoclient's form: the key pair's path takes its .pub
        self.write('id_x.pub', ssh_keys.public_key(3) + '\n')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment(),
            '--overcloud-ssh-key', private)
        self.assertEqual(0, code, err)
        self.assertIn('its public key %s.pub goes to the nodes' % private,
                      err)
        self.assertNotIn(ssh_keys.PRIVATE_MARK, json.dumps([
            r.text for r in self.m.request_history if r.text]))

    def test_no_key_or_bad_options_refused(self):
        os.remove(self.dir + '/home/.ssh/id_ed25519.pub')
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment())
        self.assertEqual((3, [REFUSED_ROW]), (code, rows))
        self.assertIn('none of ~/.ssh/id_rsa.pub, ~/.ssh/id_ed25519.pub '
                      'exists', err)
        code, rows, err = self.run_command(
            node_provision.ProvisionNodes, '--stack', 'p', self.deployment(),
            '--overcloud-ssh-user', 'Bad User')
        self.assertIn('is no login name', err)
        self.assertEqual({}, self.executions)
        parser = node_provision.ProvisionNodes(
            None, None).get_parser('openstack')
        for value in ('0', '1001', 'x'):
            with mock.patch('sys.stderr'):
                self.assertRaises(SystemExit, parser.parse_args,
                                  ['f', '--concurrency', value])
