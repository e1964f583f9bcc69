"""Trigger one action of a software config on a server.

Heat's software-config-trigger spec: fetch the original config, derive a
config with the action, the server and the overridden input values (the
stack-managed derived config stays untouched), and create a deployment of
it that the server's agent picks up from its metadata.
"""

import json
import re

from tripleoplanclient.common import exceptions
from tripleoplanclient.software import heat_signal

TEMP_URL_SIGNAL = 'TEMP_URL_SIGNAL'
HEAT_SIGNAL = 'HEAT_SIGNAL'
NO_SIGNAL = 'NO_SIGNAL'
TRANSPORTS = (TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL)
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


class Source:
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
        raise exceptions.CommandError(
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
    raise exceptions.CommandError(
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
        raise exceptions.CommandError(
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
            raise exceptions.CommandError(
                '--input-value %r: write it as KEY=VALUE.' % pair)
        if name.startswith(DEPLOY_PREFIX):
            raise exceptions.CommandError(
                '--input-value %s: deploy_* inputs are set by the trigger.'
                % name)
        if name not in declared:
            raise exceptions.CommandError(
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


def name_of(source, action):
    """The trigger's name: ``<deployment>-<ACTION>``."""
    return '%s-%s' % (source.deployment_name(), action)


def derive_config(source, action, server_id, overrides, transport,
                  signal_url=None, credentials=()):
    """The body of the derived config (POST /software_configs).

    Each declared input takes the override, else the stack's value for
    this server, else its default; inputs the stack passed undeclared come
    along; then the deploy_* inputs of this trigger (for HEAT_SIGNAL, the
    ``credentials`` inputs Heat made for its signal stack).
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
    inputs.extend(dict(c) for c in credentials)

    body = source.config.get('config')
    if source.derived and source.derived.get('config') != body:
        # A structured deployment resolves get_input in its derived config
        body = substitute_inputs(body, {i['name']: i['value']
                                        for i in inputs})
    return {
        'name': name_of(source, action),
        'group': source.config.get('group') or 'Heat::Ungrouped',
        'config': body if body is not None else '',
        'options': source.config.get('options') or {},
        'inputs': inputs,
        'outputs': source.config.get('outputs') or [],
    }


def create(heat, signals, source, action, server_id, overrides, transport,
           timeout, progress):
    """Create the derived config and the deployment; the deployment dict.

    Nothing is left behind when a step fails: the signal object or the
    signal stack and the derived config are removed again.
    """
    signal_url = holder = config = None
    if transport == TEMP_URL_SIGNAL:
        signal_url = signals.create(timeout)
    elif transport == HEAT_SIGNAL:
        holder = heat_signal.open_holder(heat, name_of(source, action),
                                         server_id, timeout, progress)
    try:
        body = derive_config(source, action, server_id, overrides,
                             transport, signal_url,
                             holder.credentials if holder else ())
        config = heat.software_configs.create(**body)
        if holder:
            # Heat's deployment of the signal stack takes the action
            heat.software_deployments.update(
                holder.deployment_id, config_id=config.id, action=action,
                input_values=overrides, status='IN_PROGRESS',
                status_reason='Deploy data available')
            deployment = heat.software_deployments.get(holder.deployment_id)
        else:
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
            _quietly(signals.drop, signal_url, 'being triggered')
        if holder:
            heat_signal.close(heat, holder)
        raise
    if holder:
        # the first config Heat derived: the credentials are in ours now
        _quietly(heat.software_configs.delete, holder.carrier_config_id)
    progress('Triggered %s on server %s: deployment %s (%s).'
             % (action, server_id, deployment.id, body['name']))
    return as_dict(deployment), body


def _quietly(fn, *args):
    try:
        fn(*args)
    except Exception:
        pass
