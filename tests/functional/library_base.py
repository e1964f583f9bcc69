"""The small plan of the deployment library's tests: templates with a
sample-env-generator, two mutually exclusive environments, a nested
template, roles and a hidden parameter; and a test class whose stack is
deleted after it.
"""

from tests.functional import base

TEMPLATES = {
    'overcloud.yaml': '''heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
  ControllerCount: {type: number, default: 1}
  Mode:
    type: string
    default: a
    constraints:
      - allowed_values: [a, b]
  Needed: {type: string, description: Must be set by the operator.}
resources:
  Controller:
    type: OS::TripleO::Controller
    properties:
      count: {get_param: ControllerCount}
''',
    'controller.yaml': '''heat_template_version: rocky
description: One controller
parameters:
  count: {type: number, default: 0}
  ControllerExtraConfig: {type: json, default: {}}
resources:
  r: {type: OS::Heat::None}
''',
    'overcloud-resource-registry-puppet.yaml':
        'resource_registry:\n  OS::TripleO::Controller: controller.yaml\n',
    'environments/mode-a.yaml': '''# title: Mode A
# description: |
#   The first mode.
parameter_defaults:
  Mode: a
resource_registry:
  OS::TripleO::Mode: OS::Heat::Value
''',
    # Another implementation of OS::TripleO::Mode: a real alternative
    # (the parameter alone would only be an override).
    'environments/mode-b.yaml': '''parameter_defaults:
  Mode: b
resource_registry:
  OS::TripleO::Mode: OS::Heat::RandomString
''',
    'sample-env-generator/modes.yaml': '''environments:
  - name: mode-b
    title: Mode B
    description: The second mode.
    files: {}
''',
    'roles_data.yaml': '''- name: Controller
  description: The controllers
  CountDefault: 1
  tags: [primary, controller]
  networks: [InternalApi]
''',
    'roles/Controller.yaml': '''- name: Controller
  description: The controllers
  CountDefault: 1
  tags: [primary, controller]
  networks: [InternalApi]
''',
    'roles/Compute.yaml': '''- name: Compute
  description: The computes
  networks: [InternalApi]
''',
    'network_data.yaml': '- name: InternalApi\n  name_lower: internal_api\n',
}


class DeployedPlanTest(base.PlanTest):
    """The class's plan of TEMPLATES, and the stack a test deploys."""

    TEMPLATES = TEMPLATES

    @classmethod
    def tearDownClass(cls):
        base.subprocess.run(['openstack', 'stack', 'delete', '-y', '--wait',
                             cls.plan], env=cls.env, capture_output=True)
        super().tearDownClass()
