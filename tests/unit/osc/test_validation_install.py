"""``overcloud validation install`` from the client: the shipped
playbooks, then each --from / --from-package in the order given, in
one pass into the project's container."""

import argparse
import io
import json
import os
import shutil
import tempfile

from tests.unit import fakes
from tripleoplanclient.osc import validation_install
from tripleoplanclient.validations import catalog

PLAY = b"""- hosts: undercloud
  vars:
    metadata: {name: %s, description: d, groups: [upstream]}
  roles: [up]
"""


class TestInstall(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.installed.store('ok.yaml', b'an older version\'s own')
        self.trees = []
        for name in ('first', 'second'):
            root = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, root)
            os.makedirs(os.path.join(root, 'validation-playbooks'))
            with open(os.path.join(root, 'groups.yaml'), 'wb') as f:
                f.write(b'upstream: [{description: %s}]\n' % name.encode())
            with open(os.path.join(root, 'validation-playbooks',
                                   'up.yaml'), 'wb') as f:
                f.write(PLAY % name.encode())
            self.trees.append(root)

    def run_command(self, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = validation_install.InstallValidations(app, argparse.Namespace(
            verbose_level=1))
        code = cmd.run(cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json']))
        return code, json.loads(app.stdout.getvalue() or 'null'), \
            app.stderr.getvalue()

    def test_the_sources_in_their_order_in_one_pass(self):
        code, row, err = self.run_command('--from', self.trees[1],
                                          '--from', self.trees[0])
        self.assertEqual(0, code, err)
        self.assertEqual(['the shipped validations',
                          '--from %s' % self.trees[1],
                          '--from %s' % self.trees[0]], row['sources'])
        self.assertEqual((9, 'SUCCESS', None), (
            row['validations'], row['status'], row['message']))
        self.assertEqual(['ok.yaml'], row['kept'])
        self.assertIn('stay in tripleo-validations', err)
        # one listing, one archive
        self.assertEqual(['LIST', 'ARCHIVE'], [
            op for op, _ in self.installed.requests])
        # the later source's playbook and group description
        self.assertIn(b'name: first', self.installed.objects[
            'validation-playbooks/up.yaml'][0])
        self.assertIn(b'description: first',
                      self.installed.objects['groups.yaml'][0])
        code, row, _ = self.run_command('--from', self.trees[1],
                                        '--from', self.trees[0])
        self.assertEqual(([], 10), (row['written'], row['unchanged']))

    def test_a_swift_failure_after_the_start_is_1_with_its_row(self):
        self.m.put(fakes.SWIFT + '/' + catalog.CONTAINER, status_code=503,
                   text='no space')
        self.m.get(fakes.SWIFT + '/' + catalog.CONTAINER, status_code=404)
        code, row, err = self.run_command('--from', self.trees[0])
        self.assertEqual((1, 'FAILED'), (code, row['status']), err)
        self.assertEqual(['the shipped validations',
                          '--from %s' % self.trees[0]], row['sources'])
        self.assertIn('503', row['message'])

    def test_a_bad_source_writes_nothing(self):
        code, row, err = self.run_command('--from', self.trees[0],
                                          '--from-package', 'no-such-dist-x')
        # refused with its row: the container, the status and why
        self.assertEqual(
            (3, 'tripleo-validations', 'REFUSED', None, None), (
                code, row['container'], row['status'], row['written'],
                row['validations']))
        self.assertIn('--from-package no-such-dist-x: no such distribution',
                      row['message'])
        self.assertIn('--from-package no-such-dist-x: no such distribution',
                      err)
        self.assertEqual(list(validation_install.INSTALL_COLUMNS), list(row))
        self.assertEqual([], self.installed.requests)
