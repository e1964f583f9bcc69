"""Plan ``p`` beside the fake Ironic, for the tests of provisioning into
a plan (the Mistral side and the commands).

A mixin of ``fakes.PlanTestCase`` (its fake Swift, Heat and Mistral on
``self.m``): ``p`` made by the real create command, ``self.fake`` a
``fake_ironic.FakeIronic`` holding node ``c0`` (profile control,
available), ``self.ironic`` our client of it.
"""

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit.nodes import fake_ironic
from tripleoplanclient.nodes import ironic
from tripleoplanclient.osc import plan as plan_cmd


class PlanAndIronic:

    def setUp(self):
        super().setUp()
        self.write('t/overcloud.yaml', 'heat_template_version: rocky\n')
        self.cmd(plan_cmd.CreatePlan, 'p', '--templates', self.dir + '/t',
                 '--no-render')
        self.fake = fake_ironic.FakeIronic(self.m)
        self.ironic = ironic.Ironic(
            ksa_session.Session(auth=noauth.NoAuth()), fake_ironic.URL)
        self.fake.add_node(name='c0', provision_state='available',
                           properties={'capabilities': 'profile:control'})
