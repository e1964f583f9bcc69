"""``HEAT_SIGNAL`` for a triggered deployment: a small stack that owns it.

Heat takes a resource signal, gives a server credentials to send one and
applies the answer to a deployment only through a stack's
``OS::Heat::SoftwareDeployment`` resource; an API-created deployment has
none of that. So the trigger creates a stack holding such a resource on
the server, deploying an empty ``Heat::Ungrouped`` config (an agent runs
nothing for it). Heat creates the deployment and a user in the stack user
domain; the trigger then points that deployment at the action's derived
config, which carries the user's credentials. The server signals the
resource, Heat writes the outputs and ends the deployment, the stack's
timeout (``--timeout``) fails a deployment that never answers, and
deleting the stack deletes the deployment, its config and the user.
"""

import math
import re
import time
import uuid

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import poll

RESOURCE = 'deployment'
CARRIER = 'carrier'
# Inputs of the config Heat derives that let the server sign in and find
# the resource to signal; they move into the action's derived config.
CREDENTIALS = ('deploy_stack_id', 'deploy_resource_name', 'deploy_auth_url',
               'deploy_username', 'deploy_user_id', 'deploy_password',
               'deploy_project_id', 'deploy_region_name')
# How long Heat may take to create the deployment resource
CREATE_WAIT = 120


def template(server_id):
    return {
        'heat_template_version': 'wallaby',
        'description': 'Holds one triggered software deployment so that '
                       'its server can answer with HEAT_SIGNAL.',
        'resources': {
            CARRIER: {
                'type': 'OS::Heat::SoftwareConfig',
                'properties': {'group': 'Heat::Ungrouped', 'config': ''}},
            RESOURCE: {
                'type': 'OS::Heat::SoftwareDeployment',
                'properties': {
                    'config': {'get_resource': CARRIER},
                    'server': server_id,
                    'signal_transport': 'HEAT_SIGNAL',
                    'actions': ['CREATE']}},
        },
    }


def stack_name(name):
    """A stack name from the trigger's name: Heat's characters, a letter
    first, and a random tail so that triggers never collide."""
    name = re.sub(r'[^A-Za-z0-9_.]+', '-', name or '')[:200].strip('-.')
    if not re.match(r'[A-Za-z]', name):
        name = 'trigger-' + name if name else 'trigger'
    return '%s-%s' % (name, uuid.uuid4().hex[:8])


class Holder:
    """The stack that holds a triggered deployment.

    :param stack: ``<name>/<id>``
    :param deployment_id: the deployment Heat created for the resource
    :param carrier_config_id: the config Heat derived for it first
    :param credentials: the CREDENTIALS inputs of that config, as Heat
        wrote them (name, type, value, description)
    """

    def __init__(self, stack, deployment_id=None, carrier_config_id=None,
                 credentials=()):
        self.stack = stack
        self.deployment_id = deployment_id
        self.carrier_config_id = carrier_config_id
        self.credentials = list(credentials)


def _failed(status):
    return (status or '').endswith('FAILED')


def open_holder(heat, name, server_id, timeout, progress,
                sleep=time.sleep, clock=time.monotonic):
    """Create the stack and wait for Heat's deployment; a Holder.

    A stack that fails (a Heat without a stack user domain, say) is
    deleted again and is a CommandError naming Heat's reason.
    """
    name = stack_name(name)
    created = heat.stacks.create(
        stack_name=name, template=template(server_id),
        timeout_mins=max(1, int(math.ceil(timeout / 60.0))))['stack']
    holder = Holder('%s/%s' % (name, created['id']))
    try:
        _wait_for_deployment(heat, holder, sleep, clock)
        deployment = heat.software_deployments.get(holder.deployment_id)
        config = heat.software_configs.get(deployment.config_id)
    except BaseException:
        close(heat, holder)
        raise
    holder.carrier_config_id = deployment.config_id
    holder.credentials = [dict(i) for i in config.inputs or []
                          if i.get('name') in CREDENTIALS]
    progress('Stack %s holds the deployment; the server signals its '
             'resource %s.' % (holder.stack, RESOURCE))
    return holder


def _wait_for_deployment(heat, holder, sleep, clock):
    rounds = poll.Poll(CREATE_WAIT, 0.2, max_interval=2, sleep=sleep,
                       clock=clock)
    for _ in rounds:
        resource = _resource(heat, holder.stack)
        if resource is not None:
            if _failed(resource.resource_status):
                raise _refused(holder, resource.resource_status_reason)
            if resource.physical_resource_id:
                holder.deployment_id = resource.physical_resource_id
                return
        stack = heat.stacks.get(holder.stack)
        if _failed(stack.stack_status):
            raise _refused(holder, stack.stack_status_reason)
        rounds.quiet()
    raise exceptions.CommandError(
        '--signal-transport HEAT_SIGNAL: Heat did not create the deployment '
        'of stack %s within %d s. Nothing was triggered.'
        % (holder.stack, CREATE_WAIT))


def _resource(heat, stack):
    try:
        return heat.resources.get(stack, RESOURCE)
    except Exception as exc:
        if getattr(exc, 'code', None) == 404:
            return None         # not in the stack yet
        raise


def _refused(holder, reason):
    return exceptions.CommandError(
        '--signal-transport HEAT_SIGNAL: Heat could not create the stack '
        'that takes the signal (%s). HEAT_SIGNAL needs Heat with Keystone '
        'and a stack user domain; use TEMP_URL_SIGNAL otherwise. Nothing '
        'was triggered.' % reason)


def close(heat, holder):
    """Delete the stack (its deployment, config and user go with it)."""
    try:
        heat.stacks.delete(holder.stack)
    except Exception:
        pass


def signal_path(config):
    """``stacks/<name>/<id>/resources/<resource>/signal`` of a deployment
    that answers with HEAT_SIGNAL, from its config; else None."""
    values = {i.get('name'): i.get('value') for i in config.get('inputs')
              or []}
    stack, resource = values.get('deploy_stack_id'), values.get(
        'deploy_resource_name')
    if not (isinstance(stack, str) and isinstance(resource, str)):
        return None
    return 'stacks/%s/resources/%s/signal' % (stack, resource)
