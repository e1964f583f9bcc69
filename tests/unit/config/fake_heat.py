"""A config-download stack in a fake Heat (requests-mock) that answers as
Heat 27's API does (heat/api/openstack/v1: stacks, resources,
software_deployments, software_configs), for tripleo-common and for us.

``Cloud.software_deployment`` makes a deployment as THT's
``config-download-structured.yaml`` does (an ``OS::Heat::Value`` named
TripleODeployment beside the StructuredDeployment, deployed to
``fake_server_id``); ``stacks`` holds the stacks the tests read.

Like Heat: a stack named without its id is a 302 to ``name/id`` (query
kept); resource listings filter on ``name`` and ``physical_resource_id``
(repeated: any of them) at every depth up to ``nested_depth``; metadata
answers the derived configs of every deployment of a server id, sorted by
config name. ``FakeHeat.kinds()`` counts what was asked, by kind.
"""

import copy
import itertools
import re
import time
from urllib import parse
import uuid

from tests.unit import fakes

HEAT = fakes.HEAT
STACK = 'overcloud'
FAKE_SERVER = 'fake_server_id'


def uuid_of(seed):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, seed))


class Cloud:
    """Heat's state: stacks (nested ones with their parent), resources,
    software deployments and their derived configs."""

    def __init__(self, name=STACK, outputs=None, environment=None):
        self.stacks = {}
        self.resources = []
        self.deployments = {}
        self.configs = {}
        self.clock = itertools.count(1)
        self.root = self.stack(name, None, None)
        self.outputs = outputs or {}
        self.environment = environment or {}

    def time(self):
        minutes, seconds = divmod(next(self.clock) % 3600, 60)
        return '2026-11-28T10:%02d:%02dZ' % (minutes, seconds)

    def stack(self, name, parent, parent_resource):
        stack_id = uuid_of('stack/' + name)
        self.stacks[stack_id] = {'name': name, 'id': stack_id,
                                 'parent': parent,
                                 'parent_resource': parent_resource,
                                 'created': self.time()}
        return stack_id

    def resource(self, stack_id, name, kind, physical_id='',
                 attributes=None, nested=None, created=None):
        self.resources.append({
            'name': name, 'stack': stack_id, 'type': kind,
            'physical_resource_id': physical_id, 'nested': nested,
            'attributes': attributes or {},
            'created': created or self.time()})

    def nested_stack(self, parent, resource, kind='OS::Heat::Stack'):
        """A stack made by resource ``resource`` of stack ``parent``."""
        name = '%s-%s-%s' % (self.stacks[parent]['name'], resource,
                             uuid_of(parent + resource)[:12])
        stack_id = self.stack(name, parent, resource)
        self.resource(parent, resource, kind, stack_id, nested=stack_id)
        return stack_id

    def software_deployment(self, parent, resource, server_id, group,
                            config, inputs=(), name='',
                            ref_kind='id', options=None, created=None):
        """``resource`` of ``parent`` as THT's config-download templates
        make it: a nested stack with TripleODeployment (its value naming
        the server) and TripleOSoftwareDeployment.

        ``ref_kind``: 'id' (the deployment's id), 'path' (a nested stack's
        path, the deployment in it), 'none' (no physical deployment)."""
        holder = self.nested_stack(parent, resource,
                                   'OS::Heat::StructuredDeployment')
        sd_id = uuid_of('sd/' + self.stacks[holder]['name'])
        config_id = uuid_of('config/' + sd_id)
        values = {i['name']: i['value'] for i in inputs}
        derived = [dict((k, v) for k, v in i.items() if k != 'value')
                   for i in inputs]
        for item in derived:
            item.setdefault('type', 'String')
            item['value'] = values[item['name']]
        derived += [
            {'name': 'deploy_server_id', 'type': 'String',
             'description': 'ID of the server being deployed to',
             'value': FAKE_SERVER},
            {'name': 'deploy_action', 'type': 'String',
             'description': 'Name of the current action being deployed',
             'value': 'CREATE'},
            {'name': 'deploy_stack_id', 'type': 'String',
             'description': 'ID of the stack this deployment belongs to',
             'value': '%s/%s' % (self.stacks[holder]['name'], holder)},
            {'name': 'deploy_resource_name', 'type': 'String',
             'description': 'Name of this deployment resource in the stack',
             'value': 'TripleOSoftwareDeployment'},
            {'name': 'deploy_signal_transport', 'type': 'String',
             'description': 'How the server should signal to heat with the '
                            'deployment output values.',
             'value': 'NO_SIGNAL'}]
        created_at = self.time()
        self.configs[config_id] = {
            'id': config_id, 'name': 'deployment_resource', 'group': group,
            'creation_time': created_at, 'config': config,
            'inputs': derived, 'options': options if options is not None
            else {},
            'outputs': [{'name': 'result', 'type': 'String',
                         'error_output': False},
                        {'name': 'deploy_status_code', 'type': 'Number',
                         'description': 'The exit status',
                         'error_output': True}]}
        self.deployments[sd_id] = {
            'id': sd_id, 'server_id': FAKE_SERVER, 'config_id': config_id,
            'input_values': values, 'output_values': None,
            'action': 'CREATE', 'status': 'COMPLETE',
            'status_reason': 'Not waiting for outputs signal',
            'creation_time': created_at, 'updated_time': created_at}
        ref = sd_id
        if ref_kind == 'path':
            inner = self.nested_stack(holder, 'TripleOSoftwareDeployment',
                                      'OS::TripleO::SoftwareDeployment')
            ref = '%s/%s' % (self.stacks[inner]['name'], inner)
            self.resource(inner, 'TripleOSoftwareDeployment',
                          'OS::Heat::StructuredDeployment', sd_id)
        elif ref_kind == 'none':
            ref = 'TripleOSoftwareDeployment'
        else:
            self.resource(holder, 'TripleOSoftwareDeployment',
                          'OS::Heat::StructuredDeployment', sd_id)
        value = {'name': name, 'server': server_id, 'config': config_id,
                 'input_values': values, 'deployment': ref}
        self.resource(holder, 'TripleODeployment', 'OS::Heat::Value',
                      '%s-TripleODeployment-%s' % (
                          self.stacks[holder]['name'], sd_id[:12]),
                      attributes={'value': value}, created=created)
        return sd_id

    # What Heat answers --------------------------------------------------

    def path(self, stack_id):
        return '%s/%s' % (self.stacks[stack_id]['name'], stack_id)

    def find(self, name_or_id):
        for stack_id, stack in self.stacks.items():
            if name_or_id in (stack_id, stack['name']):
                return stack_id
        return None

    def stack_body(self, stack_id, resolve_outputs=True):
        stack = self.stacks[stack_id]
        body = {
            'id': stack_id, 'stack_name': stack['name'],
            'description': 'THT 18 overcloud', 'parent': stack['parent'],
            'links': [{'href': '%s/stacks/%s' % (HEAT, self.path(stack_id)),
                       'rel': 'self'}],
            'stack_status': 'CREATE_COMPLETE',
            'stack_status_reason': 'Stack CREATE completed successfully',
            'creation_time': stack['created'], 'updated_time': None,
            'deletion_time': None, 'disable_rollback': True,
            'timeout_mins': 240, 'stack_owner': None, 'tags': None,
            'stack_user_project_id': 'heat-project', 'capabilities': [],
            'notification_topics': [], 'template_description': '',
            'parameters': {'OS::stack_name': stack['name'],
                           'OS::stack_id': stack_id}}
        if resolve_outputs and stack_id == self.root:
            body['outputs'] = [{'output_key': k, 'output_value': v,
                                'description': 'No description given'}
                               for k, v in self.outputs.items()]
        return body

    def depth(self, stack_id):
        depth = 0
        while self.stacks[stack_id]['parent']:
            stack_id = self.stacks[stack_id]['parent']
            depth += 1
        return depth

    def resource_body(self, res, detail):
        stack = self.stacks[res['stack']]
        links = [
            {'href': '%s/stacks/%s/resources/%s' % (
                HEAT, self.path(res['stack']), res['name']), 'rel': 'self'},
            {'href': '%s/stacks/%s' % (HEAT, self.path(res['stack'])),
             'rel': 'stack'}]
        if res['nested']:
            links.append({'href': '%s/stacks/%s' % (
                HEAT, self.path(res['nested'])), 'rel': 'nested'})
        body = {'resource_name': res['name'],
                'logical_resource_id': res['name'],
                'physical_resource_id': res['physical_resource_id'],
                'resource_status': 'CREATE_COMPLETE',
                'resource_status_reason': 'state changed',
                'resource_type': res['type'], 'links': links,
                'creation_time': res['created'],
                'updated_time': res['created'], 'required_by': []}
        if stack['parent_resource']:
            body['parent_resource'] = stack['parent_resource']
        if detail:
            body['description'] = ''
            body['attributes'] = copy.deepcopy(res['attributes'])
        return body

    def listing(self, stack_id, query):
        depth = int(query.get('nested_depth', ['0'])[0])
        detail = query.get('with_detail', ['False'])[0].lower() == 'true'
        names = query.get('name')
        physical = query.get('physical_resource_id')
        base = self.depth(stack_id)
        found = []
        for res in self.resources:
            inside, at = res['stack'], res['stack']
            while at and at != stack_id:
                at = self.stacks[at]['parent']
            if at != stack_id or self.depth(inside) - base > depth:
                continue
            if names and res['name'] not in names:
                continue
            if physical and res['physical_resource_id'] not in physical:
                continue
            found.append(self.resource_body(res, detail))
        return found

    def metadata(self, server_id):
        sds = [d for d in self.deployments.values()
               if d['server_id'] == server_id]
        # Heat leaves out the deployments whose config is gone
        configs = [self.configs[d['config_id']] for d in sds
                   if d['config_id'] in self.configs]
        return sorted(configs, key=lambda c: c['name'])


class FakeHeat:
    """``cloud`` behind requests-mock ``mocker`` at fakes.HEAT."""

    def __init__(self, mocker, cloud):
        self.cloud = cloud
        self.log = []
        self.errors = {}    # kind: the status Heat answers it with
        self.delay = 0      # seconds each answer takes
        mocker.get(re.compile(re.escape(HEAT) + '/'), json=self.answer)

    def kinds(self):
        """``{kind: requests}`` of everything asked so far."""
        found = {}
        for kind in self.log:
            found[kind] = found.get(kind, 0) + 1
        return found

    def answer(self, request, context):
        url = parse.urlsplit(request.url)
        query = parse.parse_qs(url.query)
        parts = [parse.unquote(p) for p in
                 url.path[len(parse.urlsplit(HEAT).path) + 1:].split('/')]
        kind, body = self._route(parts, query, url, context)
        self.log.append(kind)
        if self.delay:
            time.sleep(self.delay)
        context.headers['Content-Type'] = 'application/json'
        if kind in self.errors:
            context.status_code = self.errors[kind]
            return {'code': context.status_code, 'title': 'Error',
                    'error': {'message': 'Internal error',
                              'type': 'Exception'}}
        return body

    def _missing(self, context, what):
        context.status_code = 404
        return {'code': 404, 'title': 'Not Found', 'error': {
            'message': '%s could not be found.' % what,
            'type': 'EntityNotFound'}}

    def _route(self, parts, query, url, context):
        cloud = self.cloud
        if parts[0] == 'stacks':
            stack_id = cloud.find(parts[1])
            if stack_id is None:
                return 'stack', self._missing(context, parts[1])
            if len(parts) == 2 or (len(parts) > 2 and parts[2] != stack_id):
                # Heat's lookup: the canonical name/id URL
                rest = '/'.join(parts[2:])
                location = '%s/stacks/%s%s%s' % (
                    HEAT, cloud.path(stack_id), '/' + rest if rest else '',
                    '?' + url.query if url.query else '')
                context.status_code = 302
                context.headers['Location'] = location
                return 'redirect', {}
            rest = parts[3:]
            if not rest:
                resolve = query.get('resolve_outputs', ['True'])[0]
                return 'stack', {'stack': cloud.stack_body(
                    stack_id, resolve.lower() != 'false')}
            if rest == ['environment']:
                return 'environment', copy.deepcopy(cloud.environment)
            if rest == ['resources']:
                return 'resources', {'resources': cloud.listing(stack_id,
                                                                query)}
            if rest[0] == 'resources' and len(rest) == 2:
                for res in cloud.resources:
                    if res['stack'] == stack_id and res['name'] == rest[1]:
                        return 'resource', {
                            'resource': cloud.resource_body(res, True)}
                return 'resource', self._missing(context, rest[1])
        if parts[0] == 'software_deployments':
            if len(parts) == 1 or parts[1] == '':
                server = query.get('server_id', [None])[0]
                return 'deployments', {'software_deployments': [
                    d for d in cloud.deployments.values()
                    if server is None or d['server_id'] == server]}
            if parts[1] == 'metadata':
                return 'metadata', {'metadata': cloud.metadata(parts[2])}
            if parts[1] in cloud.deployments:
                return 'deployment', {
                    'software_deployment': cloud.deployments[parts[1]]}
            return 'deployment', self._missing(context, parts[1])
        if parts[0] == 'software_configs' and parts[1] in cloud.configs:
            return 'config', {'software_config': cloud.configs[parts[1]]}
        return 'other', self._missing(context, '/'.join(parts))
