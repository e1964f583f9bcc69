"""Plan ``p`` of the library's tests inside Mistral, made by the real create
command in a stateful fake Swift (two mutually exclusive environments, a
nested template, roles), and Heat's validation of it over requests-mock.
"""

from tests.unit import fakes
from tripleoplanclient.mistral import library
from tripleoplanclient.mistral import objects
from tripleoplanclient.osc import plan as plan_cmd
from tripleoplanclient import protocol

HEAT = fakes.HEAT
TEMPLATE = '''heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
  Needed: {type: string}
  Mode: {type: string, default: a}
resources:
  Controller: {type: OS::TripleO::Controller}
'''
CONTROLLER = '''heat_template_version: rocky
parameters:
  Extra: {type: json, default: {}}
resources: {}
'''


def validation(base, mode='b'):
    """Heat's answer to the plan's validation with nested stacks."""
    return {
        'Description': '',
        'Parameters': {
            'AdminPassword': {'Type': 'String', 'NoEcho': 'true',
                              'Description': '', 'Label': 'AdminPassword',
                              'Value': 'secret-password'},
            'Needed': {'Type': 'String', 'NoEcho': 'false',
                       'Description': 'set me', 'Label': 'Needed'},
            'Mode': {'Type': 'String', 'NoEcho': 'false', 'Default': mode,
                     'Description': '', 'Label': 'Mode'}},
        'NestedParameters': {'Controller': {
            'Type': 'OS::TripleO::Controller', 'Description': '',
            'Parameters': {'Extra': {'Type': 'Json', 'NoEcho': 'false',
                                     'Description': 'more', 'Default': {},
                                     'Label': 'Extra'}}}},
        'Environment': {
            'parameter_defaults': {'AdminPassword': 'secret-password',
                                   'Mode': mode, 'Unused': 1},
            'resource_registry': {
                'OS::TripleO::Controller': base + 'controller.yaml'}}}


class LibraryTestCase(fakes.PlanTestCase):
    """Plan ``p`` (two mutually exclusive environments, a nested
    template, roles), Heat's validation of it, and the requests."""

    def setUp(self):
        super().setUp()
        self.templates = self.dir + '/t'
        for name, text in {
                'overcloud.yaml': TEMPLATE,
                'controller.yaml': CONTROLLER,
                'registry.yaml': 'resource_registry:\n  '
                                 'OS::TripleO::Controller: controller.yaml\n',
                # Two real implementations of one resource type: real
                # alternatives (a parameter set differently alone is an
                # override, never refused).
                'environments/mode-b.yaml': (
                    '# title: Mode B\nparameter_defaults: {Mode: b}\n'
                    'resource_registry: {"OS::Mode": OS::Heat::Value}\n'),
                'environments/mode-c.yaml': (
                    'parameter_defaults: {Mode: c}\nresource_registry: '
                    '{"OS::Mode": OS::Heat::RandomString}\n'),
                'environments/mode-d.yaml': 'parameter_defaults: {Mode: d}\n',
                'sample-env-generator/modes.yaml': 'environments: []\n',
                'roles_data.yaml': '- name: Controller\n  CountDefault: 1\n',
                'roles/Compute.yaml': '- name: Compute\n'}.items():
            self.write('t/' + name, text)
        self.cmd(plan_cmd.CreatePlan, 'p', '--templates', self.templates,
                 '-e', self.templates + '/registry.yaml', '-e',
                 self.templates + '/environments/mode-b.yaml', '--no-render')
        self.base = fakes.SWIFT + '/p/'
        self.validations = library.Validations()
        self.validate = self.m.post(HEAT + '/validate', headers=fakes.JSON,
                                    json=validation(self.base))

    def plan(self):
        return library.Plan(self.store, {'container': 'p'},
                            objects.ContentCache())

    def req(self, name, **fields):
        return protocol.read(name, protocol.request(
            name, container='p', swift_url=fakes.SWIFT, heat_url=HEAT,
            **fields))
