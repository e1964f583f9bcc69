"""Mistral actions of tripleoplanclient (run inside Mistral's executor)."""

from mistral_lib import actions

from tripleoplanclient import mistral as protocol


class Version(actions.Action):
    """The protocol these actions speak, for the client's check."""

    def run(self, context):
        return {'protocol': protocol.PROTOCOL}
