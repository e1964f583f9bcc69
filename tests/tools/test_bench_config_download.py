"""tools/bench/config_download.py: the kinds of Heat requests read from
Heat's access log, and a small run on the fake Heat."""

import argparse
import contextlib
import io
import json
import os
import tempfile
import unittest

from bench import config_download
from bench import deploy as bench_deploy


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

    def test_counted_in_heat_access_log(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, 'api-access.log')
            with open(path, 'w') as f:
                f.write('127.0.0.1 "GET /v1/admin/stacks HTTP/1.1" 200\n')
            counter = config_download.LogCounter(
                bench_deploy.HeatLog(path), '/v1/admin/')
            mark = counter.mark()
            with open(path, 'a') as f:
                for request in (
                        'GET /v1/admin/stacks/overcloud',
                        'GET /v1/admin/stacks/overcloud/0d1c',
                        'GET /v1/admin/stacks/overcloud/0d1c/environment',
                        'GET /v1/admin/stacks/overcloud/0d1c/resources'
                        '?name=TripleODeployment&nested_depth=7',
                        'GET /v1/admin/software_deployments?',
                        'GET /v1/admin/software_deployments/metadata/x',
                        'GET /v2/other/stacks/overcloud'):
                    f.write('127.0.0.1 "%s HTTP/1.1" 200\n' % request)
            self.assertEqual({'redirect': 1, 'stack': 1, 'environment': 1,
                              'resources': 1, 'deployments': 1,
                              'metadata': 1}, counter.since(mark))
