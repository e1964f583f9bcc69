"""What progress calls each workflow: the operator's words, with their
plan, stack or nodes, never Mistral's names."""

import unittest

from tripleoplanclient import protocol
from tripleoplanclient.workflows import titles


class TestDoing(unittest.TestCase):

    def test_every_workflow_and_action_has_words(self):
        for name in list(protocol.WORKFLOWS) + list(protocol.ACTIONS):
            doing = titles.doing(name, {'container': 'p', 'nodes': []})
            self.assertNotIn('_', doing, name)
            self.assertNotIn('tripleoplan', doing, name)
            self.assertEqual(doing[0].upper(), doing[0], name)

    def test_the_plan_the_stack_and_the_nodes_are_named(self):
        self.assertEqual('Amending plan overcloud', titles.doing(
            'plan_amend', {'container': 'overcloud'}))
        self.assertEqual('Upgrading overcloud', titles.doing(
            'deploy', {'container': 'overcloud', 'action': 'upgrade'}))
        self.assertEqual('Registering 1 node', titles.doing(
            'node_register', {'nodes': [{}]}))
        self.assertEqual('Checking 2 nodes', titles.doing(
            'node_register', {'nodes': [{}, {}], 'validate_only': True}))
        self.assertEqual('Introspecting the manageable nodes', titles.doing(
            'node_introspect', {'nodes': None, 'all_manageable': True}))
        self.assertEqual('Making the enroll nodes manageable', titles.doing(
            'node_manage', {'nodes': None, 'all_state': 'enroll'}))
        self.assertEqual('Deleting plans a, b', titles.doing(
            'plan_delete', {'containers': ['a', 'b']}))

    def test_state(self):
        self.assertEqual('Amending plan p: done in 1.2 s',
                         titles.state('Amending plan p', 'SUCCESS', 1.23))
        self.assertEqual('Amending plan p: failed after 3.0 s',
                         titles.state('Amending plan p', 'ERROR', 3))
        self.assertEqual('Amending plan p: paused',
                         titles.state('Amending plan p', 'PAUSED', 3))
