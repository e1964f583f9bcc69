"""What a move to another templates release removes from the plan."""

import os
import shutil
import tempfile
import unittest

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import templates
from tripleoplanclient.record import log


class TestRemoved(unittest.TestCase):

    def test_the_plans_own_files_stay(self):
        root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, root)
        fakes.write_file(os.path.join(root, 'overcloud.yaml'))
        files = files_mod.PlanFiles(root)
        files.add_templates()
        stored = {p: 'md5' for p in (
            'overcloud.yaml', 'gone.yaml', layout.PLAN_ENVIRONMENT,
            layout.PLAN_PARAMETERS, layout.USER_FILES + 'tmp/mine.yaml',
            # node provision's: the deployed servers, their login user
            'baremetal-environment.yaml', 'baremetal-login.yaml')}
        self.assertEqual(['gone.yaml'], templates.removed(
            stored, files, log.new_state(), rendered=()))


class TestCheckEnvironments(unittest.TestCase):

    def setUp(self):
        super().setUp()
        root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, root)
        fakes.write_file(os.path.join(root, 'overcloud.yaml'))
        self.files = files_mod.PlanFiles(root)
        self.files.add_templates()

    def test_the_provisioned_servers_environment_is_the_plans(self):
        # written by node provision, in no templates release
        templates.check_environments(
            'overcloud', ['overcloud.yaml', 'baremetal-environment.yaml',
                          layout.USER_FILES + 'tmp/mine.yaml'],
            self.files, log.new_state())

    def test_an_environment_the_new_release_lacks_is_named(self):
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'does not have:\n  environments/gone.yaml\nDrop'):
            templates.check_environments(
                'overcloud', ['baremetal-environment.yaml',
                              'environments/gone.yaml'],
                self.files, log.new_state())


class TestReserved(unittest.TestCase):

    def test_no_file_takes_the_parameters_files_place(self):
        for source in ('user', 'templates'):
            self.assertIn('parameters set', layout.path_problem(
                layout.PLAN_PARAMETERS, source))
        self.assertIsNone(layout.path_problem(layout.PLAN_PARAMETERS,
                                              'stored'))
