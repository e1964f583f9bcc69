"""Trigger one action of a software config on a server.

Heat's software-config-trigger spec: fetch the original config, derive a
config with the action, the server and the overridden input values (the
stack-managed derived config stays untouched), and create a deployment of
it that the server's agent picks up from its metadata.
"""

import json
import re

from tripleoplanclient import errors

TEMP_URL_SIGNAL = 'TEMP_URL_SIGNAL'
NO_SIGNAL = 'NO_SIGNAL'
SIGNAL_TRANSPORTS = (TEMP_URL_SIGNAL, NO_SIGNAL)
DEPLOY_PREFIX = 'deploy_'
COMPONENT = 'component'
# Structured configs take their input values in place of {get_input: x}
INPUT_KEY = 'get_input'


def not_found(exc):
    return getattr(exc, 'code', None) == 404 or \
        type(exc).__name__ in ('HTTPNotFound', 'NotFound')


def as_dict(obj):
    """The JSON dict behind a heatclient resource (or a plain dict)."""
    return dict(getattr(obj, 'to_dict', lambda: obj)())


class Source(object):
    """Where a trigger's config comes from.

    :param config: the original software config (dict)
    :param derived: the stack-managed derived config of the same config on
        the server, when there is one: its input values are the base
    """

    def __init__(self, config, derived=None, label=None):
        self.config = config
        self.derived = derived
        self.label = label or 'config %s' % config.get('id')

    def base_values(self):
        """The input values the stack gave this server (no ``deploy_*``)."""
        if not self.derived:
            return {}
        return {i['name']: i.get('value') for i in self.derived['inputs']
                if not i['name'].startswith(DEPLOY_PREFIX)}

    def deployment_name(self):
        """The original deployment's name, or the config's."""
        own = self.config.get('name')
        if self.derived:
            if self.derived.get('name') and self.derived['name'] != own:
                return self.derived['name']   # the deployment's name property
            resource = input_value(self.derived, 'deploy_resource_name')
            if resource:
                return resource
        return own or self.config.get('id')


def input_value(config, name):
    for item in config.get('inputs') or []:
        if item.get('name') == name:
            return item.get('value')
    return None


def strip_deploy_inputs(config):
    """A derived config as if original: no ``deploy_*`` inputs, no values.

    The fallback when the original config cannot be found: a derived
    config keeps the original's body, group, options, outputs and inputs.
    """
    config = dict(config)
    config['inputs'] = [
        {k: v for k, v in i.items() if k != 'value'}
        for i in config.get('inputs') or []
        if not i['name'].startswith(DEPLOY_PREFIX)]
    return config


def component_actions(config):
    """The actions a SoftwareComponent defines, in template order."""
    actions = []
    body = config.get('config')
    for entry in (body or {}).get('configs', []) if isinstance(
            body, dict) else []:
        for action in entry.get('actions') or []:
            if action not in actions:
                actions.append(action)
    return actions


def check_action(source, action):
    """``action`` as the config spells it, or a CommandError."""
    action = (action or '').strip()
    if not re.match(r'^[A-Za-z][A-Za-z0-9_]*$', action):
        raise errors.CommandError(
            '--action %r: give an action name such as BACKUP (letters, '
            'digits, _).' % action)
    if source.config.get('group') != COMPONENT:
        return action.upper()
    defined = component_actions(source.config)
    if action in defined:
        return action
    for name in defined:
        if name.lower() == action.lower():
            return name
    raise errors.CommandError(
        '--action %s: %s defines no config for it (it defines: %s). Nothing '
        'was changed.' % (action, source.label, ', '.join(defined)
                          or 'none'))


def _coerce(name, kind, text):
    """A --input-value string as the declared input type wants it."""
    try:
        if kind == 'Number':
            number = float(text)
            return int(number) if number.is_integer() and \
                re.match(r'^-?\d+$', text.strip()) else number
        if kind == 'Boolean':
            lowered = text.strip().lower()
            if lowered in ('true', 'yes', 'on', '1', 't', 'y'):
                return True
            if lowered in ('false', 'no', 'off', '0', 'f', 'n'):
                return False
            raise ValueError('not a boolean')
        if kind == 'Json':
            return json.loads(text)
    except ValueError as exc:
        raise errors.CommandError(
            '--input-value %s=%s: input %s is a %s (%s).'
            % (name, text, name, kind, exc))
    return text


def parse_input_values(pairs, config):
    """``{name: value}`` from KEY=VALUE strings, checked against the
    inputs ``config`` declares."""
    declared = {i['name']: i for i in config.get('inputs') or []}
    values = {}
    for pair in pairs or []:
        name, sep, text = pair.partition('=')
        name = name.strip()
        if not sep or not name:
            raise errors.CommandError(
                '--input-value %r: write it as KEY=VALUE.' % pair)
        if name.startswith(DEPLOY_PREFIX):
            raise errors.CommandError(
                '--input-value %s: deploy_* inputs are set by the trigger.'
                % name)
        if name not in declared:
            raise errors.CommandError(
                '--input-value %s: the config declares no input %s '
                '(declared: %s).' % (name, name, ', '.join(
                    sorted(declared)) or 'none'))
        values[name] = _coerce(name, declared[name].get('type', 'String'),
                               text)
    return values


def substitute_inputs(body, values, key=INPUT_KEY):
    """``body`` with each ``{key: name}`` replaced by ``values[name]``."""
    if isinstance(body, dict):
        if len(body) == 1 and key in body and body[key] in values:
            return values[body[key]]
        return {k: substitute_inputs(v, values, key) for k, v in body.items()}
    if isinstance(body, list):
        return [substitute_inputs(v, values, key) for v in body]
    return body


def derive_config(source, action, server_id, overrides, transport,
                  signal_url=None):
    """The body of the derived config (POST /software_configs).

    Each declared input takes the override, else the stack's value for
    this server, else its default; inputs the stack passed undeclared come
    along; then the deploy_* inputs of this trigger.
    """
    base = source.base_values()
    inputs = []
    for declared in source.config.get('inputs') or []:
        item = {k: v for k, v in declared.items() if k != 'value'}
        name = item['name']
        if name in overrides:
            item['value'] = overrides[name]
        elif name in base:
            item['value'] = base[name]
        else:
            item['value'] = item.get('default')
        inputs.append(item)
    names = {i['name'] for i in inputs}
    inputs.extend({'name': n, 'type': 'String', 'value': v}
                  for n, v in sorted(base.items()) if n not in names)

    def deploy(name, value, description):
        inputs.append({'name': DEPLOY_PREFIX + name, 'type': 'String',
                       'value': value, 'description': description})
    deploy('server_id', server_id, 'ID of the server being deployed to')
    deploy('action', action, 'Name of the current action being deployed')
    deploy('signal_transport', transport,
           'How the server should signal to heat with the deployment '
           'output values.')
    if transport == TEMP_URL_SIGNAL:
        deploy('signal_id', signal_url,
               'ID of signal to use for signaling output values')
        deploy('signal_verb', 'PUT',
               'HTTP verb to use for signaling output values')

    body = source.config.get('config')
    if source.derived and source.derived.get('config') != body:
        # A structured deployment resolves get_input in its derived config
        body = substitute_inputs(body, {i['name']: i['value']
                                        for i in inputs})
    return {
        'name': '%s-%s' % (source.deployment_name(), action),
        'group': source.config.get('group') or 'Heat::Ungrouped',
        'config': body if body is not None else '',
        'options': source.config.get('options') or {},
        'inputs': inputs,
        'outputs': source.config.get('outputs') or [],
    }


class Resolver(object):
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
            if not_found(exc):
                return None
            raise

    def stack(self, name):
        stack = self._get(self._heat.stacks.get, name)
        if stack is None:
            raise errors.CommandError(
                '--stack %s: no such stack (openstack stack list). Nothing '
                'was changed.' % name)
        return '%s/%s' % (stack.stack_name, stack.id)

    def resource(self, stack, name):
        resource = self._get(self._heat.resources.get, stack, name)
        if resource is None:
            names = sorted(r.resource_name
                           for r in self._heat.resources.list(stack))
            raise errors.CommandError(
                '--resource %s: stack %s has no such resource (it has: %s). '
                'Nothing was changed.' % (name, stack.split('/')[0],
                                          ', '.join(names) or 'none'))
        return resource

    def server(self, server, stack=None):
        """The server id: a server resource of ``stack`` or an id Heat
        deploys to."""
        server = (server or '').strip()
        if not server:
            raise errors.CommandError('--server: give a server id.')
        if stack:
            resource = self._get(self._heat.resources.get, stack, server)
            if resource is not None and resource.physical_resource_id and \
                    resource.resource_type.endswith('Server'):
                return resource.physical_resource_id
        if self._heat.software_deployments.list(server_id=server):
            return server
        raise errors.CommandError(
            '--server %s: Heat has no software deployments for this server, '
            'so its agent would not see a trigger. Give the id of a server '
            'Heat deploys to (openstack software deployment list)%s. '
            'Nothing was changed.' % (
                server, ', or its resource name in --stack' if stack else
                '; with --stack, its resource name'))

    def config(self, ref):
        """A software config by id or unique name."""
        config = self._get(self._heat.software_configs.get, ref)
        if config is not None:
            return as_dict(config)
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
            return as_dict(self._heat.software_configs.get(matches[0]))
        if matches:
            raise errors.CommandError(
                '--config %s: %d configs have this name; give its id (%s).'
                % (ref, len(matches), ', '.join(matches)))
        raise errors.CommandError(
            '--config %s: no such software config (openstack software '
            'config list). Nothing was changed.' % ref)

    def from_config(self, ref, server_id):
        """--config: the config, and the server's deployment of it."""
        config = self.config(ref)
        return Source(config, self._server_derived(server_id, config),
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
            owner = input_value(entry, 'deploy_stack_id')
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
            raise errors.CommandError(
                '--resource %s: the resource has no physical resource yet '
                '(%s).' % (resource_name, resource.resource_status))
        config = self._get(self._heat.software_configs.get, pid)
        if config is not None:
            config = as_dict(config)
            return Source(config, self._server_derived(server_id, config,
                                                       stack), label)
        deployment = self._get(self._heat.software_deployments.get, pid) \
            or self._group_member(pid, server_id, resource_name)
        if deployment is None:
            raise errors.CommandError(
                '--resource %s: a %s is neither a software config (e.g. '
                'OS::Heat::SoftwareComponent) nor a software deployment. '
                'Nothing was changed.' % (resource_name,
                                          resource.resource_type))
        derived = as_dict(self._heat.software_configs.get(
            deployment.config_id))
        original = self._original_config(stack, resource_name)
        if original is None:
            self._progress('Using the derived config of %s as the source '
                           '(its original config was not found).'
                           % resource_name)
            original = strip_deploy_inputs(derived)
        return Source(original, derived, label)

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
        raise errors.CommandError(
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
        return as_dict(config) if config is not None else None


def create(heat, signals, source, action, server_id, overrides, transport,
           timeout, progress):
    """Create the derived config and the deployment; the deployment dict.

    Nothing is left behind when a step fails: the signal object and the
    derived config are removed again.
    """
    signal_url = None
    if transport == TEMP_URL_SIGNAL:
        signal_url = signals.create(timeout)
    config = None
    try:
        body = derive_config(source, action, server_id, overrides,
                             transport, signal_url)
        config = heat.software_configs.create(**body)
        status, reason = ('IN_PROGRESS', 'Deploy data available') \
            if transport == TEMP_URL_SIGNAL else \
            ('COMPLETE', 'Not waiting for outputs signal')
        deployment = heat.software_deployments.create(
            config_id=config.id, server_id=server_id, action=action,
            input_values=overrides, status=status, status_reason=reason)
    except BaseException:
        if config is not None:
            _quietly(heat.software_configs.delete, config.id)
        if signal_url:
            _quietly(signals.drop, signal_url)
        raise
    progress('Triggered %s on server %s: deployment %s (%s).'
             % (action, server_id, deployment.id, body['name']))
    return as_dict(deployment), body


def _quietly(fn, *args):
    try:
        fn(*args)
    except Exception:
        pass
