"""Installing our workbook in Mistral, and asking our actions there which
protocol they speak (``overcloud workbook install``)."""

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions


def install_workbook(client, url):
    """Create or update our workbook, then ask the actions their protocol.

    Returns ``(workbook status, actions protocol)``; CommandError names what
    is missing or of another version.
    """
    from mistralclient.api import base as mistral_base

    definition = protocol.workbook()
    try:
        current = client.workbooks.get(protocol.WORKBOOK)
    except mistral_base.APIException as exc:
        if getattr(exc, 'error_code', None) != 404:
            raise exceptions.CommandError('Mistral at %s: %s' % (url, exc))
        current = None
    except Exception as exc:
        if exceptions.unreachable(exc):
            raise exceptions.CommandError('Mistral is unreachable at %s (%s).'
                                          % (url, type(exc).__name__))
        raise
    # Public: every project of the undercloud runs the same workflows;
    # their executions stay in the caller's project.
    try:
        if current is None:
            client.workbooks.create(definition, scope='public')
            status = 'created'
        elif current.definition != definition or getattr(
                current, 'scope', 'public') != 'public':
            client.workbooks.update(definition, scope='public')
            status = 'updated'
        else:
            status = 'unchanged'
    except mistral_base.APIException as exc:
        if getattr(exc, 'error_code', None) != 403:
            raise exceptions.CommandError('Mistral at %s: %s' % (url, exc))
        # Only its owner's project may change a public workbook (or make
        # one): e.g. one installed with Keystone, Mistral since without.
        raise exceptions.CommandError(
            'Mistral at %s does not let this user %s the public workbook %s '
            '(%s): run "openstack overcloud workbook install" as a user of '
            'the project that installed it (an admin), or delete it as that '
            'user ("openstack workbook delete %s") and install it again.'
            % (url, 'create' if current is None else 'update',
               protocol.WORKBOOK, exc, protocol.WORKBOOK))
    try:
        result = client.action_executions.create(
            protocol.VERSION_ACTION, {}, run_sync=True, save_result=False)
    except mistral_base.APIException as exc:
        raise exceptions.CommandError(
            'The workbook is %s, but Mistral at %s cannot run the tripleoplan '
            'actions (%s): install them in Mistral\'s environment (pip '
            'install "tripleoplanclient[mistral]") and restart Mistral.'
            % (status, url, exc))
    theirs = (executions.output(result).get('result') or {}).get('protocol')
    if theirs != protocol.PROTOCOL:
        raise exceptions.CommandError(
            'The workbook is %s, but the tripleoplan actions in Mistral at %s '
            'speak protocol %s and this client %d: install the same '
            'tripleoplanclient version in Mistral\'s environment and restart '
            'Mistral.' % (status, url, theirs, protocol.PROTOCOL))
    return status, theirs
