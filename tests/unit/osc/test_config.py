"""``overcloud config download`` (``osc.config``): tripleoclient's forms,
the tree written from the one archive Mistral kept with the step, files
the tree does not name kept unless --no-preserve-config."""

import os
import stat

from osc_lib import exceptions

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tests.unit import small_plan
from tripleoplanclient.mistral import configure
from tripleoplanclient.osc import config as config_commands
from tripleoplanclient.record import configs

FILES = {'deploy_steps_playbook.yaml': (b'- hosts: all\n', 0o644),
         'Controller/deploy_steps_tasks.yaml': (b'- debug: {}\n', 0o644),
         'scripts/run.sh': (b'#!/bin/sh\n', 0o755)}


class TestForms(stack_step_base.StackStepTestCase):

    def parse(self, *argv):
        cmd = config_commands.DownloadConfig(None, None)
        return cmd.get_parser('config download').parse_args(list(argv))

    def test_tripleoclient_s_options(self):
        args = self.parse('--name', 'oc', '--config-dir', '/tmp/x',
                          '--config-type', 'deploy_steps_tasks',
                          '--config-type', 'host_prep_tasks,pre_deploy',
                          '--no-preserve-config')
        self.assertEqual(('oc', '/tmp/x', False), (
            args.plan, args.config_dir, args.preserve))
        # never split into characters, as tripleoclient's type=list did
        self.assertEqual(['deploy_steps_tasks', 'host_prep_tasks',
                          'pre_deploy'],
                         config_commands.config_types(args.config_type))
        self.assertEqual('p', self.parse('--plan', 'p').plan)
        self.assertEqual(('overcloud', True, None), (
            self.parse().plan, self.parse().preserve, self.parse().step))

    def test_the_default_directory_is_tripleoclient_s(self):
        saved = os.environ.pop('SUDO_USER', None)
        try:
            self.assertEqual(os.path.expanduser('~/tripleo-config'),
                             config_commands.default_dir())
        finally:
            if saved is not None:
                os.environ['SUDO_USER'] = saved


class TestDownload(stack_step_base.StackStepTestCase):

    def setUp(self):
        super().setUp()
        fakes.stack_is(self.m, None)
        self.step = self.ask('deploy', container='p')['step']
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'),
                       fakes.STACK_ID)
        self.name = configs.archive_path(self.step['id'])
        configure.store_archive(self.store, 'p', self.name, FILES)
        self.mistral = fakes.FakeMistral(self.m, self.store)
        self.target = os.path.join(self.dir, 'config')

    def download(self, *argv):
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'orchestration': fakes.HEAT,
                              'workflow': fakes.MISTRAL})
        cmd = config_commands.DownloadConfig(app, None)
        parsed = cmd.get_parser('x').parse_args(
            ['--plan', 'p', '--config-dir', self.target] + list(argv))
        columns, row = cmd.take_action(parsed)
        return dict(zip(columns, row)), app.stderr.getvalue()

    def test_the_tree_from_one_read_of_the_archive(self):
        before = len(self.swift.requests)
        row, err = self.download()
        self.assertEqual(('p', 2, self.step['id'], self.name, 3, False,
                          'SUCCESS'), tuple(row[c] for c in (
                              'plan', 'step', 'id', 'object', 'files',
                              'built', 'status')))
        self.assertEqual(1, [n for m, n in self.swift.requests[before:]
                             if m == 'GET'].count(self.name))
        for path, (data, mode) in FILES.items():
            where = os.path.join(self.target, path)
            with open(where, 'rb') as f:
                self.assertEqual(data, f.read())
            self.assertEqual(mode, stat.S_IMODE(os.stat(where).st_mode))
        self.assertIn('kept with the step', err)
        self.assertEqual([('tripleoplan.config_download', 'workflow')],
                         self.mistral.runs)

    def test_other_files_stay_unless_no_preserve_config(self):
        os.makedirs(self.target)
        mine = os.path.join(self.target, 'mine.txt')
        with open(mine, 'w') as f:
            f.write('mine')
        self.download()
        self.assertTrue(os.path.exists(mine))
        self.download('--no-preserve-config')
        self.assertFalse(os.path.exists(mine))
        self.assertTrue(os.path.exists(os.path.join(
            self.target, 'deploy_steps_playbook.yaml')))

    def test_a_file_in_the_way_is_refused_before_mistral(self):
        with open(self.target, 'w') as f:
            f.write('x')
        self.assertRaises(exceptions.CommandError, self.download)
        self.assertEqual([], self.mistral.runs)

    def test_a_step_that_is_no_stack_step_is_refused(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.download('--step', '1')
        self.assertIn('no stack step', str(ctx.exception))
