"""Our Ironic client (nodes/ironic.py) on a fake Ironic of the test's own,
and the nodes.json entries the registration tests give it.
"""

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit.nodes import fake_ironic
from tripleoplanclient.nodes import ironic

PW = 'pw-secret-1'


def client(url=fake_ironic.URL, **kwargs):
    return ironic.Ironic(ksa_session.Session(auth=noauth.NoAuth()), url,
                         **kwargs)


class IronicTestCase(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.ironic = client()


def nodes(count=3):
    return [{'name': 'n%d' % i, 'pm_type': 'ipmi',
             'pm_addr': '192.0.2.%d' % (10 + i), 'pm_user': 'admin',
             'pm_password': PW, 'pm_port': 6230,
             'ports': [{'address': '52:54:00:00:00:%02x' % i,
                        'physical_network': 'ctlplane'}],
             'cpu': 2, 'memory': 4096, 'capabilities': 'boot_mode:uefi'}
            for i in range(count)]
