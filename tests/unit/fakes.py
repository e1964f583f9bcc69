"""What the unit tests share: services faked at the HTTP level.

Swift, Heat and Mistral are requests-mock URLs driven through the real
client libraries (swiftclient, heatclient, mistralclient); time is a
``FakeClock`` handed to the code as its ``sleep`` and ``clock``. Nothing
of this package is mocked.
"""

import functools
import io
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session
import requests_mock

from tripleoplanclient.common import content
from tripleoplanclient.software import signals

SWIFT = 'http://swift.test/v1/AUTH_t'
SWIFT_INFO = 'http://swift.test/info'
HEAT = 'http://heat.test/v1/admin'
MISTRAL = 'http://mistral.test/v2'
JSON = {'Content-Type': 'application/json'}
# The catalog of a client of our services (``make_app``).
ENDPOINTS = {'object-store': SWIFT, 'orchestration': HEAT,
             'workflow': MISTRAL}
# The stack a deploy of plan p creates (``deploy_services``).
STACK_ID = '7f3c0a52-0000-4000-8000-0000000000c1'
PLAN_HEADERS = {'X-Container-Meta-Usage-Tripleo': 'plan'}
SIGNALS = SWIFT + '/' + signals.CONTAINER
# A signal object and its temp URL as the trigger makes them
SIGNAL_OBJECT = SIGNALS + '/' + '0123456789abcdef' * 2
SIGNAL = SIGNAL_OBJECT + '?temp_url_sig=%s&temp_url_expires=1060' % (
    'ab' * 32)


class FakeClock:
    """A clock that moves only when the code under test sleeps."""

    def __init__(self, now=0.0):
        self.now = now
        self.sleeps = []

    def __call__(self):
        return self.now

    clock = __call__

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def write_file(path, data='x: 1\n'):
    """Write ``data`` (text or bytes) at ``path``, making its directory."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data.encode('utf-8') if isinstance(data, str) else data)
    return path


def session():
    return ksa_session.Session(auth=noauth.NoAuth())


def swift_connection(url=SWIFT):
    from swiftclient import client as swift_client
    return swift_client.Connection(preauthurl=url, preauthtoken='tok',
                                   retries=0)


def plan_store(url=SWIFT, **kwargs):
    from tripleoplanclient.record import plan_store
    return plan_store.PlanStore(lambda: swift_connection(url), **kwargs)


def heat_client():
    from heatclient import client
    return client.Client('1', session=session(), endpoint_override=HEAT)


def mistral_client():
    from mistralclient.api import client
    return client.client(session=session(), mistral_url=MISTRAL)


def stack_is(mocker, body, stack_id='7f3c0a52-0000-4000-8000-0000000000c1',
             name='p'):
    """GET /stacks/<name> as Heat answers it: a redirect to name/id, or a
    404 when ``body`` is None."""
    if body is None:
        mocker.get(HEAT + '/stacks/' + name, status_code=404, headers=JSON,
                   json={'code': 404, 'title': 'Not Found', 'error': {
                       'message': 'The Stack (%s) could not be found.' % name,
                       'type': 'EntityNotFound'}})
        return
    path = '/stacks/%s/%s' % (name, stack_id)
    mocker.get(HEAT + '/stacks/' + name, status_code=302,
               headers={'Location': HEAT + path})
    mocker.get(HEAT + path, headers=JSON, json=body)


def bulk_body(created, errors=()):
    """What Swift's bulk middleware answers: whitespace, then the JSON
    verdict, always with status 200."""
    return '  \n' + json.dumps({
        'Number Files Created': created, 'Response Status':
        '400 Bad Request' if errors else '201 Created',
        'Response Body': '', 'Errors': [list(e) for e in errors]})


class KeystoneUser(noauth.NoAuth):
    """No authentication, and the token of a Keystone user as the
    commands see it (``get_access``): who they record and act as."""

    def __init__(self, user_id, name='operator', project='admin'):
        from keystoneauth1 import access
        from keystoneauth1 import fixture
        super().__init__()
        self.access = access.create(body=fixture.V3Token(
            user_id=user_id, user_name=name, project_id='p-' + project,
            project_name=project), auth_token='tok')

    def get_access(self, session, **kwargs):
        return self.access


def make_app(endpoints, auth=None):
    """A cliff app whose client manager is the real plugin wrapper over a
    session with no auth; ``endpoints``: service type -> URL. ``auth``:
    a KeystoneUser, for commands run as one."""
    from osc_lib import clientmanager

    from tripleoplanclient.osc import plugin

    instance = mock.Mock(spec=clientmanager.ClientManager)
    instance.session = ksa_session.Session(auth=auth) if auth else session()
    instance.region_name = None
    instance.interface = 'public'
    instance.get_endpoint_for_service_type.side_effect = (
        lambda service_type, **kw: endpoints.get(service_type))
    # prepare_to_run_command: OSC's authentication, nothing to do here
    app = mock.Mock(spec=['client_manager', 'stderr',
                          'prepare_to_run_command'])
    app.client_manager = mock.Mock(spec=['tripleoplan'])
    app.client_manager.tripleoplan = plugin.make_client(instance)
    app.stderr = io.StringIO()
    return app


@functools.lru_cache(maxsize=None)
def osc_parser():
    """The global option parser ``openstack`` builds (every keystoneauth
    plugin's options included), as its app's ``parser``.

    Importing OSC loads its API plugins, which add attributes to osc-lib's
    ClientManager class that make a mock of it fail: they are taken away
    again.
    """
    from osc_lib import clientmanager

    before = set(vars(clientmanager.ClientManager))
    try:
        from openstackclient import shell
        return shell.OpenStackShell().parser
    finally:
        for name in set(vars(clientmanager.ClientManager)) - before:
            delattr(clientmanager.ClientManager, name)


def heat_merges(request, context):
    """Heat's template validation: the parameter defaults of the
    environments sent, merged in their order."""
    body = request.json()
    merged = {}
    for url in body['environment_files']:
        merged.update(json.loads(body['files'][url]).get(
            'parameter_defaults') or {})
    return {'Parameters': {}, 'Environment': {
        'parameter_defaults': merged, 'resource_registry': {}}}


class HttpTestCase(unittest.TestCase):
    """A requests-mock Mocker per test, and helpers to fill it."""

    def setUp(self):
        super().setUp()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        # The key that marks recorded sources (record.origin): the test's own.
        config = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, config)
        patcher = mock.patch.dict(os.environ, {'XDG_CONFIG_HOME': config})
        patcher.start()
        self.addCleanup(patcher.stop)

    def swift_plan(self, objects, plan='p', url=SWIFT, is_plan=True):
        """A plan container holding ``{name: bytes}``, listing and GETs."""
        self.m.get('%s/%s' % (url, plan),
                   headers=PLAN_HEADERS if is_plan else {}, json=[
                       {'name': n, 'hash': content.md5(d), 'bytes': len(d)}
                       for n, d in sorted(objects.items())])
        for name, data in objects.items():
            self.m.get('%s/%s/%s' % (url, plan, name), content=data)

    def our_services(self):
        """A Swift with state (``self.swift``, bulk on) and a Mistral that
        runs our action bodies against it: what the commands talk to.
        Returns the FakeMistral."""
        self.swift = FakeSwift(self.m)
        self.swift_info()
        # One worker: requests-mock answers one request at a time, and the
        # actions' requests come while it answers the client's.
        return FakeMistral(self.m, plan_store(workers=1))

    def validation_services(self):
        """``our_services`` with the validations' containers: the
        installed validations (``self.installed``) and the runs' results
        (``self.kept``), and the run command's write probe (the PUT of
        the results container, ``self.probe``); skipped without
        ansible-core. Returns the FakeMistral."""
        from tripleoplanclient.validations import catalog
        from tripleoplanclient.validations import results
        from tripleoplanclient.validations import runner
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        mistral = self.our_services()
        self.installed = FakeSwift(self.m, plan=catalog.CONTAINER)
        self.kept = FakeSwift(self.m, plan=results.CONTAINER)
        self.probe = self.m.put('%s/%s' % (SWIFT, results.CONTAINER),
                                status_code=202)
        return mistral

    def temp_dir(self):
        """A directory of the test's own, removed after it."""
        path = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, path, True)
        return path

    def deploy_services(self):
        """``our_services`` and a Heat that validates as it merges the
        environments (``heat_merges``) and creates stack p as STACK_ID,
        with no events yet and an empty preview: what a deploy talks to.
        Returns the FakeMistral."""
        mistral = self.our_services()
        self.m.post(HEAT + '/validate', headers=JSON, json=heat_merges)
        self.m.post(HEAT + '/stacks', status_code=201, headers=JSON,
                    json={'stack': {'id': STACK_ID, 'links': []}})
        self.m.put(HEAT + '/stacks/p/%s/preview' % STACK_ID, headers=JSON,
                   json={'resource_changes': {}})
        self.m.get(HEAT + '/stacks/p/%s/events' % STACK_ID, headers=JSON,
                   json={'events': []})
        return mistral

    def swift_info(self, bulk=True):
        body = {'swift': {}}
        if bulk:
            body.update(bulk_upload={}, bulk_delete={
                'max_deletes_per_request': 10000})
        self.m.get(SWIFT_INFO, json=body)

    def on_heat(self, method, path, *bodies, status=200):
        """Heat answers ``bodies`` in turn, the last one from then on."""
        return self.m.register_uri(method, HEAT + path, [
            {'json': body, 'headers': JSON, 'status_code': status}
            for body in bodies])


class SoftwareTestCase(HttpTestCase):
    """Heat and the client's Swift account, for triggered deployments."""

    def setUp(self):
        super().setUp()
        from swiftclient import client as swift_client

        self.heat = heat_client()
        self.swift = swift_client.Connection(
            session=session(), os_options={'object_storage_url': SWIFT},
            retries=0)
        self.now = 1000.0
        self.signals = signals.SignalStore(
            lambda: self.swift, SWIFT, clock=lambda: self.now)
        self.lines = []


# A SoftwareComponent as Heat stores it: two configs, typed inputs, and an
# error output.
COMPONENT = {
    'id': 'c1', 'name': 'stack-component-x', 'group': 'component',
    'config': {'configs': [
        {'actions': ['CREATE'], 'tool': 'script', 'config': 'create'},
        {'actions': ['BACKUP', 'Restore'], 'tool': 'script',
         'config': 'backup'}]},
    'options': {},
    'inputs': [{'name': 'target', 'type': 'String', 'default': '/var'},
               {'name': 'level', 'type': 'Number', 'default': 1},
               {'name': 'extra', 'type': 'Json', 'default': {}}],
    'outputs': [{'name': 'archive'},
                {'name': 'error', 'error_output': True}],
}


class PlanTestCase(HttpTestCase):
    """A stateful FakeSwift holding plan ``p`` (``self.swift``, reached
    through ``self.store``), a scratch directory, and the commands run
    through the real plugin."""

    def setUp(self):
        super().setUp()
        self.mistral = self.our_services()
        self.store = plan_store()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, data):
        """Write ``data`` at ``name`` under the scratch directory."""
        return write_file(os.path.join(self.dir, name), data)

    def cmd(self, command, *argv):
        """``command``'s take_action result for ``argv``."""
        app = make_app({'object-store': SWIFT, 'orchestration': HEAT,
                        'workflow': MISTRAL})
        cmd = command(app, None)
        return cmd.take_action(cmd.get_parser('x').parse_args(list(argv)))


def stack_derived(source, values, resource='deployment', **changes):
    """A derived config as Heat's deployment resource writes it."""
    derived = dict(source, id='d1', **changes)
    inputs = [dict(i, value=values.get(i['name'], i.get('default')))
              for i in source['inputs']]
    inputs += [{'name': n, 'value': v} for n, v in values.items()
               if n not in {i['name'] for i in source['inputs']}]
    inputs += [{'name': 'deploy_server_id', 'value': 's1'},
               {'name': 'deploy_action', 'value': 'CREATE'},
               {'name': 'deploy_stack_id', 'value': 'stack/1234'},
               {'name': 'deploy_resource_name', 'value': resource},
               {'name': 'deploy_signal_transport', 'value': 'NO_SIGNAL'}]
    derived['inputs'] = inputs
    return derived


def inputs_of(body):
    return {i['name']: i['value'] for i in body['inputs']}


class FakeSwift:
    """One plan container with state, behind requests-mock: listings
    (prefix, marker, limit), object GET/PUT/DELETE and extract-archive.

    Each write gets the next second of a counter, as Swift stamps a write
    when it arrives; ``stamp = (prefix, second)`` gives the next write under
    ``prefix`` that second instead, to land a write that arrived earlier
    than the ones before it. ``lagging = {name: n}``: the next ``n``
    listings leave the object out, as a container replica that missed
    its update (a node down) does until its peers catch it up;
    ``lag = (prefix, n)``: so for every object written under ``prefix``.
    ``stale = {name: bytes}``: what a replica that missed the object's
    last write answers to a GET without ``X-Newest``.
    """

    DATE = 'Mon, 23 Nov 2026 12:00:00 GMT'

    def __init__(self, mocker, plan='p', url=SWIFT, bulk=True):
        import re
        self.objects = {}       # name -> (bytes, last_modified)
        self.meta = {}          # name -> {X-Object-Meta-*: value}
        self.tick = 0
        self.stamp = None
        self.lagging = {}
        self.lag = None
        self.stale = {}
        self.plan = plan
        base = '%s/%s' % (url, plan)
        self.requests = []
        mocker.get(re.compile(re.escape(base) + r'(\?.*)?$'),
                   json=self._listing, headers=dict(
                       PLAN_HEADERS, Date=self.DATE))
        obj = re.compile(re.escape(base) + '/(.+)$')
        mocker.get(obj, content=self._get)
        mocker.head(obj, text=self._head)
        mocker.put(obj, status_code=201, text=self._put)
        mocker.delete(obj, status_code=204, text=self._delete)
        if bulk:
            mocker.put(base + '?extract-archive=tar', text=self._archive)
            mocker.post(re.compile(re.escape(url) + r'/?\?bulk-delete'),
                        text=self._bulk_delete)
        else:
            mocker.put(base + '?extract-archive=tar', status_code=202,
                       text='')
        self._name = obj

    def time(self, when=None):
        if when is None:
            self.tick += 1
            when = self.tick
        return '2026-11-23T%02d:%02d:%02d.000000' % (
            11 + when // 3600, when // 60 % 60, when % 60)

    def store(self, name, data):
        when = None
        if self.stamp and name.startswith(self.stamp[0]):
            when, self.stamp = self.stamp[1], None
        self.objects[name] = (data, self.time(when))
        if self.lag and name.startswith(self.lag[0]):
            self.lagging[name] = self.lag[1]

    def _path(self, request):
        from urllib import parse
        return parse.unquote(self._name.match(request.url.split('?')[0])
                             .group(1))

    def _listing(self, request, context):
        self.requests.append(('LIST', request.qs.get('prefix', [''])[0]))
        prefix = request.qs.get('prefix', [''])[0]
        marker = request.qs.get('marker', [''])[0]
        out = [{'name': n, 'hash': content.md5(d), 'bytes': len(d),
                'last_modified': t}
               for n, (d, t) in sorted(self.objects.items())
               if n.startswith(prefix) and n > marker and
               not self.lagging.get(n)]
        for name, left in list(self.lagging.items()):
            if name.startswith(prefix) and left:
                self.lagging[name] = left - 1
        return out[:int(request.qs.get('limit', [10000])[0])]

    def _get(self, request, context):
        name = self._path(request)
        self.requests.append(('GET', name))
        if name in self.stale and request.headers.get('X-Newest') not in (
                'true', b'true'):
            return self.stale[name]
        if name not in self.objects:
            context.status_code = 404
            return b''
        return self.objects[name][0]

    def _head(self, request, context):
        name = self._path(request)
        self.requests.append(('HEAD', name))
        if name not in self.objects:
            context.status_code = 404
        else:
            import datetime
            data, when = self.objects[name]
            context.headers['Etag'] = content.md5(data)
            context.headers['Content-Length'] = str(len(data))
            stamp = datetime.datetime.strptime(
                when, '%Y-%m-%dT%H:%M:%S.%f').replace(
                    tzinfo=datetime.timezone.utc)
            context.headers['X-Timestamp'] = '%d.%05d' % (
                stamp.timestamp(), stamp.microsecond // 10)
            context.headers.update(self.meta.get(name) or {})
        return ''

    def _put(self, request, context):
        from urllib import parse
        name = self._path(request)
        source = request.headers.get('X-Copy-From')
        if source is not None:
            # Server-side copy; If-Match applies to the source, as in Swift.
            source = parse.unquote(source if isinstance(source, str)
                                   else source.decode())
            source = source.split('/', 2)[2]
            self.requests.append(('COPY', name))
            match = request.headers.get('If-Match')
            match = match.decode() if isinstance(match, bytes) else match
            if source not in self.objects:
                context.status_code = 404
            elif match and content.md5(self.objects[source][0]) != match:
                context.status_code = 412
            else:
                self.store(name, self.objects[source][0])
            return ''
        self.requests.append(('PUT', name))
        if request.headers.get('If-None-Match') in ('*', b'*') and \
                name in self.objects:
            context.status_code = 412       # checked before the write
            return ''
        # its metadata, as Swift keeps it (HEAD answers it)
        self.meta[name] = {
            k: v.decode() if isinstance(v, bytes) else v
            for k, v in request.headers.items()
            if k.lower().startswith('x-object-meta-')}
        self.store(name, request.body if isinstance(request.body, bytes)
                   else (request.body or b'').encode()
                   if isinstance(request.body, str) else
                   b''.join(request.body))
        return ''

    def _delete(self, request, context):
        name = self._path(request)
        self.requests.append(('DELETE', name))
        self.objects.pop(name, None)
        return ''

    def _bulk_delete(self, request, context):
        from urllib import parse
        self.requests.append(('BULK-DELETE', None))
        names = [parse.unquote(n).split('/', 2)[2]
                 for n in request.body.decode().split('\n') if n]
        for name in names:
            self.objects.pop(name, None)
        return json.dumps({'Number Deleted': len(names), 'Errors': [],
                           'Response Status': '200 OK'})

    def _archive(self, request, context):
        import tarfile
        self.requests.append(('ARCHIVE', None))
        with tarfile.open(fileobj=io.BytesIO(request.body)) as tar:
            members = [(m.name, tar.extractfile(m).read()) for m in tar]
        for name, data in members:
            self.store(name, data)
        return bulk_body(len(members))


def run_ours(store, request, action, heat=None):
    """What our action ``action`` answers to ``request``: its body
    (``mistral.lifecycle``, ``render``, ``preview``, ``deploy``) run here,
    on ``store`` (and Heat at HEAT), after the request is read as the
    action reads it."""
    from tripleoplanclient.mistral import lifecycle
    from tripleoplanclient.mistral import objects
    from tripleoplanclient import protocol

    name = action.split('.', 1)[1]
    req = protocol.read(name, request)
    cache = objects.ContentCache()
    if name == 'plan_create':
        return lifecycle.create(store, req, cache)
    if name == 'plan_amend':
        return lifecycle.amend(store, req, cache)
    if name == 'plan_list':
        return lifecycle.plans(store)
    if name == 'plan_delete':
        return lifecycle.delete(store, heat or heat_client(), req)
    if name == 'plan_restore':
        from tripleoplanclient.mistral import restore
        return restore.restore(store, heat or heat_client(), req)
    if name == 'render':
        from tripleoplanclient.mistral import render
        return render.render_plan(store, req['container'], {
            'roles_data': req['roles_data'],
            'network_data': req['network_data']}, tree=req['tree'],
            cache=cache)
    if name == 'preview':
        from tripleoplanclient.mistral import preview
        return preview.preview(store, heat or heat_client(), req, cache)
    if name == 'deploy':
        from tripleoplanclient.mistral import stack_step
        return stack_step.run(store, heat or heat_client(), req, cache)
    if name == 'config_download':
        from tripleoplanclient.mistral import configure
        return configure.download(store, heat or heat_client(), req,
                                  configure.build)
    if name == 'validation_seal':
        from tripleoplanclient.mistral import validation_answers
        return validation_answers.seal(req, sealer())
    if name.startswith('validation_'):
        import uuid

        from tripleoplanclient.mistral import validation_answers
        # what a run is told: this Swift; a plan that validates; the
        # caller's project (Keystone's); no directory of the operator's
        # to hide; no server (no stack); no cache of the container's
        # roles (none used)
        return validation_answers.answer(name, store, req, {
            'endpoints': {'object-store': SWIFT}, 'project': 'p1',
            'plan_problems': [], 'hidden_paths': [], 'servers': {},
            'support_cache': None}.__getitem__,
            str(uuid.uuid4()), sealer=sealer())
    raise AssertionError('no fake for action %s' % action)


def sealer(password='fake-service-secret'):
    """What seals a validation run's secret extra vars in the fake
    Mistral: ``auth.Sealer`` for user u1 of project p1, its key from a
    service password of the tests' (oslo.config read from a file, as
    Mistral reads its own)."""
    import types

    from keystoneauth1 import loading
    from oslo_config import cfg

    from tripleoplanclient.mistral import auth
    with tempfile.NamedTemporaryFile('w', suffix='.conf') as f:
        f.write('[keystone_authtoken]\nauth_type = password\n'
                'auth_url = http://127.0.0.1:9/v3\nusername = mistral\n'
                'password = %s\n' % password)
        f.flush()
        conf = cfg.ConfigOpts()
        loading.register_auth_conf_options(conf, 'keystone_authtoken')
        conf(['--config-file', f.name])
    caller = types.SimpleNamespace(user_id='u1', project_id='p1')
    return auth.Sealer(caller, conf)


def restore(store, which, plan='p'):
    """What the plan_restore action answers for step ``which`` of
    ``plan`` (run_ours: Heat at HEAT, whose stack lookup the test
    answers)."""
    from tripleoplanclient import protocol
    return run_ours(store, protocol.request(
        'plan_restore', container=plan, step=which, swift_url=SWIFT),
        protocol.action('plan_restore'))


class Recorder:
    """``workflows.plans.Recorder`` with the action bodies run here (run_ours):
    the plan steps' own code, with no Mistral between."""

    def __init__(self, store, command=None):
        self.store = store
        self.command = command
        self.asked = []

    def check(self):
        pass

    def __call__(self, plan, name, fields, renders=False):
        from tripleoplanclient import protocol
        request = protocol.request(name, container=plan, swift_url=SWIFT,
                                   command=self.command, **fields)
        self.asked.append((name, renders))
        return run_ours(self.store, request, protocol.action(name))


class FakeMistral:
    """Mistral's API with our workbook: each workflow execution or ad hoc
    action run answers at once with what our action's body (run_ours)
    answers on the plan store of the test; an action's CommandError is the
    execution's (or task's) ERROR, with its message."""

    def __init__(self, mocker, store):
        import re

        from tripleoplanclient import protocol
        self.store = store
        self.executions = {}
        self.runs = []          # (action, 'sync' or 'workflow')
        mocker.get(MISTRAL + '/workflows/' + protocol.workflow('render'),
                   json={'id': 'w1', 'name': protocol.workflow('render'),
                         'tags': [protocol.TAG], 'definition': ''},
                   headers=JSON)
        mocker.post(MISTRAL + '/action_executions', json=self._action,
                    status_code=201, headers=JSON)
        mocker.post(MISTRAL + '/executions', json=self._start,
                    status_code=201, headers=JSON)
        mocker.get(re.compile(re.escape(MISTRAL) + '/executions/([^/]+)$'),
                   json=self._execution, headers=JSON)
        mocker.get(re.compile(re.escape(MISTRAL)
                              + '/executions/([^/]+)/tasks'),
                   json=self._tasks, headers=JSON)

    def _run(self, action, request):
        from requests_mock import mocker

        from tripleoplanclient.common import exceptions
        # Mistral runs the action in its own process: requests-mock's lock,
        # held while it answers the client, is let go meanwhile, so that
        # the action's own threads (a render's reads) reach Swift.
        held = mocker._send_lock._release_save()
        try:
            return 'SUCCESS', run_ours(self.store, request, action)
        except exceptions.CommandError as exc:
            return 'ERROR', str(exc)
        finally:
            mocker._send_lock._acquire_restore(held)

    def _action(self, request, context):
        body = request.json()
        self.runs.append((body['name'], 'sync'))
        state, result = self._run(
            body['name'], json.loads(body['input'])['request'])
        return {'id': None, 'name': body['name'], 'state': state,
                'output': json.dumps({'result': result})}

    def _start(self, request, context):
        from tripleoplanclient import protocol
        body = request.json()
        name = body['workflow_name'].rsplit('.', 1)[1]
        action = protocol.action(name)
        self.runs.append((action, 'workflow'))
        state, result = self._run(action,
                                  json.loads(body['input'])['request'])
        execution = {'id': 'e%d' % (len(self.executions) + 1),
                     'workflow_name': body['workflow_name'],
                     'state': 'SUCCESS' if state == 'SUCCESS' else 'ERROR',
                     'output': json.dumps({name: result}
                                          if state == 'SUCCESS' else {}),
                     'task': {'id': 't1', 'name': name, 'state': state,
                              'state_info': None if state == 'SUCCESS' else
                              'Failed to run action [action_ex_id=x, '
                              'idx=0]: %s' % result,
                              'published': json.dumps(
                                  {name: result} if state == 'SUCCESS'
                                  else {})}}
        self.executions[execution['id']] = execution
        return {k: v for k, v in execution.items() if k != 'task'}

    def _execution(self, request, context):
        execution = self.executions[request.path.rsplit('/', 1)[1]]
        return {k: v for k, v in execution.items() if k != 'task'}

    def _tasks(self, request, context):
        execution = self.executions[request.path.split('/')[-2]]
        return {'tasks': [execution['task']]}
