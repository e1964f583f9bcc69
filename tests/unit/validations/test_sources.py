"""What ``validation install`` reads on the client: the shipped
playbooks, directories and installed distributions in
tripleo-validations' layout, bounded, merged in order."""

import os
import shutil
import sys
import tempfile

from osc_lib import exceptions
import testtools
import yaml

from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import sources

PLAY = b"""- hosts: undercloud
  vars:
    metadata: {name: Up, description: d, groups: [upstream]}
  roles: [up]
"""


class TestSources(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)

    def write(self, name, data=b'x', root=None):
        path = os.path.join(root or self.root, *name.split('/'))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def test_ours_in_the_layout(self):
        found = sources.ours()
        self.assertIn(catalog.GROUPS, found)
        self.assertIn('validation-playbooks/check-disk-space.yaml', found)
        self.assertEqual({catalog.GROUPS}, {n for n in found if '/' not in n})

    def test_a_directory_gives_only_the_layouts_files(self):
        self.write('groups.yaml', b'upstream: [{description: U}]\n')
        self.write('validation-playbooks/up.yaml', PLAY)
        self.write('roles/up/tasks/main.yml', b'- debug: {msg: hi}\n')
        self.write('library/mod.py', b'# a module\n')
        self.write('library/__pycache__/mod.cpython-311.pyc')
        self.write('roles/up/molecule/default/converge.yml')
        self.write('roles/up/.gitkeep')
        self.write('setup.cfg')
        self.write('.git/config')
        self.write('docs/x.yaml')
        self.assertEqual(
            ['groups.yaml', 'library/mod.py', 'roles/up/tasks/main.yml',
             'validation-playbooks/up.yaml'],
            sorted(sources.directory(self.root)))

    def test_a_link_out_of_the_directory_is_refused(self):
        outside = tempfile.mkdtemp()
        self.addCleanup(os.rmdir, outside)
        self.write('validation-playbooks/up.yaml', PLAY)
        os.makedirs(os.path.join(self.root, 'roles'))
        os.symlink(outside, os.path.join(self.root, 'roles', 'away'))
        with testtools.ExpectedException(
                exceptions.CommandError, '.*roles/away is a link out of'):
            sources.directory(self.root)
        # a link inside is followed
        os.remove(os.path.join(self.root, 'roles', 'away'))
        self.write('roles/up/tasks/main.yml', b'[]\n')
        os.symlink(os.path.join(self.root, 'roles', 'up'),
                   os.path.join(self.root, 'roles', 'same'))
        self.assertIn('roles/same/tasks/main.yml',
                      sources.directory(self.root))

    def test_bounds_name_the_file_and_the_limit(self):
        self.write('validation-playbooks/up.yaml', PLAY)
        self.write('library/big.py', b'#' * (sources.MAX_FILE_BYTES + 1))
        with testtools.ExpectedException(
                exceptions.CommandError,
                '.*library/big.py is %d bytes, more than %d' % (
                    sources.MAX_FILE_BYTES + 1, sources.MAX_FILE_BYTES)):
            sources.directory(self.root)
        self.patch(sources, 'MAX_FILES', 2)
        os.remove(os.path.join(self.root, 'library', 'big.py'))
        for n in range(3):
            self.write('library/m%d.py' % n)
        with testtools.ExpectedException(exceptions.CommandError,
                                         '.*more than 2 files'):
            sources.directory(self.root)

    def test_not_a_layout_nor_a_directory(self):
        with testtools.ExpectedException(exceptions.CommandError,
                                         '.*no such directory'):
            sources.directory(os.path.join(self.root, 'nope'))
        self.write('README.rst')
        with testtools.ExpectedException(exceptions.CommandError,
                                         '.*not a directory in'):
            sources.directory(self.root)

    def test_a_later_source_wins_and_groups_are_merged(self):
        merged = sources.merge([
            ('a', {'groups.yaml': b'one: [{description: A1}]\n'
                                  b'two: [{description: A2}]\n',
                   'validation-playbooks/x.yaml': b'a'}),
            ('b', {'groups.yaml': b'two: [{description: B2}]\n',
                   'validation-playbooks/x.yaml': b'b',
                   'roles/r/tasks/main.yml': b'[]'})])
        self.assertEqual(b'b', merged['validation-playbooks/x.yaml'])
        self.assertEqual({'one': [{'description': 'A1'}],
                          'two': [{'description': 'B2'}]},
                         yaml.safe_load(merged['groups.yaml']))
        with testtools.ExpectedException(exceptions.CommandError,
                                         '^b: groups.yaml'):
            sources.merge([('b', {'groups.yaml': b'[1]'})])

    def test_an_installed_distribution(self):
        # a distribution installed here, its record naming share/ansible
        site = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, site)
        info = os.path.join(site, 'lib', 'dist_up-1.0.dist-info')
        self.write('METADATA', b'Name: dist-up\nVersion: 1.0\n', info)
        self.write('RECORD', b'\n'.join([
            b'../share/ansible/groups.yaml,,',
            b'../share/ansible/validation-playbooks/up.yaml,,',
            b'../share/ansible/roles/up/tasks/main.yml,,',
            b'../share/ansible/hosts.sample,,',
            b'../share/ansible/roles/../../../etc/passwd,,',
            b'dist_up/__init__.py,,']), info)
        self.write('share/ansible/groups.yaml', b'upstream: [{description: U}]'
                   b'\n', site)
        self.write('share/ansible/validation-playbooks/up.yaml', PLAY, site)
        self.write('share/ansible/roles/up/tasks/main.yml', b'[]\n', site)
        self.patch(sys, 'path', [os.path.join(site, 'lib')] + sys.path)
        found = sources.package('dist-up')
        self.assertEqual(['groups.yaml', 'roles/up/tasks/main.yml',
                          'validation-playbooks/up.yaml'], sorted(found))
        self.assertEqual(PLAY, found['validation-playbooks/up.yaml'])
        with testtools.ExpectedException(exceptions.CommandError,
                                         '.*no such distribution'):
            sources.package('no-such-dist-here')
