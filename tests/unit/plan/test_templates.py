"""What a move to another templates release removes from the plan."""

import os
import shutil
import tempfile
import unittest

from tests.unit import fakes
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
            layout.PLAN_PARAMETERS, layout.USER_FILES + 'tmp/mine.yaml')}
        self.assertEqual(['gone.yaml'], templates.removed(
            stored, files, log.new_state(), rendered=()))


class TestReserved(unittest.TestCase):

    def test_no_file_takes_the_parameters_files_place(self):
        for source in ('user', 'templates'):
            self.assertIn('parameters set', layout.path_problem(
                layout.PLAN_PARAMETERS, source))
        self.assertIsNone(layout.path_problem(layout.PLAN_PARAMETERS,
                                              'stored'))
