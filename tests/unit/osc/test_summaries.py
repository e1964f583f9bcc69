"""What a table shows of a long value: a list's changes, a diff's files
and counts, a parameter's change in a line."""

import unittest

from tripleoplanclient.osc import summaries


class TestChanges(unittest.TestCase):

    def test_the_first_list_is_all_added(self):
        self.assertEqual('2 in all\n+ a.yaml\n+ b.yaml',
                         summaries.changes(None, ['a.yaml', 'b.yaml']))

    def test_unchanged_and_reordered_are_one_line(self):
        self.assertEqual('2 in all, unchanged',
                         summaries.changes(['a', 'b'], ['a', 'b']))
        self.assertEqual('2 in all, reordered',
                         summaries.changes(['a', 'b'], ['b', 'a']))

    def test_only_what_changed(self):
        before = ['env-%02d.yaml' % i for i in range(12)]
        after = before[1:] + ['debug.yaml']
        self.assertEqual('12 in all\n+ debug.yaml\n- env-00.yaml',
                         summaries.changes(before, after))

    def test_many_changes_are_counted(self):
        shown = summaries.changes([], ['e%d' % i for i in range(20)])
        self.assertEqual(['20 in all'] + ['+ e%d' % i for i in range(6)] +
                         ['... and 14 more'], shown.split('\n'))


class TestDiffstat(unittest.TestCase):

    def test_counts_per_file(self):
        text = ('--- a/environments/x.yaml\n+++ b/environments/x.yaml\n'
                '@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 3\n'
                '--- /dev/null\n+++ b/new.yaml\n@@ -0,0 +1,2 @@\n+x\n+y\n'
                '--- a/gone.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n'
                'Binary files a/i.png and b/i.png differ (MD5 1 -> 2)\n')
        self.assertEqual('+1 -1 environments/x.yaml\n+2 -0 new.yaml\n'
                         '+0 -1 gone.yaml\n'
                         'Binary files a/i.png and b/i.png differ (MD5 1 -> '
                         '2)', summaries.diffstat(text))

    def test_a_removed_line_like_a_header_is_counted(self):
        # "-- x" removed is "--- x": the hunk's counts tell it apart
        text = ('--- a/f.yaml\n+++ b/f.yaml\n@@ -1,2 +1,2 @@\n--- x\n'
                '-y\n+++ z\n+w\n')
        self.assertEqual('+2 -2 f.yaml', summaries.diffstat(text))

    def test_many_files_are_counted(self):
        text = ''.join('--- a/f%d\n+++ b/f%d\n@@ -1 +1 @@\n-a\n+b\n' % (i, i)
                       for i in range(30))
        shown = summaries.diffstat(text).split('\n')
        self.assertEqual(['+1 -1 f%d' % i for i in range(6)] +
                         ['... and 24 more'], shown)


class TestParameters(unittest.TestCase):

    def test_a_list_shows_its_items_added_and_removed(self):
        old = ['server-%d.example' % i for i in range(30)]
        shown = summaries.parameters({'NtpServer': {
            'change': 'changed', 'old': old,
            'new': old[1:] + ['new.example']}})
        self.assertEqual('NtpServer: + new.example; - server-0.example',
                         shown)

    def test_scalars_mappings_added_and_removed(self):
        shown = summaries.parameters({
            'Debug': {'change': 'changed', 'old': False, 'new': True},
            'ExtraConfig': {'change': 'changed', 'old': {'a': 1, 'b': 2},
                            'new': {'a': 2, 'c': 3}},
            'Banner': {'change': 'added', 'new': 'x' * 100},
            'Gone': {'change': 'removed', 'old': 1}})
        self.assertEqual([
            'Debug: false -> true',
            'ExtraConfig: + c; - b; ~ a',
            'Banner: added (' + 'x' * 37 + '...)',
            'Gone: removed (was 1)'], shown.split('\n'))

    def test_a_step_in_a_line(self):
        self.assertEqual(
            'step 5: deploy SUCCESS at 2026-11-29T10:00:00Z (a1)',
            summaries.step({'step': 5, 'id': 'a1', 'action': 'deploy',
                            'time': '2026-11-29T10:00:00Z',
                            'status': 'SUCCESS'}))

    def test_mapping_keeps_its_order_and_cuts_values(self):
        self.assertEqual('status: FAILED\nreason: ' + 'r' * 57 + '...',
                         summaries.mapping({'status': 'FAILED',
                                            'reason': 'r' * 90}))
        self.assertEqual('reason: ' + 'r' * 90,
                         summaries.mapping({'reason': 'r' * 90}, None))


class TestOutcome(unittest.TestCase):

    def test_a_success_is_its_statuses(self):
        self.assertEqual('SUCCESS\nUPDATE_COMPLETE', summaries.outcome(
            {'status': 'SUCCESS', 'stack_status': 'UPDATE_COMPLETE',
             'reason': 'Stack UPDATE completed successfully'}))

    def test_a_failure_says_why(self):
        self.assertEqual(
            'FAILED\nCREATE_FAILED\nResource CREATE failed: one',
            summaries.outcome({'status': 'FAILED',
                               'stack_status': 'CREATE_FAILED',
                               'reason': 'Resource CREATE failed: one'}))

    def test_the_configuration_and_validations_follow(self):
        # what show-history's table leaves out of its own columns
        self.assertEqual(
            'SUCCESS\nCREATE_COMPLETE\nconfig FAILED (2 failures)\n'
            'pre pre-deployment PASSED\npost post-deployment FAILED',
            summaries.outcome(
                {'status': 'SUCCESS', 'stack_status': 'CREATE_COMPLETE'},
                {'status': 'FAILED', 'failures': [{}, {}], 'hosts': {}},
                [{'hook': 'pre', 'group': 'pre-deployment', 'run': 'r1',
                  'status': 'PASSED'},
                 {'hook': 'post', 'group': 'post-deployment', 'run': 'r2',
                  'status': 'FAILED'}]))
        self.assertEqual('SUCCESS', summaries.outcome(
            {'status': 'SUCCESS'}, {}, []))
