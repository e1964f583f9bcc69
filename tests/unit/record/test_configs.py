"""A stack step's configuration archive and progress names
(``record.configs``): the same tree the same bytes, written back only
inside its directory, modes kept."""

import io
import os
import stat
import tarfile
import tempfile
import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.record import configs

STEP = '0123456789ab'
FILES = {'deploy_steps_playbook.yaml': (b'- hosts: all\n', 0o644),
         'Controller/deploy_steps_tasks.yaml': (b'- debug: {}\n', 0o644),
         'scripts/run.sh': (b'#!/bin/sh\ntrue\n', 0o755)}


def archive(members):
    """A tar.gz of hand-made members: (TarInfo, bytes or None)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode='w:gz') as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


def member(name, kind=tarfile.REGTYPE, **fields):
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in fields.items():
        setattr(info, key, value)
    return info


class TestNames(unittest.TestCase):

    def test_the_record_writer_may_name_them(self):
        names = [configs.archive_path(STEP),
                 configs.archive_path(STEP, ['deploy_steps_tasks']),
                 configs.progress_path(STEP, 1),
                 configs.progress_path(STEP, 999999)]
        self.assertEqual([None] * 4, [layout.name_problem(n) for n in names])

    def test_types_name_their_own_archive_whatever_their_order(self):
        self.assertEqual(configs.archive_path(STEP, ['a', 'b']),
                         configs.archive_path(STEP, ['b', 'a', 'a']))
        self.assertNotEqual(configs.archive_path(STEP, ['a']),
                            configs.archive_path(STEP))

    def test_a_step_id_from_elsewhere_is_refused(self):
        for bad in ('../x', '0123456789AB', '', None):
            self.assertRaises(exceptions.CommandError, configs.archive_path,
                              bad)

    def test_progress_numbers_sort_as_written(self):
        names = [configs.progress_path(STEP, n) for n in (2, 10, 1)]
        self.assertEqual([1, 2, 10], [configs.progress_seq(n, STEP)
                                      for n in sorted(names)])
        self.assertIsNone(configs.progress_seq(
            configs.progress_path('ba9876543210', 1), STEP))


class TestConfigures(unittest.TestCase):

    def test_auto_only_with_config_download_outputs(self):
        role_data = [{'output_key': 'RoleData', 'output_value': {}}]
        self.assertTrue(configs.configures('auto', 'CREATE_COMPLETE',
                                           role_data))
        self.assertTrue(configs.configures('auto', 'UPDATE_COMPLETE',
                                           {'RoleConfig': {}}))
        self.assertFalse(configs.configures(
            'auto', 'CREATE_COMPLETE',
            [{'output_key': 'RoleNetIpMap', 'output_value': {}}]))
        self.assertFalse(configs.configures('auto', 'CREATE_COMPLETE', None))

    def test_never_after_a_failure_or_with_stack_only(self):
        self.assertFalse(configs.configures('auto', 'CREATE_FAILED',
                                            {'RoleData': {}}))
        self.assertFalse(configs.configures('only', 'UPDATE_FAILED', None))
        self.assertFalse(configs.configures('none', 'CREATE_COMPLETE',
                                            {'RoleData': {}}))

    def test_setup_and_only_whatever_the_outputs(self):
        for mode in ('setup', 'only'):
            self.assertTrue(configs.configures(mode, 'UPDATE_COMPLETE', []))


class TestArchive(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.dir)

    def test_the_same_files_the_same_bytes(self):
        again = dict(reversed(list(FILES.items())))
        self.assertEqual(configs.pack(FILES), configs.pack(again))
        self.assertNotEqual(configs.pack(FILES), configs.pack(
            dict(FILES, extra=(b'', 0o644))))

    def test_written_back_with_its_modes(self):
        target = os.path.join(self.dir, 'out')
        self.assertEqual((3, sum(len(d) for d, _ in FILES.values())),
                         configs.unpack(configs.pack(FILES), target, 'it'))
        for path, (data, mode) in FILES.items():
            with open(os.path.join(target, path), 'rb') as f:
                self.assertEqual(data, f.read())
            self.assertEqual(mode, stat.S_IMODE(os.stat(
                os.path.join(target, path)).st_mode), path)

    def test_files_it_does_not_name_stay_and_those_it_names_are_replaced(self):
        target = os.path.join(self.dir, 'out')
        os.makedirs(os.path.join(target, 'scripts'))
        for name, data in (('mine.txt', b'keep'), ('scripts/run.sh', b'old')):
            with open(os.path.join(target, name), 'wb') as f:
                f.write(data)
        configs.unpack(configs.pack(FILES), target, 'it')
        with open(os.path.join(target, 'mine.txt'), 'rb') as f:
            self.assertEqual(b'keep', f.read())
        with open(os.path.join(target, 'scripts/run.sh'), 'rb') as f:
            self.assertEqual(FILES['scripts/run.sh'][0], f.read())

    def test_no_member_lands_outside(self):
        outside = os.path.join(self.dir, 'escaped')
        for bad in (member('../escaped'), member(outside),
                    member('a/../../escaped'),
                    member('link', tarfile.SYMTYPE, linkname=outside),
                    member('hard', tarfile.LNKTYPE, linkname=outside),
                    member('dev', tarfile.CHRTYPE)):
            data = archive([(bad, b'x' if bad.isfile() else None)])
            with self.assertRaises(exceptions.CommandError) as ctx:
                configs.unpack(data, os.path.join(self.dir, 'out'), 'it')
            self.assertIn(repr(bad.name), str(ctx.exception))
            self.assertFalse(os.path.lexists(outside), bad.name)

    def test_a_link_in_the_directory_is_not_followed(self):
        target = os.path.join(self.dir, 'out')
        elsewhere = os.path.join(self.dir, 'elsewhere')
        os.makedirs(target)
        os.makedirs(elsewhere)
        os.symlink(elsewhere, os.path.join(target, 'scripts'))
        os.symlink(os.path.join(elsewhere, 'f'),
                   os.path.join(target, 'deploy_steps_playbook.yaml'))
        self.assertRaises(exceptions.CommandError, configs.unpack,
                          configs.pack(FILES), target, 'it')
        self.assertEqual([], os.listdir(elsewhere))

    def test_set_id_bits_are_dropped(self):
        data = archive([(member('s', mode=0o4755), b'x')])
        target = os.path.join(self.dir, 'out')
        configs.unpack(data, target, 'it')
        self.assertEqual(0o755, stat.S_IMODE(os.stat(
            os.path.join(target, 's')).st_mode))

    def test_not_an_archive_is_a_clear_error(self):
        self.assertRaises(exceptions.CommandError, configs.unpack,
                          b'not gzip', os.path.join(self.dir, 'out'), 'it')

    def test_a_bad_name_in_the_tree_is_refused_when_packed(self):
        for bad in ('../x', '/etc/x', 'a\x00b'):
            self.assertRaises(exceptions.CommandError, configs.pack,
                              {bad: (b'', 0o644)})


class TestShown(unittest.TestCase):

    def test_failures_are_counted_not_listed(self):
        shown = configs.shown({'mode': 'auto', 'status': 'FAILED',
                               'failures': [{'host': 'a'}, {'host': 'b'}],
                               'progress': ['x']})
        self.assertEqual({'mode': 'auto', 'status': 'FAILED',
                          'failures': 2}, shown)
        self.assertEqual({}, configs.shown(None))

    def test_events_are_read_back_and_junk_skipped(self):
        events = [{'host': 'a', 'task': 't', 'status': 'ok'}]
        self.assertEqual(events, configs.load_events(
            configs.dump_events(events)))
        self.assertEqual([], configs.load_events(b'{"not": "a list"}'))
        self.assertEqual([], configs.load_events(b'\xff'))
