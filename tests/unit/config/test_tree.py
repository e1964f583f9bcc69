"""tree.files on plan content that is not what THT writes: names that
would leave the tree or hide in it, values that are no files, YAML that
looks like aliases, sizes, and the same bytes for the same stack."""

import copy
import unittest
from unittest import mock

import yaml

from tests.unit.config import reference
from tests.unit.config import stacks
from tripleoplanclient.common import exceptions
from tripleoplanclient.config import tree
from tripleoplanclient.config import writing

HOSTILE = ['../x', '..', '.', '/etc/passwd', 'a/b', 'a\x00b', 'a\nb', '',
           '.git', '.hidden', '\x7f', 'é' * 128, 'x' * 256]


def overcloud_data():
    return reference.ours(stacks.overcloud())[1]


class TestNames(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.data = overcloud_data()

    def refused(self, data, word):
        with self.assertRaises(exceptions.CommandError) as caught:
            tree.files(data)
        self.assertIn(word, str(caught.exception))
        return str(caught.exception)

    def test_hostile_names_refused(self):
        places = {
            'role': lambda d, bad: d['outputs']['RoleData'].__setitem__(
                bad, {'step_config': 'x'}),
            'RoleData key': lambda d, bad: d['outputs']['RoleData'][
                'Compute'].__setitem__(bad, []),
            'RoleConfig key': lambda d, bad: d['outputs'][
                'RoleConfig'].__setitem__(bad, []),
            'server': lambda d, bad: d['deployments'][0].__setitem__(
                'server', bad),
            'deployment': lambda d, bad: d['deployments'][-1].__setitem__(
                'name', bad),
        }
        for place, put in places.items():
            for bad in HOSTILE:
                with self.subTest(place=place, name=bad):
                    data = copy.deepcopy(self.data)
                    put(data, bad)
                    message = self.refused(data, 'The %s ' % place)
                    self.assertNotIn('\x00', message)
                    self.assertLess(len(message), 400)

    def test_a_server_named_in_the_outputs(self):
        for bad in ('../../etc', '.ssh'):
            data = copy.deepcopy(self.data)
            data['outputs']['RoleNetHostnameMap']['Compute']['ctlplane'][
                1] = bad + '.ctlplane.localdomain'
            data['deployments'] = []
            self.refused(data, 'The server ')

    def test_odd_names_that_stay_inside(self):
        data = copy.deepcopy(self.data)
        for name in ('a..b', 'Ünïcode', 'x' * 255, 'with space'):
            data['outputs']['RoleConfig'][name] = ['ok']
        files = tree.files(data)
        self.assertIn('a..b', files)
        self.assertIn('Ünïcode.yaml', files)
        self.assertIn('with space.yaml', files)

    def test_a_file_that_is_a_folder(self):
        data = copy.deepcopy(self.data)
        data['outputs']['RoleData']['deployments.yaml'] = {'x': []}
        self.refused(data, "'deployments.yaml' as both a file and a folder")


class TestValues(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.data = overcloud_data()

    def refused(self, data, word):
        with self.assertRaises(exceptions.CommandError) as caught:
            tree.files(data)
        self.assertIn(word, str(caught.exception))

    def test_not_files(self):
        cases = [
            (('RoleData', 'Compute', 'step_config'), 3, 'is not text'),
            (('RoleData', 'Compute', 'deploy_steps_tasks'), {'a': 1},
             'is not a list of tasks'),
            (('RoleData', 'Compute', 'update_tasks'), ['x'],
             'is not a mapping'),
            (('RoleData', 'Compute'), ['x'], 'is not a mapping'),
            (('RoleConfig', 'deploy_steps_playbook'), 7,
             'neither text, a list nor a mapping'),
            (('RoleConfig',), 'x', 'is not a mapping'),
            (('RoleConfig', 'script'), 'a\ud800', 'is not valid text'),
            (('RoleData', 'Compute', 'step_config'), '\udc80',
             'is not valid text'),
            (('AnsibleHostVarsMap', 'Compute', 'overcloud-novacompute-0'),
             ['x'], 'is not a mapping'),
        ]
        for keys, value, word in cases:
            with self.subTest(keys=keys):
                data = copy.deepcopy(self.data)
                at = data['outputs']
                for key in keys[:-1]:
                    at = at[key]
                at[keys[-1]] = value
                self.refused(data, word)

    def test_missing_parts_are_empty(self):
        data = copy.deepcopy(self.data)
        for key in ('RoleGroupVars', 'AnsibleHostVarsMap', 'RoleConfig'):
            del data['outputs'][key]
        files = tree.files(data)
        self.assertEqual(b'{}\n', files['group_vars/Compute'][0])
        self.assertEqual(
            {'pre_network_Compute': ['ComputePreNetworkDeployment'],
             'pre_deployments_Compute': [
                 'ComputeDeployment', 'ComputeUpgradeInitDeployment',
                 'ComputeSwapDeployments'],
             'post_deployments_Compute': ['ComputePostConfigDeployment']},
            yaml.safe_load(files['host_vars/overcloud-novacompute-1'][0]))
        self.assertNotIn('deploy_steps_playbook.yaml', files)

    def test_no_outputs(self):
        data = dict(self.data, outputs={}, deployments=[])
        self.assertEqual(['.gitignore', 'deployments.yaml',
                          'templates/heat-config.j2'],
                         sorted(tree.files(data)))

    def test_config_type_one_name(self):
        one = tree.files(self.data, 'step_config')
        self.assertEqual(one, tree.files(self.data, ['step_config']))
        self.assertIn('Compute/step_config.pp', one)
        self.assertNotIn('Compute/deploy_steps_tasks.yaml', one)
        # a name a role lacks: that role has no such file
        self.assertEqual(one, tree.files(self.data, ['step_config', 'nope']))

    def test_steps(self):
        files = tree.files(self.data)
        names = {step: [t['name'] for t in yaml.safe_load(files[
            'Controller/deploy_steps_tasks_step%d.yaml' % step][0])]
            for step in range(6)}
        self.assertEqual(['Controller step 1', 'Controller every step',
                          'Controller with a boolean when'], names[1])
        self.assertEqual(['Controller steps 2 and 3',
                          'Controller every step',
                          'Controller with a boolean when'], names[3])
        self.assertEqual(['Controller every step',
                          'Controller step 5 in parens',
                          'Controller with a boolean when'], names[5])
        self.assertNotIn('Controller/post_update_tasks_step4.yaml', files)

    def test_secrets_only_where_they_must_be(self):
        files = tree.files(self.data)
        holding = sorted(p for p, (body, _) in files.items()
                         if b'in a file that must hold it' in body)
        self.assertEqual(['Compute/config_settings.yaml',
                          'Controller/config_settings.yaml'], holding)
        self.assertEqual({0o600}, {files[p][1] for p in holding})
        # the stack environment's password is the inventory's, not here
        self.assertFalse([p for p, (body, _) in files.items()
                          if b'secret-admin-pw' in body])


class TestYaml(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.data = overcloud_data()

    def test_alias_looking_text_stays_text(self):
        files = tree.files(self.data)
        self.assertEqual(['&anchor', '*alias', '<<: *x', '!!python/name'],
                         yaml.safe_load(files[
                             'Compute/anchors_are_text.yaml'][0]))

    def test_shared_values_are_written_out(self):
        data = copy.deepcopy(self.data)
        shared = {'a': [1, 2]}
        data['outputs']['RoleConfig']['shared'] = [shared, shared]
        body = tree.files(data)['shared.yaml'][0]
        self.assertNotIn(b'&', body)
        self.assertNotIn(b'*', body)
        self.assertEqual([shared, shared], yaml.safe_load(body))

    def test_a_bomb_of_shared_values(self):
        data = copy.deepcopy(self.data)
        value = ['lol'] * 10
        for _ in range(8):
            value = [value] * 10
        data['outputs']['RoleConfig']['lol'] = value
        with mock.patch.object(writing, 'MAX_NODES', 100000):
            with self.assertRaises(exceptions.CommandError) as caught:
                tree.files(data)
        self.assertIn('more than 100000 values', str(caught.exception))

    def test_too_deep(self):
        data = copy.deepcopy(self.data)
        value = []
        for _ in range(150):
            value = [value]
        data['outputs']['RoleConfig']['deep'] = value
        with self.assertRaises(exceptions.CommandError) as caught:
            tree.files(data)
        self.assertIn('deeper than 100 levels', str(caught.exception))

    def test_caps(self):
        with mock.patch.object(tree, 'MAX_FILES', 10):
            with self.assertRaises(exceptions.CommandError) as caught:
                tree.files(self.data)
        self.assertIn('more than 10', str(caught.exception))
        with mock.patch.object(tree, 'MAX_BYTES', 1 << 20):
            data = copy.deepcopy(self.data)
            data['outputs']['RoleConfig']['big'] = 'x' * (1 << 20)
            with self.assertRaises(exceptions.CommandError) as caught:
                tree.files(data)
        self.assertIn('more than 1 MiB', str(caught.exception))


class TestDeterministic(unittest.TestCase):

    def test_same_stack_same_bytes(self):
        first = reference.ours(stacks.overcloud())[0]
        again = reference.ours(stacks.overcloud())[0]
        self.assertEqual(first, again)
        self.assertEqual(sorted(first), list(first))

    def test_same_data_same_bytes(self):
        data = overcloud_data()
        self.assertEqual(tree.files(data), tree.files(copy.deepcopy(data)))
