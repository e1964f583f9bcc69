"""README.rst is the first contact: short, and every command and link in
it true (the rest of what it once said lives in doc/source)."""

import os
import re

import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def read(*path):
    with open(os.path.join(ROOT, *path)) as f:
        return f.read()


class TestReadme(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.readme = read('README.rst')
        # the lines of its literal blocks, comments and indent dropped
        self.commands = {line.split('#')[0].strip()
                         for line in self.readme.splitlines()
                         if line.startswith('    ')}

    def test_short(self):
        self.assertLessEqual(len(self.readme.splitlines()), 150)

    def test_names_the_command_ci_runs(self):
        ci = re.search(r'^exec (.+)$', read('.ci', 'run'), re.M).group(1)
        self.assertIn(ci, self.commands)

    def test_the_main_job_and_the_unit_path(self):
        for command in ('bash tools/demo.sh', 'bash tools/run-tests.sh unit'):
            self.assertIn(command, self.commands)
            self.assertTrue(os.path.isfile(os.path.join(
                ROOT, command.split()[1])), command)

    def test_links_reach_existing_pages(self):
        links = re.findall(r'<(doc/source/[^>]+)>`_', self.readme)
        missing = [link for link in links
                   if not os.path.isfile(os.path.join(ROOT, link))]
        self.assertEqual([], missing)
        self.assertGreater(len(links), 5)
