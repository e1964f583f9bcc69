"""A command name another plugin registers too runs the implementation a
setting chooses, whatever order the plugins load in, and says so."""

import argparse
import configparser
import importlib
import io
import os
import sys
import unittest
from unittest import mock

from cliff import command
from cliff import commandmanager
from osc_lib import exceptions

from tests import tripleoclient_names
from tripleoplanclient.osc import deploy
from tripleoplanclient.osc import plugin
from tripleoplanclient.osc import shared

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
OURS = 'openstack.tripleoplan.v1'
THEIRS = 'openstack.tripleoclient.v2'
OTHER_PLUGIN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'other_plugin')
# python-tripleoclient's names: 20.0.0's, and those of older releases
# (Train, Ussuri) that are gone since
TRIPLEOCLIENT_NAMES = (tripleoclient_names.RELEASE_20
                       | tripleoclient_names.OLDER)


class TheirDeploy(command.Command):
    """Another plugin's overcloud deploy."""

    def take_action(self, parsed_args):
        pass


def entry_points(group):
    """``{name: value}`` of ``group`` in setup.cfg (the installed metadata
    of an editable install may predate the checkout)."""
    config = configparser.ConfigParser()
    config.read(os.path.join(REPO, 'setup.cfg'))
    return dict(line.split(' = ') for line in
                config['entry_points'][group].strip().splitlines()
                if line.strip())


def load(value):
    module, _, name = value.partition(':')
    return getattr(importlib.import_module(module), name)


class TestSharedNames(unittest.TestCase):

    def setUp(self):
        super().setUp()
        # Another plugin, installed: other_plugin/ holds a distribution
        # registering overcloud_deploy in its own command group.
        sys.path.insert(0, OTHER_PLUGIN)
        self.addCleanup(sys.path.remove, OTHER_PLUGIN)

    def app(self, groups, option=None, clouds_yaml=None):
        """A shell that loaded ``groups`` in that order, then (as OSC does
        with ``openstack.extension``, after every plugin) our setup.cfg's
        shared names."""
        manager = commandmanager.CommandManager()
        for group in groups:
            manager.load_commands(group)
        for name, value in entry_points('openstack.extension').items():
            manager.add_command(name.replace('_', ' '), load(value))
        app = mock.Mock(spec=['command_manager', 'options', 'cloud',
                              'stderr'])
        app.command_manager = manager
        app.options = argparse.Namespace(
            os_tripleoplan_shared_commands=option)
        app.cloud.config = dict(clouds_yaml or {})
        app.stderr = io.StringIO()
        return app

    def run_deploy(self, app):
        factory, name, args = app.command_manager.find_command(
            ['overcloud', 'deploy', '--help'])
        self.assertEqual(['--help'], args)
        return factory(app, argparse.Namespace(), cmd_name=name)

    def test_ours_by_default_in_either_order_with_a_notice(self):
        for groups in ([OURS, THEIRS], [THEIRS, OURS]):
            app = self.app(groups)
            self.assertIsInstance(self.run_deploy(app), deploy.Deploy)
            self.assertEqual(
                "Note: 'overcloud deploy' is a command of tripleoplan and "
                "tripleoclient; running tripleoplan's (the default; choose "
                "with --os-tripleoplan-shared-commands, "
                "OS_TRIPLEOPLAN_SHARED_COMMANDS or "
                "tripleoplan_shared_commands in clouds.yaml).\n",
                app.stderr.getvalue())

    def test_the_setting_chooses_in_either_order(self):
        for groups in ([OURS, THEIRS], [THEIRS, OURS]):
            for app in (self.app(groups, option='tripleoclient'),
                        self.app(groups, clouds_yaml={
                            'tripleoplan_shared_commands': 'tripleoclient'})):
                cmd = self.run_deploy(app)
                self.assertIsInstance(cmd, TheirDeploy)
                self.assertEqual('overcloud deploy', cmd.cmd_name)
                self.assertIn("running tripleoclient's (by "
                              "tripleoplan_shared_commands;",
                              app.stderr.getvalue())
            app = self.app(groups, option='tripleoplan', clouds_yaml={
                'tripleoplan_shared_commands': 'tripleoclient'})
            self.assertIsInstance(self.run_deploy(app), deploy.Deploy)

    def test_alone_ours_runs_without_a_notice(self):
        app = self.app([OURS])
        self.assertIsInstance(self.run_deploy(app), deploy.Deploy)
        self.assertEqual('', app.stderr.getvalue())

    def test_listing_the_commands_prints_no_notice(self):
        app = self.app([OURS, THEIRS])
        factory = app.command_manager.find_command(
            ['overcloud', 'deploy'])[0]
        self.assertIsInstance(factory(app, None), deploy.Deploy)
        self.assertEqual('', app.stderr.getvalue())

    def test_a_choice_not_installed_is_a_clear_error(self):
        for groups in ([OURS], [OURS, THEIRS]):
            app = self.app(groups, option='tripleclient')
            cmd = self.run_deploy(app)
            parsed = cmd.get_parser('openstack overcloud deploy').parse_args(
                ['--templates'])
            with self.assertRaises(exceptions.CommandError) as caught:
                cmd.take_action(parsed)
            self.assertIn("'overcloud deploy' is not a command of "
                          "tripleclient here (tripleoplan_shared_commands="
                          "tripleclient; it is one of: tripleoplan",
                          str(caught.exception))
        app = self.app([OURS], option='tripleoclient')
        self.assertIsInstance(self.run_deploy(app), shared.Unavailable)

    def test_the_option_defaults_to_its_environment_variable(self):
        with mock.patch.dict(os.environ, {
                'OS_TRIPLEOPLAN_SHARED_COMMANDS': 'tripleoclient'}):
            parser = plugin.build_option_parser(argparse.ArgumentParser())
        self.assertEqual('tripleoclient', parser.parse_args(
            []).os_tripleoplan_shared_commands)
        self.assertEqual('tripleoplan', parser.parse_args([
            '--os-tripleoplan-shared-commands', 'tripleoplan',
        ]).os_tripleoplan_shared_commands)


class TestSharedNamesRegistered(unittest.TestCase):

    def test_every_name_tripleoclient_has_too_is_dispatched(self):
        ours = entry_points(OURS)
        dispatched = entry_points('openstack.extension')
        self.assertEqual(sorted(TRIPLEOCLIENT_NAMES & set(ours)),
                         sorted(dispatched))
        for name, value in dispatched.items():
            self.assertEqual(name, load(value).entry_point_name)
