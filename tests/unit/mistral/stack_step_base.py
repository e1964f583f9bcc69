"""A plan ``p`` made by the real plan_create action on a stateful fake
Swift, Heat faked around it, for the tests of the deploy action's step:
the stack's creation and the event marker answered, what the record
held when Heat was asked noted.
"""

import yaml

from tests.unit import fakes
from tripleoplanclient import protocol
from tripleoplanclient.record import log

TEMPLATE = (b'heat_template_version: rocky\nparameters:\n'
            b'  AdminPassword: {type: string, hidden: true}\n'
            b'resources: {}\n')
ENV = b'parameter_defaults: {AdminPassword: x}\n'
UPDATE = 'environments/lifecycle/update-prepare.yaml'


class StackStepTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.m.post(fakes.HEAT + '/validate', headers=fakes.JSON,
                    json=fakes.heat_merges)
        self.create_saw = None

        def create(request, context):
            # what the record holds when Heat is asked
            self.create_saw = log.id_of(self.steps()[-1]) if len(
                self.steps()) > 1 else None
            context.status_code = 201
            context.headers = fakes.JSON
            return {'stack': {'id': fakes.STACK_ID, 'links': []}}
        self.create = self.m.post(fakes.HEAT + '/stacks', json=create)
        # The newest event before an update (whoever follows it starts
        # there): e1.
        self.marker = self.m.get(
            fakes.HEAT + '/stacks/p/%s/events' % fakes.STACK_ID,
            headers=fakes.JSON,
            json={'events': [{'id': 'e1', 'links': []}]})
        for name, data in (('overcloud.yaml', TEMPLATE),
                           ('environments/env.yaml', ENV),
                           ('roles_data.yaml', b'- name: Controller\n'),
                           ('old.yaml', b'x: 1\n'),
                           (UPDATE, b'parameter_defaults: {}\n')):
            self.swift.store(name, data)
        self.ask('plan_create', container='p',
                 environments=['environments/env.yaml'], render=False)

    def ask(self, name, **fields):
        return fakes.run_ours(self.store, protocol.request(
            name, swift_url=fakes.SWIFT, heat_url=fakes.HEAT, **fields)
            if name == 'deploy' else protocol.request(
                name, swift_url=fakes.SWIFT, **fields), protocol.action(name))

    def steps(self):
        return sorted(n for n in self.swift.objects
                      if n.startswith(log.LOG_PREFIX))

    def outcome(self, step_id):
        data = self.swift.objects.get(log.outcome_path(step_id))
        return data and yaml.safe_load(data[0])
