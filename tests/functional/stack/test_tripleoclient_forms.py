"""python-tripleoclient's forms through the real ``openstack``, small
templates: ``~/.tripleo/environments`` read by default, ``-t``,
``overcloud update prepare`` / ``upgrade converge`` meaning ``--stage``,
``plan export -o``, and a bare ``--templates`` where nothing is
installed."""

import json
import os

from tests.functional import deploy_base

INSTALLED = '/usr/share/openstack-tripleo-heat-templates'


class TestTripleoclientForms(deploy_base.DeployTest):

    def run_json(self, env, *args):
        out, err = self.openstack(*(args + ('-f', 'json')), env=env)
        return json.loads(out), err

    def test_deploy_update_prepare_upgrade_converge(self):
        # A HOME of the test's own: its ~/.tripleo/environments holds one
        # file, read without being named.
        home = os.path.join(self.tmp, self.plan, 'home')
        extra = self.write('%s/home/.tripleo/environments/extra.yaml'
                           % self.plan, 'parameter_defaults:\n  Extra: '
                           'home\n')
        env = dict(self.env, HOME=home)
        env.pop('TRIPLEO_ENVIRONMENT_DIRECTORY', None)

        if not os.path.isdir(INSTALLED):
            out, err = self.openstack('overcloud', 'deploy', '--stack',
                                      self.plan, '--templates', fail=True,
                                      env=env)
            self.assertIn('the installed templates tree %s does not exist'
                          % INSTALLED, err)
            self.assertIsNone(self.swift.listing(self.plan))

        created, err = self.run_json(
            env, 'overcloud', 'deploy', '--stack', self.plan, '--templates',
            self.templates, '-e', self.registry, '-e', self.mine, '-t', '5')
        mine = ['registry.yaml', 'user-files' + self.mine]
        self.assertEqual(['user-files' + extra] + mine,
                         created['environments'])
        self.assertIn('Environment directory %s (the default): user-files%s.'
                      % (os.path.dirname(extra), extra), err)
        self.assertEqual('mine/home', self.outputs()['value'])
        self.assertEqual(5, self.stack()['timeout_mins'])

        recorded = self.record()['environments']
        updated, _ = self.run_json(env, 'overcloud', 'update', 'prepare',
                                   '--stack', self.plan, '-y')
        self.assertEqual(('update', 'UPDATE', 'UPDATE_COMPLETE'), (
            updated['action'], updated['operation'],
            updated['stack_status']))
        self.assertEqual(['environments/lifecycle/update-prepare.yaml'] +
                         recorded, updated['environments'])
        # In front, as tripleoclient puts it: the plan's extra.yaml sets
        # Extra too, and wins.
        self.assertEqual('mine/home', self.outputs()['value'])

        # --stage is the same thing: Heat gets the same list.
        staged, _ = self.run_json(env, 'overcloud', 'update', '--stage',
                                  'prepare', '--stack', self.plan, '-y')
        self.assertEqual(updated['environments'], staged['environments'])

        converged, _ = self.run_json(env, 'overcloud', 'upgrade', 'converge',
                                     '--stack', self.plan, '-y')
        self.assertEqual(('upgrade', recorded),
                         (converged['action'], converged['environments']))
        self.assertEqual('mine/home', self.outputs()['value'])
        history = self.record()['history']
        self.assertEqual(['create', 'deploy', 'update', 'update', 'upgrade'],
                         [s['action'] for s in history])
        self.assertIn('overcloud upgrade converge --stack %s' % self.plan,
                      history[-1]['command'])

        exported = os.path.join(self.tmp, self.plan, 'plan.tar.gz')
        self.openstack('overcloud', 'plan', 'export', self.plan, '-o',
                       exported, env=env)
        self.assertTrue(os.path.getsize(exported))
