"""tools/bench/config_download.py: the kinds of Heat requests read from
Heat's access log, and a small run on the fake Heat."""

import argparse
import contextlib
import io
import json
import tempfile
import unittest

from bench import config_download


class TestBench(unittest.TestCase):

    def test_kinds_from_the_access_log(self):
        for path, kind in (
                ('stacks/NAME', 'redirect'),
                ('stacks/NAME/resources?nested_depth=7', 'redirect'),
                ('stacks/NAME/ID', 'stack'),
                ('stacks/NAME/ID/environment', 'environment'),
                ('stacks/NAME/ID/resources?name=TripleODeployment',
                 'resources'),
                ('stacks/NAME/ID/resources/TripleOSoftwareDeployment',
                 'resource'),
                ('software_deployments', 'deployments'),
                ('software_deployments/metadata/fake_server_id',
                 'metadata'),
                ('software_deployments/4f26e3ff', 'deployment'),
                ('software_configs/4f26e3ff', 'config')):
            self.assertEqual(kind, config_download.kind_of(path), path)

    def test_a_small_run(self):
        args = argparse.Namespace(roles=1, deployments=3, latency=0,
                                  repeat=1, stack=None)
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as work, \
                contextlib.redirect_stdout(out):
            config_download.fake(args, work)
        figures = json.loads(out.getvalue().splitlines()[-1])
        self.assertTrue(figures['same_tree'])
        self.assertEqual(6, figures['requests'])
        # tripleo-common: 2 per deployment, 10 for the rest
        self.assertEqual(16, figures['tripleo_common_requests'])
        self.assertIn('same tree: yes', out.getvalue())
