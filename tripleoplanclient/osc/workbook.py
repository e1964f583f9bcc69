"""``openstack overcloud workbook install``: our workflows into Mistral.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base


class InstallWorkbook(base.Command, command.ShowOne):
    _description = ('Install or upgrade the tripleoplan workbook in Mistral '
                    'and check the actions')

    def take_action(self, parsed_args):
        from tripleoplanclient import protocol
        from tripleoplanclient.workflows import workbook

        client, url = self.clients.workflow_engine()
        if client is None:
            raise exceptions.CommandError(
                'No workflow (Mistral) endpoint: add one to the catalog or '
                'set workflow_endpoint_override in clouds.yaml.')
        status, actions = workbook.install_workbook(client, url)
        return (('workbook', 'status', 'protocol', 'actions_protocol',
                 'mistral'),
                (protocol.WORKBOOK, status, protocol.PROTOCOL, actions, url))
