"""``software deployment trigger --server`` naming a node of a nested stack,
as THT lays them out (a group of server templates, each holding an
OS::Heat::DeployedServer and outputting its name), on the loopback Heat."""

import json
import time
import uuid

import yaml

from tests.functional import base
from tests.functional.base import http

NODE = {
    'heat_template_version': 'wallaby',
    'parameters': {'name': {'type': 'string'}},
    'resources': {'Controller': {
        'type': 'OS::Heat::DeployedServer',
        'properties': {'name': {'get_param': 'name'},
                       'software_config_transport': 'POLL_SERVER_HEAT'}}},
    'outputs': {'OS::stack_id': {'value': {'get_resource': 'Controller'}},
                'name': {'value': {'get_param': 'name'}}},
}
TEMPLATE = {
    'heat_template_version': 'wallaby',
    'resources': {
        'Controller': {
            'type': 'OS::Heat::ResourceGroup',
            'properties': {'count': 2, 'resource_def': {
                'type': 'OS::Test::ControllerServer',
                'properties': {'name': 'NODE-%index%'}}}},
        'component': {
            'type': 'OS::Heat::SoftwareComponent',
            'properties': {'configs': [
                {'actions': ['BACKUP'], 'tool': 'script',
                 'config': 'echo backup'}]}},
    },
}


class TestServerNames(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.heat_url = cls.env['LOOPBACK_HEAT_URL'].rstrip('/')
        cls.stack = 'sdname-%s' % uuid.uuid4().hex[:8]
        cls.node = cls.stack + '-ctl'
        template = json.loads(json.dumps(TEMPLATE).replace(
            'NODE', cls.node))
        cls.triggered = []
        status, body = http('POST', cls.heat_url + '/stacks', {
            'stack_name': cls.stack, 'template': template,
            'files': {'node.yaml': yaml.safe_dump(NODE)},
            'environment': {'resource_registry': {
                'OS::Test::ControllerServer': 'node.yaml'}}})
        assert status == 201, body
        cls.stack_path = '%s/%s' % (cls.stack,
                                    json.loads(body)['stack']['id'])
        deadline = time.monotonic() + 180
        while True:
            _, body = http('GET', '%s/stacks/%s' % (cls.heat_url,
                                                    cls.stack_path))
            state = json.loads(body)['stack']['stack_status']
            if state != 'CREATE_IN_PROGRESS':
                break
            assert time.monotonic() < deadline, 'stack still creating'
            time.sleep(0.5)
        if state != 'CREATE_COMPLETE':
            cls.tearDownClass()
            raise AssertionError('test stack: %s' % state)
        # the members' inner servers, through the nested stacks' links
        group = cls.nested(cls.stack_path, 'Controller')
        cls.servers = [cls.physical(cls.nested(group, index), 'Controller')
                       for index in ('0', '1')]

    @classmethod
    def resource(cls, stack, name):
        _, body = http('GET', '%s/stacks/%s/resources/%s' % (
            cls.heat_url, stack, name))
        return json.loads(body)['resource']

    @classmethod
    def nested(cls, stack, name):
        href = next(link['href'] for link in cls.resource(stack, name)[
            'links'] if link['rel'] == 'nested')
        return href.split('/stacks/', 1)[1]

    @classmethod
    def physical(cls, stack, name):
        return cls.resource(stack, name)['physical_resource_id']

    @classmethod
    def tearDownClass(cls):
        try:
            for deployment in cls.triggered:
                http('DELETE', '%s/software_deployments/%s' % (
                    cls.heat_url, deployment['id']))
                http('DELETE', '%s/software_configs/%s' % (
                    cls.heat_url, deployment['config_id']))
            http('DELETE', '%s/stacks/%s' % (cls.heat_url, cls.stack_path))
        finally:
            super().tearDownClass()

    def trigger(self, server, fail=False):
        out, err = self.openstack(
            'software', 'deployment', 'trigger', '--server', server,
            '--stack', self.stack, '--resource', 'component', '--action',
            'BACKUP', '--signal-transport', 'NO_SIGNAL', '-f', 'json',
            fail=fail)
        if not fail:
            self.triggered.append(json.loads(out))
            return self.triggered[-1], err
        return out, err

    def deployments_of(self, server_id):
        _, body = http('GET', '%s/software_deployments?server_id=%s' % (
            self.heat_url, server_id))
        return json.loads(body)['software_deployments']

    def test_by_server_name_says_which(self):
        result, err = self.trigger(self.node + '-1')
        self.assertEqual(self.servers[1], result['server_id'])
        self.assertIn('--server %s-1: Controller/1/Controller' % self.node,
                      err)
        self.assertIn(self.servers[1], err)

    def test_by_resource_path(self):
        result, err = self.trigger('Controller/0')
        self.assertEqual(self.servers[0], result['server_id'])
        self.assertIn('server %s-0 %s' % (self.node, self.servers[0]), err)

    def test_ambiguous_lists_the_candidates_and_triggers_nothing(self):
        before = [len(self.deployments_of(s)) for s in self.servers]
        _, err = self.trigger('Controller', fail=True)
        self.assertIn('--server Controller: 2 servers of stack %s match'
                      % self.stack, err)
        for index in (0, 1):
            self.assertIn('Controller/%d/Controller' % index, err)
            self.assertIn('server %s-%d %s' % (self.node, index,
                                               self.servers[index]), err)
        self.assertEqual(before,
                         [len(self.deployments_of(s)) for s in self.servers])

    def test_unknown_name_lists_the_servers(self):
        _, err = self.trigger(self.node + '-7', fail=True)
        self.assertIn('no such server in stack %s' % self.stack, err)
        self.assertIn('%s-0 (Controller/0/Controller)' % self.node, err)

    def test_watch_by_server_name_follows_its_newest_deployment(self):
        # Heat's creation times are to the second: this one is the newest
        time.sleep(1.1)
        triggered, _ = self.trigger(self.node + '-0')
        out, err = self.openstack(
            'software', 'deployment', 'watch', '--server', self.node + '-0',
            '--stack', self.stack, '--timeout', '1', '-f', 'json')
        watched = json.loads(out)
        self.assertEqual((triggered['id'], 'COMPLETE', self.servers[0]),
                         (watched['id'], watched['status'],
                          watched['server_id']))
        self.assertIn('--server %s-0: Controller/0/Controller' % self.node,
                      err)
        self.assertIn('--server %s-0: deployment %s (BACKUP, COMPLETE'
                      % (self.node, triggered['id']), err)

    def test_watch_of_an_ambiguous_name_lists_the_candidates(self):
        _, err = self.openstack(
            'software', 'deployment', 'watch', '--server', 'Controller',
            '--stack', self.stack, fail=True)
        self.assertIn('--server Controller: 2 servers of stack %s match'
                      % self.stack, err)
        for index in (0, 1):
            self.assertIn('Controller/%d/Controller' % index, err)
