"""Every failed resource of a stack and its nested stacks, with what the
failed software deployments among them said (``overcloud failures``).

One nested listing finds them all (``stack.nested``); a failed resource
that is a software deployment (OS::Heat::SoftwareDeployment,
StructuredDeployment, a SoftwareDeploymentGroup's members, or a type
mapped to one: a type ending in ``Deployment`` that is no template) costs
one more request, for the deploy_stderr and deploy_status_code its server
signalled. The configuration's failures (config-download: Ansible's,
per host and task) come from the step's record (``ansible``). Nothing is
written.
"""

from heatclient import exc as heat_exc

from tripleoplanclient.common import exceptions
from tripleoplanclient.stack import nested

# Fixed, whatever the stack: scripts pick them with -c. An Ansible
# failure of the configuration has its host and task.
COLUMNS = ('path', 'type', 'status', 'status_reason', 'deployment_id',
           'server_id', 'deploy_status_code', 'deploy_stderr', 'host',
           'task')
ANSIBLE_TYPE = 'Ansible task'


class StackNotFound(exceptions.CommandError):
    """No such stack: nothing to look at (a refusal, not a failure)."""


def is_deployment(resource):
    """A software deployment Heat itself runs (not a template of one)."""
    return (resource.resource_type.endswith('Deployment')
            and not nested.link(resource, 'nested')
            and bool(resource.physical_resource_id))


def _deployment(heat, deployment_id):
    try:
        return heat.software_deployments.get(deployment_id).to_dict()
    except heat_exc.HTTPNotFound:   # deleted since: the resource row stays
        return {}


def failures(heat, stack):
    """Rows (dicts of COLUMNS) of ``stack``'s failed resources, nested
    ones included, by path."""
    try:
        tree = nested.listing(heat, stack)
    except heat_exc.HTTPNotFound:
        raise StackNotFound(
            'Stack %s not found (openstack stack list): give the stack name '
            'with --stack (default overcloud).' % stack) from None
    rows = []
    for res in tree.resources:
        if not (res.resource_status or '').endswith('_FAILED'):
            continue
        row = dict.fromkeys(COLUMNS)
        row.update(path=tree.path(res), type=res.resource_type,
                   status=res.resource_status,
                   status_reason=res.resource_status_reason)
        if is_deployment(res):
            found = _deployment(heat, res.physical_resource_id)
            outputs = found.get('output_values') or {}
            row.update(deployment_id=res.physical_resource_id,
                       server_id=found.get('server_id'),
                       deploy_status_code=outputs.get('deploy_status_code'),
                       deploy_stderr=outputs.get('deploy_stderr'))
        rows.append(row)
    return sorted(rows, key=lambda row: row['path'])


def ansible(step):
    """Rows (dicts of COLUMNS) of the Ansible failures the configuration
    of stack step ``step`` (a history row) recorded: each failed task per
    host, and each host that never answered."""
    config = (step or {}).get('config') or {}
    rows = []
    for failure in config.get('failures') or ():
        row = dict.fromkeys(COLUMNS)
        status = 'UNREACHABLE' if failure.get('status') == 'unreachable' \
            else 'FAILED'
        row.update(path='ansible/%s' % failure.get('host'),
                   type=ANSIBLE_TYPE, status=status,
                   status_reason=failure.get('message'),
                   host=failure.get('host'), task=failure.get('task'))
        rows.append(row)
    failed = {r['host'] for r in rows}
    for host, counts in sorted((config.get('hosts') or {}).items()):
        if (counts or {}).get('unreachable') and host not in failed:
            row = dict.fromkeys(COLUMNS)
            row.update(path='ansible/%s' % host, type=ANSIBLE_TYPE,
                       status='UNREACHABLE', host=host,
                       status_reason='the host did not answer over SSH')
            rows.append(row)
    return rows


def reason(step):
    """Why stack step ``step`` (a history row, or the step a command
    followed) did not succeed, as text (None when it did, or goes on):
    the configuration's first failed Ansible task and its host when the
    servers' configuration failed, else the recorded reason (Heat's
    stack_status_reason, the timeout, the error) with the first failed
    resource Heat named."""
    outcome = (step or {}).get('outcome') or {}
    if outcome.get('status') in (None, 'SUCCESS', 'IN_PROGRESS',
                                 'UNCHANGED'):
        return None
    found = ansible(step) if outcome.get('config_status') not in (
        None, 'SUCCESS') else []
    if found:
        first = found[0]
        text = ('Ansible task %s failed on %s: %s' % (
            first['task'], first['host'], first['status_reason'])
            if first['task'] else
            '%s: %s' % (first['host'], first['status_reason']))
        return text + (' (%d more failures)' % (len(found) - 1)
                       if len(found) > 1 else '')
    parts = [outcome.get('reason')]
    resources = outcome.get('failed_resources') or []
    if resources and resources[0] not in (parts[0] or ''):
        parts.append('first failed resource: %s%s' % (
            resources[0], ' (%d more)' % (len(resources) - 1)
            if len(resources) > 1 else ''))
    return '; '.join(p for p in parts if p) or None
