"""Issue 26 (5): no environment file in the stack's files map.

An operator's own ``-e`` file sets a hidden parameter; after the deploy,
``openstack stack file list`` shows no environment file (Heat has their
merge), and ``stack environment show`` masks the hidden value.
"""

import json
import uuid

from tests.functional import deploy_base


class TestNoEnvironmentFileInHeat(deploy_base.DeployTest):

    def test_stack_files_hold_no_environment_and_hidden_is_masked(self):
        secret = 'operator-pw-%s' % uuid.uuid4().hex
        own = self.write('%s/own.yaml' % self.plan,
                         'parameter_defaults:\n  AdminPassword: %s\n'
                         '  Extra: own-extra\n' % secret)
        result = self.deploy('--templates', self.templates, '-e',
                             self.registry, '-e', self.mine, '-e', own)
        self.assertEqual('SUCCESS', result['status'])
        # the values did reach the stack
        self.assertEqual('mine/own-extra', self.outputs()['value'])
        self.assertEqual(len(secret), self.outputs()['password_length'])
        files, _ = self.openstack('stack', 'file', 'list', self.plan,
                                  '-f', 'json')
        names = json.loads(files)['files']
        self.assertIn('thing.yaml', ' '.join(names))   # templates stay
        for path in result['environments']:
            self.assertFalse([n for n in names if n.endswith('/' + path)],
                             path)
        for value in (secret, 'own-extra', 'Message: mine', '"mine"'):
            self.assertNotIn(value, files)
        environment, _ = self.openstack('stack', 'environment', 'show',
                                        self.plan, '-f', 'json')
        defaults = json.loads(environment)['parameter_defaults']
        self.assertEqual('******', defaults['AdminPassword'])
        self.assertNotIn(secret, environment)
