"""Every ``openstack`` run imports the plugin and its command modules."""

import json
import subprocess
import sys
import unittest

HEAVY = ('swiftclient', 'heatclient', 'mistralclient', 'jinja2', 'yaml',
         'oslo_log', 'requests')

# What cliff loads: the plugin module and every command class's module, as
# named by the entry points.
PROBE = '''
import importlib, json, sys
from importlib import metadata
eps = metadata.entry_points()
names = sorted({ep.value.split(':')[0] for group in (
    'openstack.cli.extension', 'openstack.tripleoplan.v1',
    'openstack.extension')
    for ep in eps.select(group=group) if ep.value.startswith(
        'tripleoplanclient.')})
for name in names:
    importlib.import_module(name)
print(json.dumps({'modules': names,
                  'heavy': sorted(m for m in %r if m in sys.modules)}))
''' % (HEAVY,)


class TestCheapStartup(unittest.TestCase):

    def test_plugin_and_commands_import_no_client_library(self):
        out = subprocess.run([sys.executable, '-c', PROBE], check=True,
                             capture_output=True, text=True).stdout
        result = json.loads(out)
        self.assertIn('tripleoplanclient.osc.plugin', result['modules'])
        self.assertIn('tripleoplanclient.osc.plan', result['modules'])
        self.assertIn('tripleoplanclient.osc.shared', result['modules'])
        self.assertEqual([], result['heavy'])
