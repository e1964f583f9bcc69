"""Installing the shipped validations and finding those a run may use,
on stateful fake Swift containers."""

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import shipped

FAILING = b"""- hosts: localhost
  vars:
    metadata: {name: Mine, description: The plan's own, groups: [prep]}
  tasks:
    - fail: {msg: no}
"""


class TestCatalog(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.plan = fakes.FakeSwift(self.m, plan='p')
        self.store = fakes.plan_store(workers=1)
        self.swift_info(bulk=False)

    def puts(self):
        return [n for op, n in self.installed.requests if op == 'PUT']

    def test_install_sends_only_what_changed(self):
        files = shipped.files()
        self.assertEqual({'written': sorted(files), 'unchanged': 0},
                         catalog.install(self.store, files))
        self.assertEqual(sorted(files), sorted(self.puts()))
        self.installed.requests[:] = []
        self.installed.store('mine.yaml', FAILING)
        self.assertEqual({'written': [], 'unchanged': len(files)},
                         catalog.install(self.store, files))
        self.assertEqual([], self.puts())
        self.installed.store('check-disk-space.yaml', b'changed')
        self.assertEqual(['check-disk-space.yaml'], catalog.install(
            self.store, files)['written'])
        # what the operator added stays
        self.assertIn('mine.yaml', self.installed.objects)

    def test_a_plan_adds_and_overrides(self):
        catalog.install(self.store, shipped.files())
        self.plan.store('custom-validations/check-disk-space.yaml', FAILING)
        self.plan.store('custom-validations/broken.yaml', b'- x: [\n')
        self.plan.store('custom-validations/deeper/x.yaml', FAILING)
        self.plan.store('overcloud.yaml', b'{}')
        groups, found = catalog.collect(self.store, 'p')
        self.assertIn('prep', groups)
        self.assertEqual(('plan', 'Mine', ['p', 'custom-validations/'
                                           'check-disk-space.yaml']),
                         (found['check-disk-space']['source'],
                          found['check-disk-space']['name'],
                          found['check-disk-space']['object']))
        self.assertIn('not YAML', found['broken']['problem'])
        self.assertEqual('installed', found['check-cpu-count']['source'])
        self.assertNotIn('x', found)
        _, alone = catalog.collect(self.store)
        self.assertEqual('installed', alone['check-disk-space']['source'])

    def test_select_names_or_a_group(self):
        catalog.install(self.store, shipped.files())
        _, found = catalog.collect(self.store)
        self.assertEqual(['dns-resolution', 'check-cpu-count'], [
            v['id'] for v in catalog.select(
                found, ['dns-resolution', 'check-cpu-count',
                        'dns-resolution'])])
        self.assertIn('check-cpu-count', [
            v['id'] for v in catalog.select(found, group='prep')])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'No validation nope, no2;'):
            catalog.select(found, ['nope', 'check-cpu-count', 'no2'])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'No validation in group nogroup'):
            catalog.select(found, group='nogroup')

    def test_nothing_installed_says_what_to_do(self):
        self.m.get(fakes.SWIFT + '/' + catalog.CONTAINER, status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'openstack overcloud validation install'):
            catalog.collect(self.store)
