"""The JUnit XML of a run against the schema CI systems read: Jenkins'
JUnit XSD (junit-10.xsd), as pytest's own tests check pytest's
``--junitxml`` with it. The XSD is read from pytest's sdist, downloaded
once into the cache ``tools/run-tests.sh`` fills before the tests'
namespace (which reaches no registry); nothing is copied into this
repository."""

import os
import subprocess
import sys
import tarfile
from xml.etree import ElementTree

import testtools
import xmlschema

from tripleoplanclient.validations import junit

PYTEST = '8.3.3'
CACHE = os.path.join(os.environ.get('LOOPBACK_CACHE') or os.path.join(
    os.path.expanduser('~'), '.cache', 'tripleoplanclient'), 'pytest')
SDIST = os.path.join(CACHE, 'pytest-%s.tar.gz' % PYTEST)
XSD = 'pytest-%s/testing/example_scripts/junit-10.xsd' % PYTEST


def junit_schema():
    """The XSD's text; None (and why) when the sdist is neither in the
    cache nor downloadable."""
    if not os.path.exists(SDIST):
        os.makedirs(CACHE, exist_ok=True)
        try:
            done = subprocess.run(
                [sys.executable, '-m', 'pip', 'download', '--quiet',
                 '--disable-pip-version-check', '--no-deps', '--no-binary',
                 ':all:', '--dest', CACHE, 'pytest==%s' % PYTEST],
                capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return None, 'pip download took more than 300 s'
        if done.returncode or not os.path.exists(SDIST):
            return None, (done.stderr.strip().splitlines() or ['-'])[-1]
    with tarfile.open(SDIST) as sdist:
        return sdist.extractfile(XSD).read().decode(), None


def run(*results, **fields):
    found = {'run': 'f0e1d2c3-0000-4000-8000-000000000002', 'plan': 'p',
             'group': 'pre-deployment', 'names': None, 'status': 'FAILED',
             'started': '2026-11-29T06:00:00Z', 'duration': 1234.5,
             'extra_vars': {'size': 3, 'db_password': '***'},
             'validations': [{'id': r['validation'], 'status': r['status'],
                              'duration': 1.0, 'message': r.get('message')}
                             for r in results],
             'results': list(results)}
    found.update(fields)
    return found


class TestJunitSchema(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        text, why = junit_schema()
        cls.schema = xmlschema.XMLSchema(text) if text else None
        cls.why = why

    def setUp(self):
        super().setUp()
        if self.schema is None:
            self.skipTest('junit-10.xsd is read from the pytest %s sdist, '
                          'not in %s, and PyPI could not be reached to '
                          'download it (%s); tools/run-tests.sh fetches it '
                          'before the tests' % (PYTEST, CACHE, self.why))

    def assertValid(self, data):
        errors = list(self.schema.iter_errors(data.decode()))
        self.assertEqual([], [str(e).splitlines()[0] for e in errors])

    def test_every_verdict_is_valid(self):
        self.assertValid(junit.build(run(
            {'validation': 'ok', 'status': 'PASSED',
             'stats': {'127.0.0.2': {'ok': 1}}, 'failures': []},
            {'validation': 'bad', 'status': 'FAILED',
             'stats': {'127.0.0.2': {'failures': 1},
                       '127.0.0.3': {'unreachable': 1}},
             'failures': [{'host': '127.0.0.2', 'task': 'T', 'msg': 'no'},
                          {'host': '127.0.0.3', 'task': 'G', 'msg': 'down',
                           'status': 'unreachable'}]},
            {'validation': 'err', 'status': 'ERROR', 'message': 'rc 4'},
            {'validation': 'inv', 'status': 'INVALID',
             'message': 'not run: no metadata'})))

    def test_a_run_with_nothing_and_untrusted_text_is_valid(self):
        self.assertValid(junit.build(run(duration=None, started=None)))
        nasty = ']]> <a/> &amp; \x00\x08\x0b\x1f\ud800\uffff "\'\t\r\n'
        self.assertValid(junit.build(run(
            {'validation': 'bad', 'status': 'FAILED',
             'stats': {nasty: {'failures': 1}},
             'failures': [{'host': nasty, 'task': nasty,
                           'msg': nasty * 10000}]},
            plan=nasty, extra_vars={nasty: nasty})))

    def test_the_schema_is_strict_enough_to_fail(self):
        data = junit.build(run())
        top = ElementTree.fromstring(data)
        del top.find('testsuite').attrib['tests']
        self.assertFalse(self.schema.is_valid(ElementTree.tostring(
            top, encoding='unicode')))
        top = ElementTree.fromstring(data)
        top.find('testsuite').set('time', '1 s')
        self.assertFalse(self.schema.is_valid(ElementTree.tostring(
            top, encoding='unicode')))
