"""overcloud node delete as cliff runs it (``delete_mistral``): no terminal
and no -y refused before Mistral (exit 3, the row parses), an unknown name
refused by the start task (exit 3), the update's failure exit 1 with the
node left, success exit 0 with the node released."""

from unittest import mock

import yaml

from tests.unit import fakes
from tests.unit.osc import delete_mistral
from tripleoplanclient.osc import node_delete


class NodeDeleteCommandTest(delete_mistral.DeleteMistral,
                            fakes.PlanTestCase):

    def test_no_terminal_no_yes_refused_before_mistral(self):
        with mock.patch('sys.stdin') as stdin:
            stdin.isatty.return_value = False
            code, row, err = self.run_command(
                node_delete.DeleteNode, '--stack', 'p', 'k1')
        self.assertEqual((3, 'REFUSED'), (code, row['status']))
        self.assertIn('pass -y', err)
        self.assertEqual({}, self.executions)

    def test_unknown_name_refused(self):
        code, row, err = self.run_command(
            node_delete.DeleteNode, '--stack', 'p', 'nope', '-y')
        self.assertEqual((3, 'REFUSED'), (code, row['status']))
        self.assertIn('Stack p has no server nope', err)
        self.assertIn('Stack p has no server nope', row['reason'])
        self.assertEqual('active', self.fake.node('k1')['provision_state'])

    def test_deleted_from_a_baremetal_file_node_released(self):
        path = self.write('bm.yaml', yaml.safe_dump([
            {'name': 'Compute', 'count': 2, 'instances': [
                {'hostname': 'p-novacompute-1', 'provisioned': False}]}]))
        code, row, err = self.run_command(
            node_delete.DeleteNode, '--stack', 'p', '-b', path, '-y')
        self.assertEqual((0, 'SUCCESS', 's1', None), (
            code, row['status'], row['step'], row['reason']), err)
        self.assertEqual([{'role': 'Compute', 'index': 1,
                           'hostname': 'p-novacompute-1', 'node': 'k1',
                           'state': 'available'}], row['servers'])
        self.assertEqual('available',
                         self.fake.node('k1')['provision_state'])

    def test_failed_update_exit_1_node_left(self):
        self.update_status = 'FAILED'
        code, row, err = self.run_command(
            node_delete.DeleteNode, '--stack', 'p', 'Compute/1', '-y')
        self.assertEqual((1, 'FAILED'), (code, row['status']), err)
        # why, from the update step's recorded outcome
        self.assertEqual('Heat says UPDATE_FAILED', row['reason'])
        self.assertEqual('active', self.fake.node('k1')['provision_state'])
