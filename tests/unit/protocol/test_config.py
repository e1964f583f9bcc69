"""The configuration's part of the protocol: the deploy workflow's
configure task runs once after its follow task, with what both
answered; the deploy request's configuration fields and their
defaults."""

import unittest

import yaml

from tripleoplanclient import protocol


class TestConfigProtocol(unittest.TestCase):

    def test_configure_runs_after_the_follow_task(self):
        deploy = yaml.safe_load(protocol.workbook())['workflows']['deploy']
        tasks = deploy['tasks']
        self.assertEqual(['configure'], tasks['follow']['on-success'])
        self.assertEqual({'action': 'tripleoplan.configure', 'input': {
            'request': '<% $.request %>', 'started': '<% $.deploy %>',
            'followed': '<% $.followed %>'}, 'publish': {
                'configure': '<% task().result %>'}}, tasks['configure'])
        self.assertNotIn('retry', tasks['configure'])
        self.assertIn('configure', deploy['output'])
        # only the deploy workflow has one
        others = [n for n, w in yaml.safe_load(protocol.workbook())[
            'workflows'].items() if 'configure' in w['tasks']]
        self.assertEqual(['deploy'], others)

    def test_a_deploy_request_configures_when_the_stack_asks(self):
        req = protocol.request('deploy', container='p')
        self.assertEqual(('auto', 240, None, None), (
            req['config'], req['config_timeout'], req['tags'],
            req['playbooks']))

    def test_the_download_names_its_step_and_never_holds_the_tree(self):
        req = protocol.read('config_download', protocol.request(
            'config_download', container='p', step='3',
            config_type=['deploy_steps_tasks']))
        self.assertEqual(('p', '3', ['deploy_steps_tasks']), (
            req['container'], req['step'], req['config_type']))
        self.assertEqual('tripleoplan.config_download',
                         protocol.action('config_download'))
