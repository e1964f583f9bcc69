"""Each user file is named as the user gave it: relative to the command's
directory when typed so, whatever temporary directory holds it; the
plan path (``user-files/<absolute path>``) stays where it is stored."""

import os
import tempfile
import unittest

from tests.unit import fakes
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import schema

write = fakes.write_file


class TestGivenNames(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = os.path.realpath(tmp.name)
        self.tht = os.path.join(self.root, 'tht')
        write(os.path.join(self.tht, 'overcloud.yaml'), 'x: 1\n')
        write(os.path.join(self.tht, 'environments', 'ha.yaml'),
              'parameter_defaults: {A: 1}\n')
        self.work = os.path.join(self.root, 'work')
        write(os.path.join(self.work, 'envs', 'settings.yaml'),
              'resource_registry:\n'
              '  OS::TripleO::X: ../templates/x.yaml\n')
        write(os.path.join(self.work, 'templates', 'x.yaml'),
              'heat_template_version: rocky\n')
        write(os.path.join(self.work, 'roles.yaml'), '- name: Controller\n')
        write(os.path.join(self.work, 'data.bin'), 'data\n')
        here = os.getcwd()
        os.chdir(self.work)
        self.addCleanup(os.chdir, here)
        self.files = files_mod.PlanFiles(self.tht)

    def test_a_relative_environment_keeps_its_relative_name(self):
        path = self.files.add_environment('./envs/../envs/settings.yaml')
        self.assertEqual(files_mod.user_path(
            os.path.join(self.work, 'envs', 'settings.yaml')), path)
        self.assertEqual('envs/settings.yaml', self.files.names[path])
        self.assertEqual(self.work, self.files.directory)

    def test_a_referenced_file_is_named_from_its_referrer(self):
        self.files.add_environment('envs/settings.yaml')
        path = files_mod.user_path(
            os.path.join(self.work, 'templates', 'x.yaml'))
        self.assertEqual('templates/x.yaml', self.files.names[path])

    def test_an_absolute_argument_keeps_its_absolute_name(self):
        # what the shell makes of ~/settings.yaml
        given = os.path.join(self.work, 'envs', 'settings.yaml')
        path = self.files.add_environment(given)
        self.assertEqual(given, self.files.names[path])

    def test_a_name_outside_the_directory_climbs_to_it(self):
        os.chdir(os.path.join(self.work, 'templates'))
        path = self.files.add_environment('../envs/settings.yaml')
        self.assertEqual('../envs/settings.yaml', self.files.names[path])

    def test_an_environment_directory_names_its_files_under_it(self):
        found = self.files.add_environment_directory('envs')
        self.assertEqual(['envs/settings.yaml'],
                         [self.files.names[p] for p in found])

    def test_inputs_and_uploads_keep_their_names(self):
        roles = self.files.add_input('roles_data', 'roles.yaml',
                                     '--roles-file')
        upload = self.files.add_upload('data.bin')
        chosen = self.files.add_upload('data.bin=files/data.bin')
        self.assertEqual('roles.yaml', self.files.names[roles])
        self.assertEqual('data.bin', self.files.names[upload])
        self.assertEqual('data.bin', self.files.names[chosen])

    def test_a_templates_file_is_named_by_its_plan_path(self):
        path = self.files.add_environment(
            os.path.join(self.tht, 'environments', 'ha.yaml'))
        self.assertEqual('environments/ha.yaml', path)
        self.assertNotIn(path, self.files.names)

    def test_a_name_no_record_may_show_is_not_kept(self):
        name = 'bad\u2028.yaml'      # a line separator: not shown
        write(os.path.join(self.work, name), 'parameter_defaults: {}\n')
        path = self.files.add_environment(name)
        self.assertIn(path, self.files.sources)
        self.assertNotIn(path, self.files.names)
        self.assertIsNone(files_mod.given_name('x' * (
            schema.MAX_NAME_BYTES + 1)))
