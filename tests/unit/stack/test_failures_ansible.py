"""The configuration's failures in ``overcloud failures``
(``stack.failures.ansible``): per host and task, and hosts that never
answered, in the same columns as Heat's."""

import unittest

from tripleoplanclient.stack import failures


class TestAnsibleFailures(unittest.TestCase):

    def test_a_row_per_failed_task_and_unreachable_host(self):
        rows = failures.ansible({'config': {
            'failures': [{'host': 'c-0', 'task': 'Write a file',
                          'message': 'Permission denied'}],
            'hosts': {'c-0': {'failed': 1}, 'c-1': {'unreachable': 1},
                      'c-2': {'ok': 4}}}})
        self.assertEqual([
            ('ansible/c-0', 'Ansible task', 'FAILED', 'Permission denied',
             'c-0', 'Write a file'),
            ('ansible/c-1', 'Ansible task', 'UNREACHABLE',
             'the host did not answer over SSH', 'c-1', None)],
            [tuple(r[c] for c in ('path', 'type', 'status', 'status_reason',
                                  'host', 'task')) for r in rows])
        self.assertEqual(set(failures.COLUMNS), set(rows[0]))

    def test_none_without_configuration(self):
        self.assertEqual([], failures.ansible(None))
        self.assertEqual([], failures.ansible({'config': {
            'status': 'SUCCESS', 'hosts': {'c-0': {'ok': 3}}}}))
