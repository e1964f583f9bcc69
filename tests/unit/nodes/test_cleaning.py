import unittest

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import cleaning
from tripleoplanclient.nodes import ironic

SETTINGS = [{'name': 'LogicalProc', 'value': 'Enabled'},
            {'name': 'Cores', 'value': 8}]
RAID = {'logical_disks': [{'size_gb': 100, 'raid_level': '1',
                           'is_root_volume': True},
                          {'size_gb': 'MAX', 'raid_level': '5',
                           'physical_disks': ['sda', 'sdb', 'sdc']}]}


class TestConfigurations(unittest.TestCase):

    def test_bios_settings_as_tripleoclient_or_a_plain_list(self):
        self.assertEqual(SETTINGS, cleaning.bios_settings(
            {'settings': SETTINGS}))
        self.assertEqual(SETTINGS, cleaning.bios_settings(SETTINGS))

    def test_bad_bios_settings_refused_naming_the_item(self):
        for bad, why in (
                ({}, 'at least one setting'),
                ({'settings': []}, 'at least one setting'),
                ({'settings': SETTINGS, 'x': 1}, 'unknown keys x'),
                ('LogicalProc=Enabled', 'at least one setting'),
                ([{'name': 'a'}], 'setting 1 is not a mapping of exactly'),
                (SETTINGS + [{'name': 'b', 'value': 1, 'more': 2}],
                 'setting 3 is not'),
                ([{'name': '', 'value': 1}], 'setting 1: a name of 1'),
                ([{'name': 'a', 'value': {'nested': 1}}], 'setting 1'),
                ([{'name': 'a', 'value': 'x' * 1025}], 'setting 1'),
                ([{'name': 'a', 'value': 1}] * 1001, '1001 settings')):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'Bad BIOS configuration: .*%s.*'
                                        'Nothing was sent' % why):
                cleaning.bios_settings(bad)

    def test_raid_configuration(self):
        self.assertEqual(RAID, cleaning.raid_config(RAID))
        for bad, why in (
                ([], 'exactly "logical_disks"'),
                ({'logical_disks': [], 'x': 1}, 'exactly "logical_disks"'),
                ({'logical_disks': []}, '1 to 64 disks'),
                ({'logical_disks': [{'raid_level': '1'}]},
                 'disk 1: size_gb'),
                ({'logical_disks': [{'size_gb': True, 'raid_level': '1'}]},
                 'disk 1: size_gb'),
                ({'logical_disks': [{'size_gb': 10, 'raid_level': '7'}]},
                 'disk 1: raid_level must be one of'),
                ({'logical_disks': [{'size_gb': 10, 'raid_level': '1',
                                     'controller': {'a': 'b'}}]},
                 'disk 1: keys are names')):
            with self.assertRaisesRegex(exceptions.CommandError, why):
                cleaning.raid_config(bad)

    def test_clean_steps_of_each_operation(self):
        self.assertEqual([{'interface': 'deploy',
                           'step': 'erase_devices_metadata'}],
                         cleaning.clean_steps('erase'))
        self.assertEqual([{'interface': 'bios', 'step': 'apply_configuration',
                           'args': {'settings': SETTINGS}}],
                         cleaning.clean_steps('bios_configure',
                                              {'settings': SETTINGS}))
        self.assertEqual(['factory_reset'], [
            s['step'] for s in cleaning.clean_steps('bios_reset')])
        self.assertEqual(['delete_configuration', 'create_configuration'], [
            s['step'] for s in cleaning.clean_steps('raid_create', RAID)])
        with self.assertRaisesRegex(exceptions.CommandError, 'operation'):
            cleaning.clean_steps('format')


class TestStartAndFollow(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.ironic = ironic.Ironic(fakes.session(), fake_ironic.URL)
        self.clock = fakes.FakeClock(100.0)

    def add(self, count, **fields):
        return [self.fake.add_node(name='n%d' % i, **fields)
                for i in range(count)]

    def follow(self, started, rounds=10):
        for _ in range(rounds):
            found = cleaning.follow(self.ironic, started, self.clock)
            if found['done']:
                return found
            self.clock.sleep(2)
        return found

    def test_raid_target_then_clean_steps_a_failure_stays_alone(self):
        nodes = self.add(2)
        self.fake.hold('n0', 2)
        self.fake.fail('n1', 'clean', 'raid.create_configuration is not '
                                      'supported')
        started = cleaning.start_clean(self.ironic, nodes, 'raid_create',
                                       RAID, False, 600, self.clock)
        self.assertEqual('clean', started['operation'])
        for node in nodes:
            self.assertEqual(RAID, self.fake.node(node['uuid'])[
                'target_raid_config'])
        asked = [r.body for r in self.fake.log
                 if r.path.endswith('/states/provision')]
        self.assertEqual([['delete_configuration', 'create_configuration']]
                         * 2, [[s['step'] for s in b['clean_steps']]
                               for b in asked])
        first = cleaning.follow(self.ironic, started, self.clock)
        self.assertFalse(first['done'])
        found = self.follow(started)
        self.assertEqual({'n0': ('SUCCESS', 'manageable', None),
                          'n1': ('FAILED', 'clean failed',
                                 'raid.create_configuration is not '
                                 'supported')},
                         {r['name']: (r['status'], r['provision_state'],
                                      r['error']) for r in found['nodes']})

    def test_provide_after_cleaning(self):
        nodes = self.add(1, power_state='power on')
        started = cleaning.start_clean(self.ironic, nodes, 'bios_reset',
                                       None, True, 600, self.clock)
        found = self.follow(started)
        self.assertEqual([('SUCCESS', 'available')], [
            (r['status'], r['provision_state']) for r in found['nodes']])

    def test_a_bad_configuration_asks_ironic_nothing(self):
        nodes = self.add(1)
        with self.assertRaises(exceptions.CommandError):
            cleaning.start_clean(self.ironic, nodes, 'bios_configure',
                                 {'settings': 'x'}, False, 600, self.clock)
        self.assertEqual([], self.fake.writes())

    def test_manage_from_enroll_and_available(self):
        self.fake.add_node(name='e', provision_state='enroll')
        self.fake.add_node(name='a', provision_state='available')
        self.fake.add_node(name='m', provision_state='manageable')
        self.fake.add_node(name='x', provision_state='active')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'x is active, not enroll or'):
            cleaning.select_manage(self.ironic, ['e', 'x'], None)
        self.assertEqual(['a'], [n['name'] for n in cleaning.select_manage(
            self.ironic, [], 'available')])
        with self.assertRaisesRegex(exceptions.CommandError, 'not both'):
            cleaning.select_manage(self.ironic, ['e'], 'enroll')
        self.fake.hold('e', 1)
        nodes = cleaning.select_manage(self.ironic, ['e', 'a', 'm'], None)
        started = cleaning.start_manage(self.ironic, nodes, 600, self.clock)
        # a manageable node is not asked again
        self.assertEqual(2, self.fake.count('PUT'))
        found = self.follow(started)
        self.assertEqual({'e': 'SUCCESS', 'a': 'SUCCESS', 'm': 'SUCCESS'},
                         {r['name']: r['status'] for r in found['nodes']})

    def test_manage_that_fails_verification(self):
        self.fake.add_node(name='e', provision_state='enroll')
        self.fake.fail('e', 'manage', 'Failed to get power state: bad BMC')
        started = cleaning.start_manage(self.ironic, cleaning.select_manage(
            self.ironic, ['e'], None), 600, self.clock)
        found = self.follow(started)
        self.assertEqual([('FAILED', 'enroll',
                           'Failed to get power state: bad BMC')],
                         [(r['status'], r['provision_state'], r['error'])
                          for r in found['nodes']])
