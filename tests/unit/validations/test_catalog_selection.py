"""Choosing validations by their labels, and what each reads: its first
play's vars over its roles' defaults in the container (fake Swift)."""

from tests.unit import fakes
from tripleoplanclient.validations import catalog

GROUPS = b'prep: [{description: d}]\npost: [{description: d}]\n'


def playbook(groups, categories, products, extra=''):
    return ('- hosts: localhost\n  vars:\n    metadata:\n      name: N\n'
            '      description: d\n      groups: %s\n      categories: %s\n'
            '      products: %s\n%s  tasks: []\n' % (
                groups, categories, products, extra)).encode()


class TestSelection(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        self.swift_info(bulk=False)
        self.installed.store('groups.yaml', GROUPS)

    def test_any_of_the_groups_categories_or_products(self):
        self.installed.store('a.yaml', playbook('[prep]', '[os]', '[]'))
        self.installed.store('b.yaml', playbook('[post]', '[net]',
                                                '[tripleo]'))
        self.installed.store('c.yaml', playbook('[]', '[]', '[tripleo]'))
        _, found = catalog.collect(self.store)

        def ids(*labels):
            return [v['id'] for v in catalog.select_labels(found, *labels)]

        self.assertEqual(['a'], ids(['prep']))
        self.assertEqual(['a', 'b'], ids([], ['os', 'net']))
        self.assertEqual(['b', 'c'], ids([], [], ['tripleo']))
        self.assertEqual(['a', 'b', 'c'], ids(['prep'], [], ['tripleo']))
        self.assertEqual([], ids([], ['nothing']))

    def test_parameters_are_the_roles_defaults_under_the_plays_vars(self):
        self.installed.store('r.yaml', playbook(
            '[prep]', '[]', '[]', '    min_ram: 4096\n    db_password: '
            'from-vars\n').replace(b'  tasks: []\n', b'''  roles:
    - ram
    - {role: disk}
    - ../../escape
- hosts: all
  tasks:
    - include_role: {name: net}
''').replace(b'  tasks: []\n', b''))
        self.installed.store('roles/ram/defaults/main.yml',
                             b'min_ram: 1\nram_unit: MB\n')
        self.installed.store('roles/disk/defaults/main.yaml',
                             b'min_disk: 10\n')
        self.installed.store('roles/net/defaults/main.yml',
                             b'bad: &a 1\nalias: *a\n')
        _, found = catalog.collect(self.store)
        self.assertEqual({'min_ram': 4096, 'db_password': 'from-vars',
                          'ram_unit': 'MB', 'min_disk': 10},
                         catalog.parameters(self.store, found['r']))
        read = [n for op, n in self.installed.requests if op == 'GET']
        self.assertNotIn('roles/../../escape/defaults/main.yml', read)
        self.assertIn('roles/net/defaults/main.yml', read)
