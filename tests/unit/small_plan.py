"""The small plan ``p`` the deploy and preview actions' tests store in the
fake Swift (a template with a nested one and a script, two environments,
the plan environment), and the fake Heat's answer for its stack.
"""

from tests.unit import fakes

TEMPLATE = b'''heat_template_version: rocky
parameters:
  Foo: {type: string}
resources:
  Nested:
    type: nested/a.yaml
  Script:
    type: OS::Heat::SoftwareConfig
    properties:
      config: {get_file: scripts/run.sh}
'''
NESTED = b'''heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
resources:
  Leaf:
    type: OS::Heat::None
'''
THING = b'''heat_template_version: rocky
resources: {}
'''
ENV_REGISTRY = b'''resource_registry:
  OS::TripleO::Thing: ../extra/thing.yaml
  OS::TripleO::Builtin: OS::Heat::None
parameter_defaults:
  Foo: from-env
'''
ENV_OTHER = b'''parameter_defaults:
  Bar: from-other
'''
PLAN_ENV = b'''version: 1.0
name: p
passwords:
  AdminPassword: generated
  Foo: generated-foo
  Shared: generated-shared
parameter_defaults:
  Shared: plan
'''


def plan_objects():
    return {
        'overcloud.yaml': TEMPLATE,
        'nested/a.yaml': NESTED,
        'scripts/run.sh': b'#!/bin/sh\necho hi\n',
        'extra/thing.yaml': THING,
        'environments/registry.yaml': ENV_REGISTRY,
        'environments/other.yaml': ENV_OTHER,
        'plan-environment.yaml': PLAN_ENV,
        'user-environments/environments.yaml': b'version: 1\n',
    }


def stack(status, updated='2024-05-01T12:00:00Z'):
    return {'stack': {
        'id': fakes.STACK_ID, 'stack_name': 'p', 'stack_status': status,
        'stack_status_reason': '', 'creation_time': '2024-05-01T10:00:00Z',
        'updated_time': updated,
        'links': [{'rel': 'self',
                   'href': fakes.HEAT + '/stacks/p/' + fakes.STACK_ID}]}}
