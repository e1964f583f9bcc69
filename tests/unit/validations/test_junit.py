"""A validation run as JUnit XML: one testcase per validation and host,
their verdicts, the suite's counts and properties, and untrusted text
kept within bounds and as text."""

from xml.etree import ElementTree

import testtools

from tripleoplanclient.validations import junit


def result(vid, status, stats=None, failures=(), message=None, duration=1):
    return {'validation': vid, 'status': status, 'stats': stats or {},
            'failures': list(failures), 'message': message,
            'duration': duration}


def record(*results, **fields):
    """A run's record as ``validation show RUN`` reads it."""
    run = {'run': 'f0e1d2c3-0000-4000-8000-000000000001', 'plan': 'p',
           'group': None, 'names': [r['validation'] for r in results],
           'status': 'FAILED', 'started': '2026-11-29T06:00:00Z',
           'ended': '2026-11-29T06:00:09Z', 'duration': 9.5,
           'validations': [{'id': r['validation'], 'status': r['status'],
                            'duration': r['duration'],
                            'message': r['message']} for r in results],
           'results': list(results)}
    run.update(fields)
    return run


def parsed(run):
    top = ElementTree.fromstring(junit.build(run))
    return top, top.find('testsuite')


def cases(suite):
    """{(classname, name): (verdict element or None, its attributes,
    its text)}"""
    found = {}
    for case in suite.iter('testcase'):
        verdict = list(case)
        found[case.get('classname'), case.get('name')] = (
            verdict[0].tag, dict(verdict[0].attrib), verdict[0].text) \
            if verdict else (None, {}, None)
    return found


class TestJunit(testtools.TestCase):

    def test_one_testcase_per_validation_and_host(self):
        top, suite = parsed(record(
            result('ok', 'PASSED', {'127.0.0.2': {'ok': 2},
                                    '127.0.0.3': {'ok': 2}}),
            result('bad', 'FAILED',
                   {'127.0.0.2': {'ok': 1, 'failures': 1},
                    '127.0.0.3': {'ok': 2}, '127.0.0.4': {'unreachable': 1}},
                   [{'host': '127.0.0.2', 'task': 'Check disk',
                     'msg': 'only 1 GB free'},
                    {'host': '127.0.0.2', 'task': 'Check inodes',
                     'msg': 'no inode left'},
                    {'host': '127.0.0.4', 'task': 'Gathering Facts',
                     'msg': 'Connection refused', 'status': 'unreachable'}],
                   duration=2.25)))
        self.assertEqual({
            ('ok', '127.0.0.2'): (None, {}, None),
            ('ok', '127.0.0.3'): (None, {}, None),
            ('bad', '127.0.0.2'): (
                'failure', {'type': 'Check disk',
                            'message': 'only 1 GB free'},
                'Check disk: only 1 GB free\nCheck inodes: no inode left'),
            ('bad', '127.0.0.3'): (None, {}, None),
            ('bad', '127.0.0.4'): (
                'error', {'type': 'unreachable',
                          'message': 'Connection refused'},
                'Gathering Facts: Connection refused')}, cases(suite))
        self.assertEqual(
            {'name': 'f0e1d2c3-0000-4000-8000-000000000001', 'tests': '5',
             'failures': '1', 'errors': '1', 'skipped': '0', 'time': '9.500',
             'timestamp': '2026-11-29T06:00:00Z'}, suite.attrib)
        self.assertEqual(('5', '1', '1'), (top.get('tests'),
                                           top.get('failures'),
                                           top.get('errors')))
        self.assertEqual({'2.250'}, {c.get('time') for c in suite.iter(
            'testcase') if c.get('classname') == 'bad'})

    def test_errors_and_what_did_not_run(self):
        _, suite = parsed(record(
            result('broken', 'ERROR', message='ansible-playbook ended with '
                   'status 4'),
            result('slow', 'TIMEOUT', {'127.0.0.2': {'ok': 1}},
                   message='did not end within 60 s'),
            result('later', 'TIMEOUT', message='not run: the run ended '
                   'first (TIMEOUT)'),
            result('malformed', 'INVALID', message='not run: no metadata'),
            result('listed', 'SKIPPED', message='skipped: known issue'),
            result('noplan', 'ERROR', message='not run: validation noplan '
                   'needs a plan: run it with --plan'),
            status='TIMEOUT'))
        found = cases(suite)
        self.assertEqual({
            ('broken', 'no host'): ('error', 'ERROR'),
            ('slow', '127.0.0.2'): ('error', 'TIMEOUT'),
            ('later', 'no host'): ('skipped', 'TIMEOUT'),
            ('malformed', 'no host'): ('skipped', 'INVALID'),
            ('listed', 'no host'): ('skipped', 'SKIPPED'),
            ('noplan', 'no host'): ('error', 'ERROR')},
            {k: (v[0], v[1]['type']) for k, v in found.items()})
        self.assertEqual('not run: no metadata',
                         found['malformed', 'no host'][1]['message'])
        self.assertEqual(('6', '0', '3', '3'), (
            suite.get('tests'), suite.get('failures'), suite.get('errors'),
            suite.get('skipped')))

    def test_a_validation_whose_result_was_never_kept(self):
        # a run recorded STOPPED by ``validation stop``: summaries only
        run = record(result('ok', 'PASSED'), status='STOPPED')
        run['validations'].append({'id': 'left', 'status': 'STOPPED',
                                   'message': 'stopped', 'duration': None})
        run['results'].append(None)
        found = cases(parsed(run)[1])
        self.assertEqual(('skipped', {'type': 'STOPPED',
                                      'message': 'stopped'}, None),
                         found['left', 'no host'])

    def test_properties_keep_masked_values_masked(self):
        _, suite = parsed(record(
            result('ok', 'PASSED'), group='pre-deployment', limit='ctl-0',
            extra_vars={'minimal_ram_gb': 8, 'admin_password': '***',
                        'ApiToken': 'typed in'}))
        self.assertEqual([
            ('plan', 'p'), ('group', 'pre-deployment'), ('names', 'ok'),
            ('status', 'FAILED'), ('started', '2026-11-29T06:00:00Z'),
            ('ended', '2026-11-29T06:00:09Z'), ('limit', 'ctl-0'),
            ('extra_vars.ApiToken', '***'),
            ('extra_vars.admin_password', '***'),
            ('extra_vars.minimal_ram_gb', '8')],
            [(p.get('name'), p.get('value'))
             for p in suite.find('properties')])

    def test_untrusted_text_stays_text(self):
        message = 'a ]]> b <failure type="x"/> & \x00\x1b[31m\ufffe "q"\n'
        _, suite = parsed(record(result(
            'bad', 'FAILED', {'host]]>\x07': {'failures': 1}},
            [{'host': 'host]]>\x07', 'task': 'T <&>', 'msg': message}])))
        (key, (tag, attrib, text)), = cases(suite).items()
        self.assertEqual(('bad', 'host]]>\\x07'), key)
        self.assertEqual('failure', tag)
        said = 'a ]]> b <failure type="x"/> & \\x00\\x1b[31m\\ufffe "q"\n'
        self.assertEqual({'type': 'T <&>', 'message': said}, attrib)
        self.assertEqual('T <&>: ' + said, text)

    def test_huge_messages_are_cut(self):
        huge = 'x' * (junit.TEXT_LIMIT * 4)
        data = junit.build(record(result(
            'bad', 'FAILED', {'h': {'failures': 1}},
            [{'host': 'h', 'task': 'y' * 1000, 'msg': huge}] * 3)))
        (_, (_, attrib, text)), = cases(
            ElementTree.fromstring(data).find('testsuite')).items()
        self.assertEqual('x' * junit.MESSAGE_LIMIT + ' [%d characters cut]'
                         % (len(huge) - junit.MESSAGE_LIMIT),
                         attrib['message'])
        self.assertEqual(junit.NAME_LIMIT + len(' [745 characters cut]'),
                         len(attrib['type']))
        self.assertTrue(text.endswith(' characters cut]'))
        self.assertLess(len(data), 3 * junit.TEXT_LIMIT)
