import os
import tempfile
import unittest

from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.plan import files as files_mod


write = fakes.write_file


class TestPlanFiles(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = self.tmp.name
        self.tht = os.path.join(self.root, 'tht')
        write(os.path.join(self.tht, 'overcloud.j2.yaml'), 'x: 1\n')
        write(os.path.join(self.tht, 'deployment', 'a.yaml'),
              'heat_template_version: rocky\n')
        write(os.path.join(self.tht, 'environments', 'ha.yaml'),
              'resource_registry:\n  OS::TripleO::A: ../deployment/a.yaml\n')
        write(os.path.join(self.tht, 'environments',
                           'net-iso.j2.yaml'), 'x: 1\n')
        write(os.path.join(self.tht, '.git', 'HEAD'), 'ref\n')
        self.user = os.path.join(self.root, 'home', 'stack')

    def files(self):
        return files_mod.PlanFiles(self.tht)

    def test_templates_keep_their_relative_paths_and_skip_vcs(self):
        files = self.files()
        files.add_templates()
        self.assertEqual(
            ['deployment/a.yaml', 'environments/ha.yaml',
             'environments/net-iso.j2.yaml', 'overcloud.j2.yaml'],
            sorted(files.objects))

    def test_environment_inside_templates_is_referenced_not_copied(self):
        files = self.files()
        path = files.add_environment(
            os.path.join(self.tht, 'environments', 'ha.yaml'))
        self.assertEqual('environments/ha.yaml', path)
        self.assertEqual({}, files.objects)
        self.assertEqual(['environments/ha.yaml'], files.environments)

    def test_rendered_environment_is_accepted_by_its_output_name(self):
        files = self.files()
        files.add_environment(
            os.path.join(self.tht, 'environments', 'net-iso.yaml'))
        self.assertEqual(['environments/net-iso.yaml'], files.environments)

    def test_j2_environment_suggests_the_rendered_name(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'instead: .*net-iso\.yaml'):
            self.files().add_environment(
                os.path.join(self.tht, 'environments', 'net-iso.j2.yaml'))

    def test_user_environment_and_references_go_to_user_files(self):
        script = write(os.path.join(self.user, 'scripts', 'run.sh'), 'echo\n')
        write(os.path.join(self.user, 'nested.yaml'),
              'heat_template_version: rocky\nresources:\n  r:\n'
              '    type: OS::Heat::SoftwareConfig\n    properties:\n'
              '      config: {get_file: scripts/run.sh}\n')
        env = write(os.path.join(self.user, 'env.yaml'),
                    '# my settings\nresource_registry:\n'
                    '  OS::TripleO::N: ./nested.yaml  # keep me\n'
                    '  OS::TripleO::A: %s/deployment/a.yaml\n'
                    '  OS::TripleO::B: file://%s\n'
                    '  OS::TripleO::None: OS::Heat::None\n'
                    'parameter_defaults:\n  Foo: ./nested.yaml\n'
                    % (self.tht, os.path.join(self.user, 'nested.yaml')))
        files = self.files()
        plan_path = files.add_environment(env)
        prefix = 'user-files' + self.user
        self.assertEqual(prefix + '/env.yaml', plan_path)
        self.assertEqual(
            sorted([prefix + '/env.yaml', prefix + '/nested.yaml',
                    prefix + '/scripts/run.sh']), sorted(files.objects))
        self.assertEqual(script, files.sources[prefix + '/scripts/run.sh'])
        stored = files.objects[prefix + '/env.yaml'].decode()
        data = yaml.safe_load(stored)
        registry = data['resource_registry']
        depth = prefix.count('/') + 1
        self.assertEqual('../' * depth + 'deployment/a.yaml',
                         registry['OS::TripleO::A'])
        self.assertEqual('nested.yaml', registry['OS::TripleO::B'])
        self.assertEqual('./nested.yaml', registry['OS::TripleO::N'])
        self.assertEqual('OS::Heat::None', registry['OS::TripleO::None'])
        # Parameters are not references, comments survive the rewrite.
        self.assertEqual('./nested.yaml', data['parameter_defaults']['Foo'])
        self.assertIn('# my settings', stored)
        self.assertIn('# keep me', stored)

    def test_reference_to_missing_file_names_both(self):
        env = write(os.path.join(self.user, 'env.yaml'),
                    'resource_registry:\n  OS::TripleO::X: missing.yaml\n')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'env.yaml references missing.yaml'):
            self.files().add_environment(env)

    def test_invalid_yaml_names_file_and_line(self):
        env = write(os.path.join(self.user, 'bad.yaml'),
                    'parameter_defaults:\n  A: [1, 2\n  B: 3\n')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'bad.yaml is not valid YAML \(line'):
            self.files().add_environment(env)

    def test_missing_environment_file(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'nope.yaml does not exist'):
            self.files().add_environment(os.path.join(self.user, 'nope.yaml'))

    def test_environment_must_be_a_mapping_of_known_sections(self):
        env = write(os.path.join(self.user, 'list.yaml'), '- a\n')
        with self.assertRaisesRegex(exceptions.CommandError, 'mapping'):
            self.files().add_environment(env)
        env = write(os.path.join(self.user, 'typo.yaml'),
                    'parameter_default:\n  A: 1\n')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'parameter_default'):
            self.files().add_environment(env)

    def test_environment_directory_is_sorted_and_skips_j2(self):
        d = os.path.join(self.user, 'envs')
        for name in ('b.yaml', 'a.yaml', 'c.j2.yaml', 'notes.txt'):
            write(os.path.join(d, name), 'parameter_defaults: {}\n')
        files = self.files()
        files.add_environment_directory(d)
        self.assertEqual(['user-files%s/%s' % (d, n) for n in
                          ('a.yaml', 'b.yaml')], files.environments)

    def test_repeated_environment_is_listed_once(self):
        env = write(os.path.join(self.user, 'e.yaml'), '{}\n')
        files = self.files()
        files.add_environment(env)
        files.add_environment(env)
        self.assertEqual(1, len(files.environments))

    def test_upload_file_targets(self):
        local = write(os.path.join(self.user, 'cert.pem'), 'PEM\n')
        files = self.files()
        self.assertEqual('user-files' + local, files.add_upload(local))
        self.assertEqual('ssl/cert.pem',
                         files.add_upload(local + '=ssl/cert.pem'))
        for bad in ('../x', '/etc/x', 'a/../../x', 'a/./b', 'dir/',
                    'user-environments/environments.yaml', ''):
            with self.assertRaises(exceptions.CommandError, msg=bad):
                files.add_upload(local + '=' + bad)

    def test_roles_file_is_checked_and_recorded_as_input(self):
        roles = write(os.path.join(self.user, 'roles.yaml'),
                      '- name: Controller\n- name: Compute\n')
        files = self.files()
        files.add_input('roles_data', roles, '--roles-file')
        self.assertEqual({'roles_data': 'user-files' + roles}, files.inputs)
        bad = write(os.path.join(self.user, 'bad-roles.yaml'),
                    '- name: Controller\n- count: 1\n')
        with self.assertRaisesRegex(exceptions.CommandError, 'name'):
            files.add_input('roles_data', bad, '--roles-file')


class TestRewriteText(unittest.TestCase):

    def test_ambiguous_text_falls_back_to_a_fresh_dump(self):
        # The same string is a reference once and a plain value once: the
        # textual replace would change both, so the data is dumped anew.
        text = 'a: x.yaml\nb: x.yaml\n'
        expected = {'a': '../x.yaml', 'b': 'x.yaml'}
        out = files_mod._rewrite_text(text, {'x.yaml': '../x.yaml'},
                                      expected)
        self.assertEqual(expected, yaml.safe_load(out))


class TestHostileEnvironments(unittest.TestCase):
    """What a user's environment file may hold: a clear error naming the
    file, or the file stored with its references right."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.user = os.path.join(self.tmp.name, 'home')
        self.nested = write(os.path.join(self.user, 'nested.yaml'),
                            'heat_template_version: rocky\n')

    def env(self, data, name='env.yaml'):
        path = os.path.join(self.user, 'envs', name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def refused(self, path, *words):
        files = files_mod.PlanFiles(None)
        with self.assertRaises(exceptions.CommandError) as caught:
            files.add_environment(path)
        for word in words:
            self.assertIn(word, str(caught.exception))
        self.assertEqual({}, files.objects)

    def test_keys_of_mixed_types(self):
        for text in (b'1: a\nb: c\n', b'null:\nresource_registry: {}\n',
                     b'? [1, 2]\n: x\n'):
            path = self.env(text)
            self.refused(path, path)

    def test_a_recursive_alias_in_resource_registry(self):
        for text in (b'resource_registry: &a [*a]\n',
                     b'resource_registry: &a {x: *a}\n'):
            path = self.env(text)
            self.refused(path, path, 'line 1', 'recursive')

    def test_a_recursive_alias_in_a_referenced_template(self):
        template = write(os.path.join(self.user, 'rec.yaml'),
                         'heat_template_version: rocky\n'
                         'resources: &r {a: [*r]}\n')
        path = self.env(b'resource_registry:\n  OS::R: ../rec.yaml\n')
        self.refused(path, template, 'line 2', 'recursive')

    def test_a_utf16_file_is_rewritten_and_stored_as_utf8(self):
        path = self.env(('# caf\xe9\nresource_registry:\n  OS::N: %s\n'
                         % self.nested).encode('utf-16'))
        files = files_mod.PlanFiles(None)
        plan_path = files.add_environment(path)
        stored = files.objects[plan_path].decode('utf-8')
        self.assertEqual({'resource_registry': {'OS::N': '../nested.yaml'}},
                         yaml.safe_load(stored))
        self.assertIn('# caf\xe9', stored)

    def test_a_file_that_is_not_utf8(self):
        path = self.env(('# caf\xe9\nresource_registry:\n  OS::N: %s\n'
                         % self.nested).encode('latin-1'))
        self.refused(path, path, 'UTF-8')

    def test_duplicate_keys_name_file_line_and_key(self):
        path = self.env(b'resource_registry:\n  OS::A: ../nested.yaml\n'
                        b'  OS::A: ../other.yaml\n')
        self.refused(path, path, 'line 3', "'OS::A' appears twice")

    def test_a_billion_laughs_is_refused(self):
        lines = ['  a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        lines += ['  a%d: &a%d [%s]' % (i, i, ', '.join(
            ['*a%d' % (i - 1)] * 10)) for i in range(1, 12)]
        path = self.env(('parameter_defaults:\n%s\nresource_registry:\n'
                         '  OS::N: %s\n' % ('\n'.join(lines), self.nested)
                         ).encode())
        self.refused(path, path, 'aliases expand')

    def test_a_template_shared_by_an_alias_is_rewritten_once(self):
        # The second visit of a shared node used to see the rewritten,
        # plan-relative reference and look for it on disk.
        tht = os.path.join(self.tmp.name, 'tht')
        inside = write(os.path.join(tht, 'a.yaml'), 'heat: 1\n')
        template = write(os.path.join(self.user, 't', 'shared.yaml'),
                         'heat_template_version: rocky\nresources:\n'
                         '  a: &x {type: %s}\n  b: *x\n' % inside)
        path = self.env(b'resource_registry:\n  OS::S: ../t/shared.yaml\n')
        files = files_mod.PlanFiles(tht)
        files.add_environment(path)
        stored = yaml.safe_load(files.objects['user-files' + template])
        self.assertEqual({'type': '../' * template.count('/') + 'a.yaml'},
                         stored['resources']['a'])
        self.assertEqual(stored['resources']['a'], stored['resources']['b'])
