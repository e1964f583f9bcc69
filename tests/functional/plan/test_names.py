"""Environment files named as the operator gave them, on the loopback:
a relative ``-e`` from a temporary work directory reads as typed in
show-history's table, its plan path stays in the JSON; once the file is
removed, show-step says its source is gone, and an update with no ``-e``
says the stored copy is used (small templates of deploy_base)."""

import json
import os
import subprocess

from tests.functional import deploy_base


class TestGivenNames(deploy_base.DeployTest):

    def run_in(self, cwd, *args):
        """``openstack args`` run in ``cwd``; (stdout, stderr), rc 0."""
        proc = subprocess.run(['openstack'] + list(args), cwd=cwd,
                              capture_output=True, text=True, env=self.env,
                              stdin=subprocess.DEVNULL, timeout=600)
        self.assertEqual(0, proc.returncode, proc.stderr)
        return proc.stdout, proc.stderr

    def test_names_as_given_and_a_gone_source(self):
        work = os.path.realpath(os.path.dirname(self.write(
            '%s/tmp.Qz81/my-settings.yaml' % self.plan,
            'parameter_defaults:\n  Message: mine\n')))
        out, _ = self.run_in(work, 'overcloud', 'deploy', '--stack',
                             self.plan, '--templates', self.templates,
                             '-e', self.registry, '-e', 'my-settings.yaml',
                             '-f', 'json')
        self.assertEqual('CREATE_COMPLETE', json.loads(out)['stack_status'])
        stored = 'user-files%s/my-settings.yaml' % work

        table, _ = self.openstack('overcloud', 'plan', 'show-history',
                                  self.plan, '-c', 'environments')
        # the first step's list, in its order, by the names given
        self.assertLess(table.index('+ registry.yaml'),
                        table.index('+ my-settings.yaml'))
        self.assertNotIn('user-files', table)
        # the create deploy --templates makes, then the deploy
        created, row = self.openstack_json('overcloud', 'plan',
                                           'show-history', self.plan)
        self.assertEqual(['registry.yaml', stored], row['environments'])
        self.assertEqual(['registry.yaml', 'my-settings.yaml'],
                         row['environment_names'])
        self.assertEqual(created['environment_names'],
                         row['environment_names'])
        from tripleoplanclient.record import log
        name, = [n for n in self.swift.listing(self.plan)
                 if log.id_of(n) == created['id']]
        self.assertEqual(work, log.load_step(self.swift.get(
            self.plan, name), self.plan, name)['directory'])

        def source(step):
            out, err = self.openstack('overcloud', 'plan', 'show-step',
                                      self.plan, step, '-f', 'json')
            found, = [r for r in json.loads(out) if r['path'] == stored]
            return (found['name'], found['source_state']), err

        self.assertEqual(('my-settings.yaml', 'present'), source('2')[0])
        os.remove(os.path.join(work, 'my-settings.yaml'))
        state, err = source('2')
        self.assertEqual(('my-settings.yaml', 'gone'), state)
        self.assertIn('gone from this machine (the plan keeps its copies): '
                      'my-settings.yaml', err)

        out, err = self.openstack('overcloud', 'update', '--stack',
                                  self.plan, '-y', '-c', 'stack_status',
                                  '-c', 'environments')
        self.assertIn('UPDATE_COMPLETE', out)
        self.assertIn('environments/lifecycle/update-prepare.yaml, '
                      'registry.yaml, my-settings.yaml', out)
        self.assertIn("1 recorded source(s) gone from this machine; the "
                      "plan's stored copies are used:\n  my-settings.yaml "
                      "(%s)" % stored, err)
        self.assertEqual('mine/update-prepare', self.outputs()['value'])
