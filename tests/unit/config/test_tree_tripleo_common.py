"""The tree equals what tripleo-common 18.0.0's ``download_config`` writes
on the same Heat, file for file: the same paths, each YAML file equal as
data, every other file byte for byte, the same modes."""

import os
import unittest

import yaml

from tests import config_trees
from tests.unit.config import reference
from tests.unit.config import stacks


class TestSameTree(unittest.TestCase):

    def assertSameTree(self, ours, theirs):
        self.assertEqual([], config_trees.differences(ours, theirs))

    def test_the_overcloud(self):
        cloud = stacks.overcloud()
        ours, _, _ = reference.ours(cloud)
        theirs, _ = reference.tripleo_common(cloud)
        self.assertSameTree(ours, theirs)
        # what the stack holds, all there: every server's deployments,
        # the steps, the role configs, the static files
        for path in ('Controller/overcloud-controller-0/ControllerDeployment',
                     'Compute/overcloud-novacompute-1/'
                     'ComputeSwapDeployments',
                     'Compute/overcloud-novacompute-0/'
                     'ComputeUpgradeInitDeployment',
                     'Controller/overcloud-controller-0/'
                     'ControllerPostConfigDeployment',
                     'Compute/deploy_steps_tasks_step5.yaml',
                     'Compute/post_update_tasks_step3.yaml',
                     'Controller/step_config.pp',
                     'Controller/param_config.json',
                     'external_deploy_steps_tasks_step0.yaml',
                     'common_deploy_steps_tasks.yaml',
                     'container_puppet_script.yaml',
                     'group_vars/Compute', 'host_vars/overcloud-controller-0',
                     'deployments.yaml', 'templates/heat-config.j2'):
            self.assertIn(path, ours)
        self.assertEqual(101, len(ours))
        # neither the excluded server's nor the one never deployed
        self.assertFalse([p for p in ours if 'Excluded' in p or
                          'DeleteOnly' in p])

    def test_config_types(self):
        cloud = stacks.overcloud()
        kinds = ['deploy_steps_tasks', 'step_config', 'host_prep_tasks']
        ours, _, _ = reference.ours(cloud, kinds)
        theirs, _ = reference.tripleo_common(cloud, kinds)
        self.assertSameTree(ours, theirs)
        self.assertNotIn('Controller/update_tasks.yaml', ours)
        self.assertIn('Controller/host_prep_tasks.yaml', ours)

    def test_a_larger_stack(self):
        cloud = stacks.many(roles=2, per_role=12, servers_per_role=3)
        ours, _, _ = reference.ours(cloud)
        theirs, _ = reference.tripleo_common(cloud)
        self.assertSameTree(ours, theirs)
        self.assertEqual(24, len([p for p in ours if p.count('/') == 2]))

    def test_quirks_of_template_text(self):
        cloud = stacks.quirks()
        ours, _, _ = reference.ours(cloud)
        theirs, _ = reference.tripleo_common(cloud)
        self.assertSameTree(ours, theirs)
        # the deployment named true: a boolean to YAML, in both
        doc = yaml.safe_load(ours['Role0/overcloud-role0-0/true'][0])
        self.assertEqual([True], list(doc))
        self.assertIsNone(yaml.safe_load(
            ours['Role0/overcloud-role0-0/Empty'][0])['Empty']['outputs'])

    def test_a_difference_is_seen(self):
        # the comparison itself: one value changed is a failure
        cloud = stacks.overcloud()
        ours, _, _ = reference.ours(cloud)
        theirs, _ = reference.tripleo_common(cloud)
        path = os.path.join('group_vars', 'Compute')
        body, mode = ours[path]
        ours[path] = (body.replace(b'nova_compute', b'nova_other'), mode)
        self.assertRaises(AssertionError, self.assertSameTree, ours, theirs)
