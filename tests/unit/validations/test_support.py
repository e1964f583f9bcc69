"""The container's roles and modules on the executor: fetched once per
project into a cache keyed by the listing's hashes, bounded."""

import os
import shutil
import tempfile

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import support


class TestSupport(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        self.cache = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.cache)
        for name, data in (
                ('roles/up/tasks/main.yml', b'- up: {}\n'),
                ('library/up.py', b'# a module\n'),
                ('lookup_plugins/l.py', b'# a lookup\n'),
                # not used by a run
                ('callback_plugins/cb.py', b'# a callback\n'),
                ('validation-playbooks/v.yaml', b'[]\n'),
                ('groups.yaml', b'{}\n')):
            self.installed.store(name, data)

    def gets(self):
        return sorted(n for op, n in self.installed.requests if op == 'GET')

    def test_fetched_once_then_nothing(self):
        tree = support.prepare(self.store, 'p1', self.cache)
        self.assertEqual(['library/up.py', 'lookup_plugins/l.py',
                          'roles/up/tasks/main.yml'], self.gets())
        with open(os.path.join(tree, 'roles', 'up', 'tasks',
                               'main.yml'), 'rb') as f:
            self.assertEqual(b'- up: {}\n', f.read())
        self.assertFalse(os.path.exists(os.path.join(tree,
                                                     'callback_plugins')))
        self.assertTrue(os.path.isdir(os.path.join(tree, 'filter_plugins')))
        self.installed.requests[:] = []
        self.assertEqual(tree, support.prepare(self.store, 'p1', self.cache))
        self.assertEqual([], self.gets())
        # a changed object: only it travels, into a new tree
        self.installed.store('library/up.py', b'# changed\n')
        newer = support.prepare(self.store, 'p1', self.cache)
        self.assertNotEqual(tree, newer)
        self.assertEqual(['library/up.py'], self.gets())
        # another project's cache is its own
        self.installed.requests[:] = []
        support.prepare(self.store, 'p2', self.cache)
        self.assertEqual(3, len(self.gets()))

    def test_a_container_without_support_trees_needs_no_cache(self):
        for name in list(self.installed.objects):
            if not name.startswith(('validation-playbooks/', 'groups')):
                del self.installed.objects[name]
        self.assertIsNone(support.prepare(self.store, 'p1', self.cache))
        self.assertEqual([], os.listdir(self.cache))

    def test_the_environment_points_ansible_at_the_tree(self):
        env = support.environment('/t')
        self.assertEqual(('/t/roles', '/t/library', '/t/module_utils'), (
            env['ANSIBLE_ROLES_PATH'], env['ANSIBLE_LIBRARY'],
            env['ANSIBLE_MODULE_UTILS']))
        self.assertNotIn('ANSIBLE_CALLBACK_PLUGINS', env)

    def test_names_and_sizes_are_bounded(self):
        # hidden files are left out
        self.installed.store('roles/up/.gitkeep', b'')
        tree = support.prepare(self.store, 'p1', self.cache)
        self.assertEqual(['tasks'], os.listdir(os.path.join(tree, 'roles',
                                                            'up')))
        self.installed.store('roles/a b/x', b'x')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'roles/a b/x: not a plain name'):
            support.prepare(self.store, 'p1', self.cache)
        del self.installed.objects['roles/a b/x']
        self.installed.requests[:] = []
        self.installed.store('library/big.py',
                             b'#' * (support.MAX_FILE_BYTES + 1))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'library/big.py: the support trees '
                                    'pass a bound'):
            support.prepare(self.store, 'p1', self.cache)
        self.assertEqual([], self.gets())

    def test_bytes_that_do_not_match_the_listing_are_refused(self):
        self.installed.stale['library/up.py'] = b'# not what was listed\n'
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'library/up.py changed while it was'):
            support.prepare(self.store, 'p1', self.cache)

    def test_a_cache_that_is_not_private_is_refused(self):
        os.mkdir(os.path.join(self.cache, 'p1'), 0o755)
        os.chmod(os.path.join(self.cache, 'p1'), 0o755)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'not a directory private'):
            support.prepare(self.store, 'p1', self.cache)

    def test_unused_trees_are_forgotten(self):
        old = support.prepare(self.store, 'p1', self.cache)
        self.installed.store('library/up.py', b'# changed\n')
        later = support.prepare(self.store, 'p1', self.cache,
                                clock=lambda: 1e12)
        self.assertFalse(os.path.exists(old))
        self.assertTrue(os.path.isdir(later))
        # the objects of the listing stay, the others go
        self.assertEqual(3, len(os.listdir(os.path.join(
            self.cache, 'p1', 'objects'))))
