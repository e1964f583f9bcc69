"""``overcloud plan show`` on a real plan, before and after a deploy of the
small templates of tests/functional/deploy_base."""

from tests.functional import deploy_base

COLUMNS = ['plan', 'templates', 'templates_source', 'environments',
           'inputs', 'steps', 'last_step', 'open_step', 'stack',
           'environment_names']


class TestPlanShow(deploy_base.DeployTest):

    def show(self):
        result = self.openstack_json('overcloud', 'plan', 'show', self.plan)
        self.assertEqual(COLUMNS, list(result))
        return result

    def test_created_amended_then_deployed(self):
        self.openstack('overcloud', 'plan', 'create', self.plan,
                       '--templates', self.templates, '-e', self.registry,
                       '-r', self.templates + '/roles_data.yaml',
                       '--no-render')
        self.openstack('overcloud', 'plan', 'amend', self.plan,
                       '-e', self.mine, '--no-render')
        shown = self.show()
        self.assertEqual(self.plan, shown['plan'])
        self.assertTrue(shown['templates'].startswith('digest '),
                        shown['templates'])
        self.assertEqual(self.templates, shown['templates_source'])
        self.assertEqual(['registry.yaml', 'user-files' + self.mine],
                         shown['environments'])
        self.assertEqual({'roles_data': 'roles_data.yaml'},
                         shown['inputs'])
        self.assertEqual(2, shown['steps'])
        last = shown['last_step']
        self.assertEqual((2, 'amend', 'SUCCESS'), (
            last['step'], last['action'], last['status']))
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual(history[-1]['id'], last['id'])
        self.assertEqual(history[-1]['time'], last['time'])
        self.assertEqual(history[-1]['user'], last['user'])
        self.assertIsNone(shown['open_step'])
        self.assertEqual((self.plan, None, None), (
            shown['stack']['name'], shown['stack']['id'],
            shown['stack']['updated']))
        self.assertTrue(shown['stack']['status'].startswith('NOT DEPLOYED'))

        deployed = self.deploy()
        self.assertEqual('CREATE_COMPLETE', deployed['stack_status'])
        shown = self.show()
        stack = self.stack()
        self.assertEqual({'name': self.plan, 'id': stack['id'],
                          'status': 'CREATE_COMPLETE',
                          'updated': stack['updated_time'] or
                          stack['creation_time']}, shown['stack'])
        self.assertEqual((3, 'deploy', 'SUCCESS'), (
            shown['steps'], shown['last_step']['action'],
            shown['last_step']['status']))
        self.assertIsNone(shown['open_step'])

    def test_an_unknown_plan_is_rc_1_not_the_history(self):
        out, err = self.openstack('overcloud', 'plan', 'show', self.plan,
                                  fail=True)
        self.assertEqual('', out)
        self.assertIn('Plan %s does not exist' % self.plan, err)
