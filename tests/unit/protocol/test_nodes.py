"""The bare metal part of the protocol: the node_delete workflow runs the
deploy workflow between its start and its release (on the request the
start answers), the release runs whatever the update's end, and both
delete workflows follow to their end."""

import unittest

import yaml

from tripleoplanclient import protocol


class TestDeleteWorkflows(unittest.TestCase):

    def setUp(self):
        self.book = yaml.safe_load(protocol.workbook())['workflows']

    def test_node_delete_runs_the_deploy_workflow_then_releases(self):
        flow = self.book['node_delete']
        tasks = flow['tasks']
        self.assertEqual(['update'], tasks['node_delete']['on-success'])
        self.assertEqual({'workflow': protocol.workflow('deploy'),
                          'input': {'request': '<% $.node_delete.deploy %>'},
                          'publish': {'update': '<% task().result %>'},
                          'on-complete': ['release']}, tasks['update'])
        release = tasks['release']
        self.assertEqual('tripleoplan.node_delete_release', release['action'])
        self.assertEqual({'request': '<% $.request %>',
                          'started': '<% $.node_delete %>',
                          'update': "<% $.get('update') %>"},
                         release['input'])
        self.assertEqual('<% not $.followed.done %>',
                         release['retry']['continue-on'])
        self.assertEqual({'node_delete', 'update', 'followed'},
                         set(flow['output']))
        # only node_delete runs another workflow
        self.assertEqual(['node_delete'], [
            n for n, w in self.book.items()
            if any('workflow' in t for t in w['tasks'].values())])

    def test_overcloud_delete_follows_to_its_end(self):
        tasks = self.book['overcloud_delete']['tasks']
        self.assertEqual(['follow'], tasks['overcloud_delete']['on-success'])
        self.assertEqual('tripleoplan.overcloud_delete_follow',
                         tasks['follow']['action'])

    def test_node_delete_defaults(self):
        req = protocol.read('node_delete', protocol.request(
            'node_delete', container='p', nodes=['Compute/1']))
        self.assertEqual((True, 240, 'auto', 240), (
            req['provide'], req['timeout'], req['config'],
            req['config_timeout']))
