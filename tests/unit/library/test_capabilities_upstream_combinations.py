"""The pre-deploy check (the validate and deploy actions' capability
check) on environment lists upstream TripleO deploys with, against the
tripleo-heat-templates 17.0.0 and 18.0.0 trees, rendered: they pass, with
"later file overrides earlier" warnings; real alternatives are refused.

The trees: $THT_CACHE (default ~/.cache/tripleoplanclient/tht)
/tripleo-heat-templates-<release>, as tools fetch them; absent, skipped.
"""

import os
import unittest

from tests.unit.library import upstream_combinations as upstream
from tripleoplanclient.mistral import library
from tripleoplanclient.plan import rendering

CACHE = os.environ.get('THT_CACHE') or os.path.expanduser(
    '~/.cache/tripleoplanclient/tht')


def _tree(release):
    root = os.path.join(CACHE, 'tripleo-heat-templates-' + release)
    if not os.path.isfile(os.path.join(root, 'overcloud.j2.yaml')):
        raise unittest.SkipTest(
            'no tripleo-heat-templates %s tree at %s (set THT_CACHE to the '
            'directory holding tripleo-heat-templates-%s/)'
            % (release, root, release))
    files = {}
    for top, _, names in os.walk(root):
        for name in names:
            local = os.path.join(top, name)
            with open(local, 'rb') as f:
                files[os.path.relpath(local, root)] = f.read()
    files.update(rendering.render(
        set(files), files.__getitem__,
        networks_path='network_data_default.yaml'))
    return files


class _Upstream:
    release = None

    @classmethod
    def setUpClass(cls):
        cls.files = _tree(cls.release)

    def check(self, environments):
        return library.capability_check(
            set(self.files), self.files.__getitem__, environments)

    def shipped(self, name, environments):
        kept = [p for p in environments if p in self.files]
        self.assertEqual(
            upstream.DROPPED[self.release].get(name, []),
            [p for p in environments if p not in self.files], name)
        return kept

    def test_upstream_combinations_pass(self):
        refused = upstream.REFUSED.get(self.release, {})
        passed = 0
        for name, source, environments in upstream.COMBINATIONS:
            problems, warnings = self.check(self.shipped(name, environments))
            if name in refused:
                self.assertIn(refused[name], str(problems), name)
                continue
            self.assertEqual([], problems, '%s (%s)' % (name, source))
            for warning in warnings:
                self.assertTrue(warning.startswith(
                    'later file overrides earlier: '), warning)
            passed += 1
        self.assertGreaterEqual(passed, 20)

    def test_tls_everywhere_over_standalone_is_an_override(self):
        problems, warnings = self.check(
            [upstream.STANDALONE, 'environments/ssl/enable-internal-tls.yaml'])
        self.assertEqual([], problems)
        self.assertEqual(
            ['later file overrides earlier: '
             'environments/ssl/enable-internal-tls.yaml overrides '
             'environments/standalone/standalone-tripleo.yaml (both map '
             'OS::TripleO::Services::IpaClient differently)'], warnings)


class TestTripleoHeatTemplates17(_Upstream, unittest.TestCase):
    release = '17.0.0'


class TestTripleoHeatTemplates18(_Upstream, unittest.TestCase):
    release = '18.0.0'

    def test_real_alternatives_are_refused(self):
        for pair, resource_type in upstream.ALTERNATIVES_18:
            for environments in (pair, pair[::-1]):
                problems, _ = self.check(
                    [upstream.STANDALONE] + environments)
                self.assertEqual(1, len(problems), environments)
                self.assertIn('are mutually exclusive (both map %s '
                              'differently)' % resource_type,
                              problems[0][2])
