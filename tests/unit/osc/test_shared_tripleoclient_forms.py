"""python-tripleoclient's forms mean here what they mean there: a bare
``--templates``, ``-t``, ``-o``, ``~/.tripleo/environments`` read by
default, ``overcloud update|upgrade prepare|converge``."""

import contextlib
import io
import os
import tempfile
import unittest
from unittest import mock

from cliff import commandmanager
from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.osc import base
from tripleoplanclient.osc import deploy
from tripleoplanclient.osc import plan as plan_commands

INSTALLED = '/usr/share/openstack-tripleo-heat-templates'
STACK_COMMANDS = (deploy.Deploy, deploy.Update, deploy.Upgrade,
                  deploy.UpdatePrepare, deploy.UpdateConverge,
                  deploy.UpgradePrepare, deploy.UpgradeConverge)


def parse(command, argv):
    return command(fakes.make_app({}), None).get_parser('x').parse_args(
        list(argv))


def refused(command, argv):
    """argparse's message (it exits 2)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            parse(command, argv)
        except SystemExit as exc:
            assert exc.code == 2, exc.code
            return err.getvalue()
    raise AssertionError('%s %s was accepted' % (command.__name__, argv))


class TestTemplates(unittest.TestCase):

    def test_bare_templates_is_the_installed_tree(self):
        for command in STACK_COMMANDS:
            self.assertEqual(INSTALLED, parse(
                command, ['--templates', '-e', 'x.yaml']).templates)
            self.assertEqual('/t', parse(command, ['--templates', '/t'])
                             .templates)
            # Without the option: the plan's recorded tree.
            self.assertIsNone(parse(command, []).templates)

    def test_plan_create_defaults_to_the_installed_tree(self):
        for argv in (['p'], ['p', '--templates']):
            self.assertEqual(INSTALLED, parse(plan_commands.CreatePlan,
                                              argv).templates)
        self.assertEqual('/t', parse(plan_commands.CreatePlan, [
            'p', '--templates', '/t']).templates)

    @unittest.skipIf(os.path.isdir(INSTALLED), 'the tree is installed here')
    def test_a_missing_installed_tree_says_so_and_what_to_do(self):
        parsed = parse(deploy.Deploy, ['--templates'])
        with self.assertRaisesRegex(
                exceptions.CommandError,
                '^--templates: the installed templates tree %s does not '
                'exist on this machine. Install openstack-tripleo-heat-'
                'templates, or give the tree\'s path: --templates <dir>.'
                % INSTALLED):
            base.plan_files(parsed, parsed.templates, with_tree=True)


class TestShortOptions(unittest.TestCase):

    def test_t_is_the_timeout_in_minutes(self):
        for command in STACK_COMMANDS:
            self.assertEqual(5.0, parse(command, ['-t', '5']).timeout)
            self.assertEqual(240, parse(command, []).timeout)
            self.assertIn('-t', refused(command, ['-t', 'nan']))

    def test_o_is_the_export_file(self):
        self.assertEqual('out.tar.gz', parse(plan_commands.ExportPlan, [
            'p', '-o', 'out.tar.gz']).output_file)


class TestStageCommands(unittest.TestCase):

    def test_each_command_is_its_stage(self):
        for command, stage in ((deploy.UpdatePrepare, 'prepare'),
                               (deploy.UpdateConverge, 'converge'),
                               (deploy.UpgradePrepare, 'prepare'),
                               (deploy.UpgradeConverge, 'converge')):
            self.assertEqual(stage, parse(command, []).stage)
            # The stage is the command's: no option to contradict it.
            self.assertIn('unrecognized arguments: --stage',
                          refused(command, ['--stage', 'prepare']))

    def test_stage_option_stays_an_alias(self):
        for command in (deploy.Update, deploy.Upgrade):
            self.assertEqual('prepare', parse(command, []).stage)
            self.assertEqual('converge', parse(
                command, ['--stage', 'converge']).stage)

    def test_openstack_finds_the_stage_commands(self):
        manager = commandmanager.CommandManager('openstack.tripleoplan.v1')
        for words, command in (
                ('overcloud update prepare', deploy.UpdatePrepare),
                ('overcloud update converge', deploy.UpdateConverge),
                ('overcloud upgrade prepare', deploy.UpgradePrepare),
                ('overcloud upgrade converge', deploy.UpgradeConverge),
                ('overcloud update', deploy.Update),
                ('overcloud upgrade', deploy.Upgrade)):
            found, name, rest = manager.find_command(
                words.split() + ['--stack', 'p', '-y'])
            self.assertEqual((command, words, ['--stack', 'p', '-y']),
                             (found, name, rest))


class TestEnvironmentDirectories(unittest.TestCase):
    """tripleoclient's ~/.tripleo/environments, in a HOME of the test's."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        self.home = os.path.join(self.root, 'home')
        self.templates = os.path.join(self.root, 'tht')
        os.makedirs(self.templates)
        environ = dict(os.environ, HOME=self.home)
        environ.pop('TRIPLEO_ENVIRONMENT_DIRECTORY', None)
        patcher = mock.patch.dict(os.environ, environ, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.mine = self.write('mine.yaml')
        self.lines = []

    def write(self, path):
        path = os.path.join(self.root, path)
        fakes.write_file(path, 'parameter_defaults: {}\n')
        return path

    def environments(self, command, *argv):
        parsed = parse(command, argv)
        return base.plan_files(parsed, self.templates,
                               progress=self.lines.append).environments

    def test_a_missing_default_directory_is_no_error(self):
        for command in (deploy.Deploy, deploy.UpdatePrepare,
                        plan_commands.CreatePlan):
            argv = ('p',) if command is plan_commands.CreatePlan else ()
            self.assertEqual(['user-files' + self.mine], self.environments(
                command, *(argv + ('-e', self.mine))))
        self.assertEqual([], self.lines)

    def test_the_default_directory_comes_before_the_e_files(self):
        found = [self.write('home/.tripleo/environments/%s' % name)
                 for name in ('b.yaml', 'a.yaml', 'net.j2.yaml', 'x.txt')]
        paths = ['user-files' + p for p in sorted(found[:2])]
        for command in STACK_COMMANDS + (plan_commands.CreatePlan,):
            argv = ('p',) if command is plan_commands.CreatePlan else ()
            self.assertEqual(paths + ['user-files' + self.mine],
                             self.environments(
                                 command, *(argv + ('-e', self.mine))))
        self.assertEqual('Environment directory %s (the default): %s.' % (
            os.path.join(self.home, '.tripleo', 'environments'),
            ', '.join(paths)), self.lines[0])

    def test_tripleoclient_order_of_the_directories(self):
        default = self.write('home/.tripleo/environments/z.yaml')
        named = self.write('named/a.yaml')
        variable = self.write('variable/0.yaml')
        os.environ['TRIPLEO_ENVIRONMENT_DIRECTORY'] = os.path.dirname(
            variable)
        self.assertEqual(
            ['user-files' + p for p in (default, named, variable,
                                        self.mine)],
            self.environments(
                deploy.Deploy, '-e', self.mine, '--environment-directory',
                os.path.dirname(named),
                # named twice: read once, in its first place
                '--environment-directory', os.path.dirname(default)))
        self.assertEqual(['the default', '--environment-directory',
                          '$TRIPLEO_ENVIRONMENT_DIRECTORY'],
                         [line.split('(')[1].split(')')[0]
                          for line in self.lines])

    def test_named_directories_must_exist(self):
        missing = os.path.join(self.root, 'nowhere')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    '--environment-directory %s is not a '
                                    'directory' % missing):
            self.environments(deploy.Deploy, '--environment-directory',
                              missing)
        os.environ['TRIPLEO_ENVIRONMENT_DIRECTORY'] = missing
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'\$TRIPLEO_ENVIRONMENT_DIRECTORY=%s is '
                                    'not a directory: create it or unset '
                                    'the variable' % missing):
            self.environments(deploy.Deploy)

    def test_amend_reads_only_what_it_names(self):
        self.write('home/.tripleo/environments/a.yaml')
        os.environ['TRIPLEO_ENVIRONMENT_DIRECTORY'] = self.home
        self.assertEqual(['user-files' + self.mine], self.environments(
            plan_commands.AmendPlan, 'p', '-e', self.mine))
