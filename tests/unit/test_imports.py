"""Every ``openstack`` run imports the plugin and its command modules."""

import json
import subprocess
import sys
import unittest

HEAVY = ('swiftclient', 'heatclient', 'mistralclient', 'jinja2', 'yaml',
         'oslo_log', 'requests')

PROBE = '''
import importlib, json, pkgutil, sys
import tripleoplanclient.plugin
import tripleoplanclient.v1 as v1
names = [m.name for m in pkgutil.iter_modules(v1.__path__)]
for name in names:
    importlib.import_module('tripleoplanclient.v1.' + name)
print(json.dumps({'modules': names,
                  'heavy': sorted(m for m in %r if m in sys.modules)}))
''' % (HEAVY,)


class TestCheapStartup(unittest.TestCase):

    def test_plugin_and_commands_import_no_client_library(self):
        out = subprocess.run([sys.executable, '-c', PROBE], check=True,
                             capture_output=True, text=True).stdout
        result = json.loads(out)
        self.assertIn('overcloud_plan', result['modules'])
        self.assertEqual([], result['heavy'])
