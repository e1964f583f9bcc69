"""overcloud credentials against the loopback Heat and Swift: small
templates with the outputs tripleo-heat-templates' overcloud.yaml gives
(KeystoneURL, KeystoneRegion, EndpointMap)."""

import json
import os
import stat
import subprocess

import yaml

from tests.functional import base
from tests.functional import deploy_base

TEMPLATE = '''heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
  KeystoneRegion: {type: string, default: regionOne}
  Message: {type: string, default: hello}
  Extra: {type: string, default: ''}
resources:
  one: {type: OS::Heat::None}
  two: {type: OS::Small::Thing}
outputs:
  KeystoneURL: {value: 'http://127.0.0.9:5000'}
  KeystoneRegion: {value: {get_param: KeystoneRegion}}
  EndpointMap:
    value: {KeystoneAdmin: {host: 127.0.0.8, port: 35357}}
'''


class TestCredentials(deploy_base.DeployTest):

    TEMPLATES = dict(deploy_base.TEMPLATES, **{'overcloud.yaml': TEMPLATE})

    def credentials(self, *args, fail=False):
        out, _ = self.openstack('overcloud', 'credentials', self.plan,
                                '-f', 'json', *args, fail=fail)
        return json.loads(out)

    def test_rc_from_the_plan_and_its_stack(self):
        where = os.path.join(self.tmp, 'rc-' + self.plan)
        os.makedirs(where)
        # no stack yet: refused, nothing written
        out = self.credentials('--directory', where, fail=True)
        self.assertEqual('REFUSED', out['status'])
        self.assertEqual([], os.listdir(where))

        self.mine = self.write('%s/mine.yaml' % self.plan,
                               'parameter_defaults:\n  KeystoneRegion: r2\n')
        self.assertEqual('SUCCESS', self.first_deploy()['status'])
        out = self.credentials('--directory', where)
        path = os.path.join(where, '%src' % self.plan)
        self.assertEqual((self.plan, path, 'http://127.0.0.9:5000', 'r2',
                          'SUCCESS'), (out['plan'], out['file'],
                                       out['auth_url'], out['region'],
                                       out['status']))
        self.assertEqual(0o600, stat.S_IMODE(os.stat(path).st_mode))
        password = yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords']['AdminPassword']
        # the file works in a shell: sourced, it sets the admin's cloud
        shown = subprocess.run(
            ['bash', '-c', 'export OS_TOKEN=old; source "$0"; '
             'echo "$OS_PASSWORD|$OS_AUTH_URL|$OS_REGION_NAME|$no_proxy|'
             '${OS_TOKEN-unset}"', path],
            capture_output=True, text=True, check=True).stdout
        self.assertEqual('%s|http://127.0.0.9:5000|r2|127.0.0.8,127.0.0.9|'
                         'unset\n' % password, shown)
        # the password never on stdout or stderr
        proc = subprocess.run(
            ['openstack', 'overcloud', 'credentials', self.plan,
             '--directory', where], capture_output=True, text=True,
            env=self.env)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNotIn(password, proc.stdout + proc.stderr)

    def test_refused_when_the_stack_has_no_such_outputs(self):
        self.templates = base.write_tree(os.path.join(
            self.tmp, 'plain-' + self.plan), deploy_base.TEMPLATES)
        self.registry = os.path.join(self.templates, 'registry.yaml')
        self.assertEqual('SUCCESS', self.first_deploy()['status'])
        out = self.credentials('--directory', self.tmp, fail=True)
        self.assertEqual('REFUSED', out['status'])
        self.assertFalse(os.path.exists(os.path.join(
            self.tmp, '%src' % self.plan)))
