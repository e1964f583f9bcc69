"""Installing the shipped validations and finding those a run may use,
on stateful fake Swift containers."""

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.mistral import objects
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import shipped
from tripleoplanclient.validations import sources

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

    def test_install_sends_only_what_changed(self):
        files = sources.merge([('shipped', sources.ours())])
        found = catalog.install(self.store, files)
        self.assertEqual((sorted(files), 0, [], 8), (
            found['written'], found['unchanged'], found['kept'],
            found['validations']))
        # one listing, one archive
        self.assertEqual(['LIST', 'ARCHIVE'],
                         [op for op, _ in self.installed.requests])
        self.assertEqual(sorted(files), sorted(self.installed.objects))
        self.assertIn('validation-playbooks/check-disk-space.yaml', files)
        self.installed.requests[:] = []
        self.installed.store('mine.yaml', FAILING)
        found = catalog.install(self.store, files)
        self.assertEqual(([], len(files)), (found['written'],
                                            found['unchanged']))
        self.assertEqual([('LIST', ''), ('GET', 'groups.yaml')],
                         self.installed.requests)
        self.installed.store('validation-playbooks/check-disk-space.yaml',
                             b'changed')
        self.assertEqual(['validation-playbooks/check-disk-space.yaml'],
                         catalog.install(self.store, files)['written'])
        # what the operator added stays, and is said to
        self.assertIn('mine.yaml', self.installed.objects)
        self.assertEqual(['mine.yaml'],
                         catalog.install(self.store, files)['kept'])

    def test_install_removes_what_older_versions_put_at_the_top(self):
        old = shipped.files()
        for name, data in old.items():
            self.installed.store(name, data)
        self.installed.store('mine.yaml', FAILING)
        found = catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
        self.assertEqual(sorted(n for n in old if n != catalog.GROUPS),
                         found['removed'])
        self.assertEqual(['mine.yaml'], found['kept'])
        self.assertEqual(
            {catalog.GROUPS, 'mine.yaml'},
            {n for n in self.installed.objects if '/' not in n})
        # the operator's own at the top is still a validation
        _, listed = catalog.collect(self.store)
        self.assertEqual(('installed', 'Mine'), (listed['mine']['source'],
                                                 listed['mine']['name']))

    def test_the_installed_groups_stay(self):
        catalog.install(self.store, sources.merge([
            ('shipped', sources.ours()),
            ('upstream', {'groups.yaml': b'upstream: [{description: U}]\n',
                          'validation-playbooks/up.yaml': FAILING.replace(
                              b'[prep]', b'[upstream]')})]))
        found = catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
        self.assertEqual([], found['written'])
        self.assertEqual(['validation-playbooks/up.yaml'], found['kept'])
        groups, listed = catalog.collect(self.store)
        self.assertEqual('U', groups['upstream'])
        self.assertIsNone(listed['up']['problem'])
        # a broken groups.yaml is restored
        self.installed.store('groups.yaml', b'[1]')
        catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
        self.assertIn('prep', catalog.collect(self.store)[0])

    def test_without_bulk_upload_each_object_is_put(self):
        plain = fakes.FakeSwift(self.m, plan=catalog.CONTAINER, bulk=False)
        files = sources.merge([('shipped', sources.ours())])
        catalog.install(self.store, files)
        self.assertEqual(sorted(files), sorted(
            n for op, n in plain.requests if op == 'PUT'))
        self.assertEqual(sorted(files), sorted(plain.objects))

    def test_a_plan_adds_and_overrides(self):
        catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
        self.plan.store('custom-validations/check-disk-space.yaml', FAILING)
        self.plan.store('custom-validations/broken.yaml', b'- x: [\n')
        self.plan.store('custom-validations/deeper/x.yaml', FAILING)
        self.plan.store('overcloud.yaml', b'{}')
        # at the top, where older versions installed it: overridden
        self.installed.store('check-cpu-count.yaml', FAILING)
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

    def test_through_a_cache_each_playbook_is_read_once(self):
        # a list then the run that follows it (Mistral's executor)
        catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
        self.plan.store('custom-validations/mine.yaml', FAILING)
        kept = objects.ContentCache()

        def cache(container):
            return kept.scoped(fakes.SWIFT, container)

        self.installed.requests[:] = []
        self.plan.requests[:] = []
        first = catalog.collect(self.store, 'p', cache)
        gets = [n for op, n in self.installed.requests if op == 'GET']
        self.assertEqual(9, len(gets))          # groups.yaml + 8
        self.installed.requests[:] = []
        self.plan.requests[:] = []
        self.assertEqual(first, catalog.collect(self.store, 'p', cache))
        self.assertEqual([('LIST', '')], self.installed.requests)
        self.assertEqual(['LIST'], [op for op, _ in self.plan.requests])
        # a changed object is read again (its listing's MD5 changed)
        self.installed.store('validation-playbooks/check-cpu-count.yaml',
                             FAILING)
        self.installed.requests[:] = []
        _, found = catalog.collect(self.store, 'p', cache)
        changed = 'validation-playbooks/check-cpu-count.yaml'
        self.assertEqual([('LIST', ''), ('GET', changed)],
                         self.installed.requests)
        self.assertEqual(FAILING, found['check-cpu-count']['text'])

    def test_select_names_or_a_group(self):
        catalog.install(self.store, sources.merge(
            [('shipped', sources.ours())]))
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
