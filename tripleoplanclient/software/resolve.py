"""Where a trigger's config comes from: the server and the config in Heat.

``--stack``/``--resource`` names a config or deployment resource (groups
too) of a stack; ``--config`` a software config. Either way the stack's own
derived config for the server, when there is one, gives the base input
values (see ``trigger.Source``).
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.software import servers
from tripleoplanclient.software import trigger


class Resolver:
    """Finds the server and the source config in Heat.

    :param heat: python-heatclient v1 client
    :param progress: line -> stderr
    """

    def __init__(self, heat, progress):
        self._heat = heat
        self._progress = progress

    def _get(self, fn, *args):
        """``fn(*args)``, or None when Heat answers 404."""
        try:
            return fn(*args)
        except Exception as exc:
            if trigger.not_found(exc):
                return None
            raise

    def stack(self, name):
        stack = self._get(self._heat.stacks.get, name)
        if stack is None:
            raise exceptions.CommandError(
                '--stack %s: no such stack (openstack stack list). Nothing '
                'was changed.' % name)
        return '%s/%s' % (stack.stack_name, stack.id)

    def resource(self, stack, name):
        resource = self._get(self._heat.resources.get, stack, name)
        if resource is None:
            names = sorted(r.resource_name
                           for r in self._heat.resources.list(stack))
            raise exceptions.CommandError(
                '--resource %s: stack %s has no such resource (it has: %s). '
                'Nothing was changed.' % (name, stack.split('/')[0],
                                          ', '.join(names) or 'none'))
        return resource

    def server(self, server, stack=None):
        """The server id: a server resource of ``stack``, an id Heat
        deploys to, or (with ``stack``) a server of its nested stacks by
        name or resource path (see ``servers``)."""
        server = (server or '').strip()
        if not server:
            raise exceptions.CommandError('--server: give a server id.')
        if stack:
            resource = self._get(self._heat.resources.get, stack, server)
            if resource is not None and resource.physical_resource_id and \
                    resource.resource_type.endswith('Server'):
                return resource.physical_resource_id
        if self._heat.software_deployments.list(server_id=server):
            return server
        if stack:
            # THT's nodes live in nested stacks, named by hostname_format
            return servers.find(self._heat, stack, server, self._progress)
        raise exceptions.CommandError(
            '--server %s: Heat has no software deployments for this server, '
            'so its agent would not see a trigger. Give the id of a server '
            'Heat deploys to (openstack software deployment list)%s. '
            'Nothing was changed.' % (
                server, '; with --stack, its name or resource name'))

    def newest_deployment(self, server_id, name):
        """The id of the server's newest deployment: the one a trigger
        just started, and the one still to end (older ones have)."""
        found = self._heat.software_deployments.list(server_id=server_id)
        if not found:
            raise exceptions.CommandError(
                '--server %s: Heat has no software deployment for server %s '
                '(openstack software deployment list --server %s).'
                % (name, server_id, server_id))
        created = max(getattr(d, 'creation_time', None) or '' for d in found)
        newest = [d for d in found
                  if (getattr(d, 'creation_time', None) or '') == created]
        # Heat's times are to the second: of those, one still running
        newest = [d for d in newest if d.status == 'IN_PROGRESS'] or newest
        if len(newest) > 1:
            raise exceptions.CommandError(
                '--server %s: %d deployments of server %s are the newest '
                '(created %s); give one of their ids: %s.' % (
                    name, len(newest), server_id, created,
                    ', '.join('%s (%s, %s)' % (d.id, d.action, d.status)
                              for d in newest)))
        self._progress('--server %s: deployment %s (%s, %s, created %s), '
                       'the newest of %d.' % (
                           name, newest[0].id, newest[0].action,
                           newest[0].status, created or '?', len(found)))
        return newest[0].id

    def config(self, ref):
        """A software config by id or unique name."""
        config = self._get(self._heat.software_configs.get, ref)
        if config is not None:
            return trigger.as_dict(config)
        matches, marker = [], None
        while True:
            page = self._heat.software_configs.list(
                limit=100, **({'marker': marker} if marker else {}))
            matches.extend(c.id for c in page
                           if getattr(c, 'name', None) == ref)
            if len(page) < 100:
                break
            marker = page[-1].id
        if len(matches) == 1:
            return trigger.as_dict(self._heat.software_configs.get(matches[0]))
        if matches:
            raise exceptions.CommandError(
                '--config %s: %d configs have this name; give its id (%s).'
                % (ref, len(matches), ', '.join(matches)))
        raise exceptions.CommandError(
            '--config %s: no such software config (openstack software '
            'config list). Nothing was changed.' % ref)

    def from_config(self, ref, server_id):
        """--config: the config, and the server's deployment of it."""
        config = self.config(ref)
        return trigger.Source(config,
                              self._server_derived(server_id, config),
                              'config %s' % (config.get('name') or ref))

    def _server_derived(self, server_id, config, stack=None):
        """The derived config of a deployment of ``config`` on the server.

        A derived config keeps the original's name (unless the deployment
        names it) and, but for structured configs, its body.
        """
        found = []
        for entry in self._heat.software_deployments.metadata(
                server_id) or []:
            if entry.get('group') != config.get('group'):
                continue
            if entry.get('name') != config.get('name') and \
                    entry.get('config') != config.get('config'):
                continue
            # stack-managed only: triggers carry no deploy_stack_id
            owner = trigger.input_value(entry, 'deploy_stack_id')
            if not owner or (stack and owner.split('/')[-1]
                             != stack.split('/')[-1]):
                continue
            found.append(entry)
        return found[-1] if found else None

    def from_stack(self, stack_name, resource_name, server_id):
        """--stack/--resource: a config resource or a deployment resource."""
        stack = self.stack(stack_name)
        resource = self.resource(stack, resource_name)
        label = '%s %s' % (resource.resource_type, resource_name)
        pid = resource.physical_resource_id
        if not pid:
            raise exceptions.CommandError(
                '--resource %s: the resource has no physical resource yet '
                '(%s).' % (resource_name, resource.resource_status))
        config = self._get(self._heat.software_configs.get, pid)
        if config is not None:
            config = trigger.as_dict(config)
            derived = self._server_derived(server_id, config, stack)
            return trigger.Source(config, derived, label)
        deployment = self._get(self._heat.software_deployments.get, pid) \
            or self._group_member(pid, server_id, resource_name)
        if deployment is None:
            raise exceptions.CommandError(
                '--resource %s: a %s is neither a software config (e.g. '
                'OS::Heat::SoftwareComponent) nor a software deployment. '
                'Nothing was changed.' % (resource_name,
                                          resource.resource_type))
        derived = trigger.as_dict(self._heat.software_configs.get(
            deployment.config_id))
        original = self._original_config(stack, resource_name)
        if original is None:
            self._progress('Using the derived config of %s as the source '
                           '(its original config was not found).'
                           % resource_name)
            original = trigger.strip_deploy_inputs(derived)
        return trigger.Source(original, derived, label)

    def _group_member(self, nested_id, server_id, resource_name):
        """The member of a deployment group that deploys to the server."""
        nested = self._get(self._heat.stacks.get, nested_id)
        if nested is None:
            return None
        members = self._heat.resources.list(
            '%s/%s' % (nested.stack_name, nested.id))
        for member in members:
            if not member.physical_resource_id:
                continue
            deployment = self._get(self._heat.software_deployments.get,
                                   member.physical_resource_id)
            if deployment is not None and \
                    deployment.server_id == server_id:
                return deployment
        raise exceptions.CommandError(
            '--resource %s: no member of this group deploys to server %s. '
            'Nothing was changed.' % (resource_name, server_id))

    def _original_config(self, stack, resource_name):
        """The config a deployment resource names in the stack template."""
        template = self._heat.stacks.template(stack) or {}
        resources = template.get('resources') or template.get(
            'Resources') or {}
        props = (resources.get(resource_name) or {}).get('properties') or {}
        ref = props.get('config')
        config_id = None
        if isinstance(ref, str):
            config_id = ref
        elif isinstance(ref, dict) and 'get_resource' in ref:
            source = self._get(self._heat.resources.get, stack,
                               ref['get_resource'])
            config_id = source and source.physical_resource_id
        elif isinstance(ref, dict) and 'get_param' in ref and isinstance(
                ref['get_param'], str):
            stack_obj = self._heat.stacks.get(stack)
            config_id = (getattr(stack_obj, 'parameters', None) or {}).get(
                ref['get_param'])
        if not config_id:
            return None
        config = self._get(self._heat.software_configs.get, config_id)
        return trigger.as_dict(config) if config is not None else None
