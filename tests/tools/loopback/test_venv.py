"""tools/loopback/venv.py: what pip is asked to install, and when a venv
is installed again (pip itself is not run: subprocess.run is faked)."""

import os
import shutil
import subprocess
import tempfile
from unittest import mock

import testtools

from loopback import venv


class TestEnsureVenv(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.requirements = os.path.join(self.tmp, 'requirements')
        os.mkdir(self.requirements)
        self.write('thing.txt', '# a comment\nthing==1.0\n')
        self.write('thing-constraints.txt', 'thing==1.0\nother==2.0\n')
        for patcher in (
                mock.patch.object(venv, 'REQUIREMENTS', venv.Path(
                    self.requirements)),
                mock.patch.dict(os.environ, {'LOOPBACK_CACHE': self.tmp})):
            patcher.start()
            self.addCleanup(patcher.stop)
        self.commands = []

    def write(self, name, text):
        with open(os.path.join(self.requirements, name), 'w') as f:
            f.write(text)

    def fake_run(self, cmd, **kwargs):
        self.commands.append([str(c) for c in cmd])
        if cmd[1:3] == ['-m', 'venv']:
            python = venv.Path(cmd[3]) / 'bin' / 'python'
            python.parent.mkdir(parents=True)
            python.write_text('')
        return subprocess.CompletedProcess(cmd, 0, '', '')

    def ensure(self):
        self.commands = []
        with mock.patch.object(venv.subprocess, 'run', self.fake_run):
            return venv.ensure_venv('thing', 'thing')

    def pip_commands(self):
        return [c for c in self.commands if '-m' in c and 'pip' in c]

    def test_no_deps_file_installed_after_without_dependencies(self):
        self.write('thing-no-deps.txt', 'plugin==3.0  # no deps\n')
        where = self.ensure()
        first, second = self.pip_commands()
        constraints = os.path.join(self.requirements,
                                   'thing-constraints.txt')
        self.assertEqual(['-c', constraints, '-r', os.path.join(
            self.requirements, 'thing.txt')], first[-4:])
        self.assertNotIn('--no-deps', first)
        self.assertEqual(['-c', constraints, '--no-deps', '-r', os.path.join(
            self.requirements, 'thing-no-deps.txt')], second[-5:])
        self.assertEqual(os.path.join(self.tmp, 'venvs', 'thing'),
                         str(where))
        # installed: only the import check next time
        self.ensure()
        self.assertEqual([], self.pip_commands())
        # a new pin there: installed again
        self.write('thing-no-deps.txt', 'plugin==3.1\n')
        self.ensure()
        self.assertEqual(2, len(self.pip_commands()))

    def test_without_no_deps_file_one_install_and_the_same_marker(self):
        self.ensure()
        self.assertEqual(1, len(self.pip_commands()))
        marker = os.path.join(self.tmp, 'venvs', 'thing',
                              '.loopback-installed')
        with open(marker) as f:
            before = f.read()
        # an empty no-deps file changes nothing: venvs made before stay
        self.write('thing-no-deps.txt', '# nothing\n')
        self.ensure()
        self.assertEqual([], self.pip_commands())
        with open(marker) as f:
            self.assertEqual(before, f.read())
