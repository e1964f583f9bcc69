"""Why a stack step did not succeed, as its row's ``reason`` says it
(``stack.failures.reason``): the configuration's first failed task, else
the recorded reason with Heat's first failed resource."""

import unittest

from tripleoplanclient.stack import failures


class TestStepReason(unittest.TestCase):

    def test_none_when_the_step_succeeded_or_goes_on(self):
        for status in ('SUCCESS', 'IN_PROGRESS', 'UNCHANGED'):
            self.assertIsNone(failures.reason({'outcome': {
                'status': status, 'reason': 'Stack CREATE completed'}}))
        self.assertIsNone(failures.reason(None))

    def test_heat_reason_and_its_first_failed_resource(self):
        step = {'outcome': {
            'status': 'FAILED', 'reason': 'Resource UPDATE failed: x',
            'failed_resources': ['p-C-1:0: Error: boom', 'p:C: aborted']}}
        self.assertEqual('Resource UPDATE failed: x; first failed '
                         'resource: p-C-1:0: Error: boom (1 more)',
                         failures.reason(step))
        # the resource already named by Heat's reason: not twice
        step['outcome']['reason'] = 'p-C-1:0: Error: boom'
        step['outcome']['failed_resources'] = ['p-C-1:0: Error: boom']
        self.assertEqual('p-C-1:0: Error: boom', failures.reason(step))

    def test_the_recorded_reason_alone(self):
        self.assertEqual('Timed out after 70 s', failures.reason({
            'outcome': {'status': 'TIMEOUT',
                        'reason': 'Timed out after 70 s'}}))
        self.assertIsNone(failures.reason({'outcome': {'status': 'FAILED'}}))

    def test_the_first_failed_ansible_task_before_heat(self):
        step = {'outcome': {'status': 'FAILED', 'config_status': 'FAILED',
                            'reason': 'configuration FAILED: ...'},
                'config': {'failures': [
                    {'host': 'c-0', 'task': 'Write a file',
                     'message': 'denied'},
                    {'host': 'c-1', 'task': 'Write a file',
                     'message': 'denied'}]}}
        self.assertEqual('Ansible task Write a file failed on c-0: denied '
                         '(1 more failures)', failures.reason(step))

    def test_an_unreachable_host(self):
        step = {'outcome': {'status': 'FAILED', 'config_status': 'FAILED'},
                'config': {'hosts': {'c-0': {'unreachable': 1}}}}
        self.assertEqual('c-0: the host did not answer over SSH',
                         failures.reason(step))

    def test_a_configuration_that_succeeded_is_not_the_reason(self):
        step = {'outcome': {'status': 'FAILED', 'config_status': 'SUCCESS',
                            'reason': 'post validations'},
                'config': {'failures': [{'host': 'c-0', 'task': 't'}]}}
        self.assertEqual('post validations', failures.reason(step))
