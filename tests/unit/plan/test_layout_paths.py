"""Every plan path a user gives goes through layout.check_plan_path."""

import os
import posixpath
import tempfile
import unittest

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout

BAD = ['', '.', '..', '../x', 'a/../../x', 'a/./b', './a', '/etc/x', 'dir/',
       'a//b', 'a\\b', '..\\x', 'a\nb', 'x\n', 'a\x00b', 'tab\there',
       '\udcff.yaml', 'x' * 1025, 'user-environments',
       'user-environments/environments.yaml', 'user-environments/log/x.yaml',
       layout.PLAN_ENVIRONMENT]
GOOD = ['a', 'ssl/cert.pem', 'environments/x.yaml', '.hidden/x', 'a..b',
        'user-files/etc/x', 'sub/plan-environment.yaml', 'x' * 1024]

# Characters that make paths hostile, and the reserved names, so that a
# few hundred examples reach every rule.
_PIECES = st.sampled_from(['a', 'b.yaml', '.', '..', '/', '//', '\\', '\n',
                           '\x00', '\x7f', ' ', 'user-environments',
                           'user-environments/', 'user-files/',
                           layout.PLAN_ENVIRONMENT, '\udcff', '\u00e9'])
HOSTILE = st.one_of(st.text(), st.lists(_PIECES, max_size=8).map(''.join))


write = fakes.write_file


class TestCheckPlanPath(unittest.TestCase):

    def test_every_bad_path_is_refused_naming_the_input(self):
        for bad in BAD:
            with self.assertRaises(exceptions.CommandError, msg=bad) as cm:
                layout.check_plan_path(bad, '--upload-file x=%r' % bad)
            self.assertIn('--upload-file x=%r' % bad, str(cm.exception))
            self.assertIn('Nothing was changed', str(cm.exception))

    def test_plain_relative_paths_pass(self):
        for good in GOOD:
            self.assertEqual(good, layout.check_plan_path(good, 'x'))

    def test_the_templates_own_plan_environment_is_theirs(self):
        self.assertEqual(layout.PLAN_ENVIRONMENT, layout.check_plan_path(
            layout.PLAN_ENVIRONMENT, 't', 'templates'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Remove or rename it in the templates'):
            layout.check_plan_path('user-files/x', 't', 'templates')

    def test_stored_names_need_only_be_plain(self):
        self.assertEqual('user-environments/log/x.yaml',
                         layout.check_plan_path(
                             'user-environments/log/x.yaml', 'o', 'stored'))
        with self.assertRaisesRegex(exceptions.CommandError, 'Rename or '
                                    'delete that object in Swift'):
            layout.check_plan_path('../../x', 'o', 'stored')

    @hypothesis.settings(max_examples=1000, deadline=None)
    @hypothesis.given(HOSTILE, st.sampled_from(['user', 'templates',
                                                'stored']))
    def test_accepted_paths_stay_inside_and_refused_ones_say_why(
            self, path, source):
        try:
            out = layout.check_plan_path(path, 'INPUT', source)
        except exceptions.CommandError as exc:
            self.assertTrue(str(exc).startswith('INPUT: '))
            return
        self.assertEqual(path, out)
        # What a naive extractor or os.path.join would make of it.
        self.assertEqual(path, posixpath.normpath(path))
        self.assertFalse(path.startswith('/'))
        self.assertNotIn('..', path.split('/'))
        self.assertFalse(any(c in path for c in '\\\n\r\x00'))
        path.encode('utf-8')
        root = '/srv/export'
        self.assertTrue(os.path.normpath(os.path.join(root, path))
                        .startswith(root + '/'))
        if source != 'stored':
            self.assertFalse(path.startswith(layout.RECORD_DIR))
        if source == 'user':
            self.assertNotEqual(layout.PLAN_ENVIRONMENT, path)

    def test_a_plan_name_with_a_trailing_newline_is_refused(self):
        for bad in ('overcloud\n', 'a/b', '-x', '', None, 'x' * 256):
            with self.assertRaisesRegex(exceptions.CommandError, 'not valid',
                                        msg=bad):
                layout.check_name(bad)
        self.assertEqual('over-cloud1', layout.check_name('over-cloud1'))

    @hypothesis.settings(max_examples=500, deadline=None)
    @hypothesis.given(st.text())
    def test_plan_names_are_letters_digits_dashes_only(self, name):
        try:
            layout.check_name(name)
        except exceptions.CommandError:
            return
        self.assertTrue(name[0].isascii() and name[0].isalnum())
        self.assertTrue(all(c.isascii() and (c.isalnum() or c == '-')
                            for c in name))


class TestFilesUseTheCheck(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        self.tht = os.path.join(self.root, 'tht')
        write(os.path.join(self.tht, 'overcloud.yaml'))
        write(os.path.join(self.tht, layout.PLAN_ENVIRONMENT), 'version: 1\n')
        self.local = write(os.path.join(self.root, 'x.yaml'))

    def files(self):
        return files_mod.PlanFiles(self.tht)

    def refused(self, call, *needles):
        with self.assertRaises(exceptions.CommandError) as cm:
            call()
        for needle in needles:
            self.assertIn(needle, str(cm.exception))
        return str(cm.exception)

    def test_the_templates_plan_environment_is_part_of_the_tree(self):
        files = self.files()
        files.add_templates()
        self.assertIn(layout.PLAN_ENVIRONMENT, files.objects)

    def test_a_tree_with_a_reserved_path_is_refused_naming_the_file(self):
        for name in ('user-environments/log/x.yaml', 'user-files/etc/x',
                     'bad\nname.yaml', 'back\\slash.yaml'):
            bad = write(os.path.join(self.tht, name))
            files = self.files()
            self.refused(files.add_templates, bad, 'Remove or rename it')
            self.assertEqual({}, files.objects)
            os.unlink(bad)

    def test_upload_targets_are_checked(self):
        files = self.files()
        for target in ('.', '..', 'a//b', layout.PLAN_ENVIRONMENT,
                       'user-environments/environments.yaml', 'x\n'):
            spec = '%s=%s' % (self.local, target)
            self.refused(lambda: files.add_upload(spec), '--upload-file')
        self.assertEqual({}, files.objects)

    def test_uploading_the_templates_plan_environment_is_refused(self):
        # Without "=": its plan path comes from the recorded templates.
        files = self.files()
        self.refused(lambda: files.add_upload(
            os.path.join(self.tht, layout.PLAN_ENVIRONMENT)),
            'generated passwords')
        self.assertEqual({}, files.objects)

    def test_data_files_inside_the_record_dir_are_refused(self):
        roles = write(os.path.join(self.tht, 'user-environments', 'r.yaml'),
                      '- name: Controller\n')
        self.refused(lambda: self.files().add_input(
            'roles_data', roles, '--roles-file'), '--roles-file', roles)
        env = write(os.path.join(self.root, 'e.yaml'),
                    'resource_registry:\n  OS::X: tht/user-environments/'
                    'r.yaml\n')
        self.refused(lambda: self.files().add_environment(env), env,
                     'user-environments/')

    def test_a_local_name_that_is_no_plan_path_is_refused(self):
        odd = write(os.path.join(self.root, 'new\nline.yaml'),
                    'parameter_defaults: {}\n')
        self.refused(lambda: self.files().add_environment(odd),
                     'control character')
        self.refused(lambda: self.files().add_upload(odd), '--upload-file')
