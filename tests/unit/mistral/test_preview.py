"""The preview action's body: the plan in a stateful fake Swift, Heat over
requests-mock, a step's changes in the request's overlay.

The store is the project's PlanStore over a real swiftclient Connection;
Heat is a real python-heatclient v1 client. Only HTTP is faked.
"""

import base64
import json
import zlib

import yaml

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import objects
from tripleoplanclient.mistral import preview
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import rendering
from tripleoplanclient.plan import tree as plan_tree
from tripleoplanclient import protocol

SWIFT = fakes.SWIFT
BASE = SWIFT + '/p/'
HEAT = fakes.HEAT
JSON = fakes.JSON
STACK_ID = fakes.STACK_ID
STACK_PATH = '/stacks/p/' + STACK_ID
ENVS = ['environments/other.yaml', 'environments/registry.yaml']
HEAT_ERROR = {'code': 400, 'title': 'Bad Request', 'error': {
    'message': "'NoneType' object is not iterable", 'type': 'TypeError'}}


def resource(name, rtype, stack='p', parent=None, nested=None):
    """A resource as Heat formats it in a preview."""
    out = {'resource_name': name, 'resource_type': rtype,
           'stack_name': stack, 'resource_status': 'COMPLETE',
           'stack_identity': {'stack_name': stack, 'stack_id': 'x',
                              'tenant': 'admin', 'path': ''},
           'required_by': [], 'physical_resource_id': ''}
    if parent is not None:
        out['parent_resource'] = parent
    if nested is not None:
        out['nested_stack_id'] = {'stack_name': nested, 'stack_id': 'y',
                                  'tenant': 'admin', 'path': ''}
    return out


def entry(name, rtype, stack='p'):
    return {'name': name, 'type': rtype, 'stack': stack}


# An update with nested detail: Nested (an existing nested stack, named
# with its short id) is updated, its Leaf replaced; New (a group Heat
# builds in memory) is added with its member and the member's resource.
NESTED_CHANGES = {
    'updated': [resource('Nested', BASE + 'nested/a.yaml',
                         nested='p-Nested-abcdefghij23')],
    'unchanged': [resource('Script', 'OS::Heat::SoftwareConfig')],
    'added': [resource('New', 'OS::Heat::ResourceGroup'),
              resource('0', 'OS::TripleO::Thing', 'p-New', parent='New'),
              resource('Deep', 'OS::Heat::None', 'p-New-0', parent='0')],
    'replaced': [resource('Leaf', 'OS::Heat::None', 'p-Nested-abcdefghij23',
                          parent='Nested')],
    'deleted': [resource('Gone', 'OS::Heat::None')],
}


class PreviewTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        for name, data in small_plan.plan_objects().items():
            self.swift.store(name, data)
        self.store = fakes.plan_store()
        self.cache = objects.ContentCache()
        self.heat = fakes.heat_client()
        self.validate = self.m.post(
            HEAT + '/validate', headers=JSON,
            json=fakes.heat_merges)
        self.previews = []

    def stack_is(self, body):
        fakes.stack_is(self.m, body, STACK_ID)

    def heat_previews_update(self, changes, nested=None):
        """Heat's update preview: ``changes``; with show_nested,
        ``nested`` (default: the same changes; a (status, body) pair:
        that error)."""

        def answer(request, context):
            self.previews.append(request)
            context.headers.update(JSON)
            if request.qs.get('show_nested') and nested is not None:
                if isinstance(nested, tuple):
                    context.status_code = nested[0]
                    return nested[1]
                return {'resource_changes': nested}
            return {'resource_changes': changes}
        self.m.put(HEAT + STACK_PATH + '/preview', json=answer)

    def preview(self, **fields):
        fields.setdefault('environments', ENVS)
        req = protocol.read('preview', protocol.request(
            'preview', container='p', swift_url=SWIFT, heat_url=HEAT,
            **fields))
        return preview.preview(self.store, self.heat, req, cache=self.cache)

    def swift_writes(self):
        return [r for r in self.swift.requests if r[0] not in ('LIST', 'GET')]

    def heat_writes(self):
        """Heat requests that would change something (a validation and a
        preview store nothing)."""
        return [(r.method, r.path) for r in self.m.request_history
                if r.netloc == 'heat.test' and r.method != 'GET'
                and not r.path.endswith(('/validate', '/preview'))]

    def assertNothingWritten(self):
        self.assertEqual([], self.swift_writes())
        self.assertEqual([], self.heat_writes())


class TestCreatePreview(PreviewTestCase):

    def test_no_stack_previews_a_create(self):
        self.stack_is(None)
        created = self.m.post(HEAT + '/stacks/preview', headers=JSON, json={
            'stack': {'stack_name': 'p', 'id': 'None', 'resources': [
                resource('Script', 'OS::Heat::SoftwareConfig'),
                # Nested: its resources in place of it
                [resource('Leaf', 'OS::Heat::None', 'p-Nested',
                          parent='Nested')],
                # a group: no resource of its own, only its members'
                [[resource('Deep', 'OS::Heat::None', 'p-Group-0',
                           parent='0')],
                 [resource('Deep', 'OS::Heat::None', 'p-Group-1',
                           parent='1')]]]}})
        result = self.preview(timeout=90)
        self.assertEqual(('CREATE', None, True, None),
                         (result['operation'], result['stack_id'],
                          result['nested'], result['nested_error']))
        # Sorted by stack, then name.
        self.assertEqual([entry('Script', 'OS::Heat::SoftwareConfig'),
                          entry('Deep', 'OS::Heat::None', 'p/Group/0'),
                          entry('Deep', 'OS::Heat::None', 'p/Group/1'),
                          entry('Leaf', 'OS::Heat::None', 'p/Nested')],
                         result['resources']['added'])
        for kind in ('updated', 'replaced', 'deleted', 'unchanged'):
            self.assertEqual([], result['resources'][kind])
        # What a create would get: the merged environment, no passwords
        # file, the stack's timeout.
        body = created.last_request.json()
        self.assertEqual('p', body['stack_name'])
        self.assertEqual(90, body['timeout_mins'])
        self.assertIs(True, body['disable_rollback'])
        self.assertNotIn('environment_files', body)
        self.assertEqual('generated', body['environment'][
            'parameter_defaults']['AdminPassword'])
        self.assertNotIn(BASE + 'plan-environment.yaml', body['files'])
        self.assertEqual(3, result['environment_files'])
        self.assertEqual(7, result['swift_gets'])
        self.assertNothingWritten()
        json.dumps(result)

    def test_heat_refusing_the_preview_is_a_command_error(self):
        self.stack_is(None)
        self.m.post(HEAT + '/stacks/preview', status_code=400, headers=JSON,
                    json={'code': 400, 'error': {
                        'message': 'Parameter Foo is invalid'}})
        with self.assertRaisesRegex(
                exceptions.CommandError, 'Heat refused the stack create '
                'preview: Parameter Foo is invalid'):
            self.preview()


class TestUpdatePreview(PreviewTestCase):

    def setUp(self):
        super().setUp()
        self.stack_is(small_plan.stack('UPDATE_COMPLETE'))

    def test_nested_detail(self):
        self.heat_previews_update({}, nested=NESTED_CHANGES)
        result = self.preview()
        self.assertEqual(('UPDATE', STACK_ID, True, None),
                         (result['operation'], result['stack_id'],
                          result['nested'], result['nested_error']))
        self.assertEqual(1, len(self.previews))
        self.assertEqual(['true'], self.previews[0].qs['show_nested'])
        body = self.previews[0].json()
        self.assertNotIn('existing', body)
        self.assertIs(True, body['disable_rollback'])
        self.assertEqual(240, body['timeout_mins'])
        self.assertNotIn('environment_files', body)
        self.assertEqual({
            'added': [entry('New', 'OS::Heat::ResourceGroup'),
                      entry('0', 'OS::TripleO::Thing', 'p/New'),
                      entry('Deep', 'OS::Heat::None', 'p/New/0')],
            'updated': [entry('Nested', BASE + 'nested/a.yaml')],
            'replaced': [entry('Leaf', 'OS::Heat::None', 'p/Nested')],
            'deleted': [entry('Gone', 'OS::Heat::None')],
            'unchanged': [entry('Script', 'OS::Heat::SoftwareConfig')]},
            result['resources'])
        self.assertNothingWritten()

    def test_nested_preview_failing_falls_back_to_the_top_level(self):
        for status in (400, 500):
            self.previews = []
            self.heat_previews_update(
                {'updated': [resource('Nested', 'T')]},
                nested=(status, dict(HEAT_ERROR, code=status)))
            result = self.preview()
            self.assertEqual(2, len(self.previews))
            self.assertEqual({}, self.previews[1].qs)
            self.assertEqual(self.previews[0].json(),
                             self.previews[1].json())
            self.assertEqual((False, "'NoneType' object is not iterable"),
                             (result['nested'], result['nested_error']))
            self.assertEqual([entry('Nested', 'T')],
                             result['resources']['updated'])
            self.assertNothingWritten()

    def test_a_long_heat_message_is_cut(self):
        error = {'code': 500, 'error': {'message': 'x ' * 1000}}
        self.heat_previews_update({}, nested=(500, error))
        result = self.preview()
        self.assertEqual(preview.NESTED_ERROR_CHARS,
                         len(result['nested_error']))

    def test_other_heat_errors_are_no_fallback(self):
        self.heat_previews_update({}, nested=(404, {'code': 404, 'error': {
            'message': 'The Stack (p) could not be found.'}}))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'update preview: The Stack'):
            self.preview()
        self.assertEqual(1, len(self.previews))

    def test_without_nested_detail(self):
        self.heat_previews_update({'unchanged': [resource('A', 'T')]},
                                  nested={})
        result = self.preview(show_nested=False)
        self.assertEqual(1, len(self.previews))
        self.assertEqual({}, self.previews[0].qs)
        self.assertEqual((False, None), (result['nested'],
                                         result['nested_error']))
        self.assertEqual([entry('A', 'T')], result['resources']['unchanged'])

    def test_nothing_changed_asks_heat_for_no_preview(self):
        self.heat_previews_update({})
        first = self.preview()
        validations = self.validate.call_count
        result = self.preview(unchanged={
            'fingerprint': first['fingerprint'],
            'updated': '2024-05-01T12:00:00Z'})
        self.assertEqual(('NONE', STACK_ID), (result['operation'],
                                              result['stack_id']))
        self.assertEqual(1, len(self.previews))
        self.assertEqual(validations, self.validate.call_count)
        self.assertEqual({k: [] for k in preview.KINDS},
                         result['resources'])
        # The overlay is what changes the fingerprint.
        changed = self.preview(
            overlay=protocol.encode_overlay({
                'environments/other.yaml': b'parameter_defaults: {Bar: 2}\n'}),
            unchanged={'fingerprint': first['fingerprint'],
                       'updated': '2024-05-01T12:00:00Z'})
        self.assertEqual('UPDATE', changed['operation'])
        self.assertNothingWritten()

    def test_a_busy_stack_is_refused(self):
        self.stack_is(small_plan.stack('UPDATE_IN_PROGRESS'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Stack p is UPDATE_IN_PROGRESS'):
            self.preview()
        self.assertEqual([], self.previews)


class TestOverlay(PreviewTestCase):

    def setUp(self):
        super().setUp()
        self.stack_is(small_plan.stack('UPDATE_COMPLETE'))
        self.heat_previews_update({})

    def heat_got(self):
        return self.previews[-1].json()

    def test_changed_and_new_files_reach_heat(self):
        registry = small_plan.ENV_REGISTRY.replace(
            b'../extra/thing.yaml', b'../extra/new.yaml')
        result = self.preview(
            environments=ENVS + ['user-files/home/new.yaml'],
            overlay=protocol.encode_overlay({
                'environments/registry.yaml': registry,
                'extra/new.yaml': b'heat_template_version: rocky\n'
                                  b'resources: {New: {type: OS::Heat::None}}'
                                  b'\n',
                'user-files/home/new.yaml': b'parameter_defaults:\n'
                                            b'  Bar: from-new\n'}))
        files = self.heat_got()['files']
        # the environments reach Heat's merge (the validation), the
        # templates they name the preview too
        checked = self.validate.last_request.json()
        self.assertEqual(BASE + 'extra/new.yaml', json.loads(
            checked['files'][BASE + 'environments/registry.yaml'])[
                'resource_registry']['OS::TripleO::Thing'])
        self.assertIn('OS::Heat::None', files[BASE + 'extra/new.yaml'])
        self.assertNotIn(BASE + 'extra/thing.yaml', files)
        self.assertIn(BASE + 'user-files/home/new.yaml', checked['files'])
        self.assertNotIn(BASE + 'user-files/home/new.yaml', files)
        self.assertEqual(BASE + 'user-files/home/new.yaml',
                         checked['environment_files'][-1])
        self.assertEqual(4, result['environment_files'])
        # The overlay's content is computed on, never kept.
        self.assertIsNone(self.cache.get(content.md5(registry)))
        self.assertNotIn(('GET', 'extra/new.yaml'), self.swift.requests)
        self.assertNothingWritten()

    def test_deleted_paths_are_gone(self):
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'Plan p references extra/thing.yaml, which it does not '
                'hold'):
            self.preview(deleted=['extra/thing.yaml'])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p has no environments/other.yaml'):
            self.preview(deleted=['environments/other.yaml'])
        result = self.preview(environments=['environments/registry.yaml'],
                              deleted=['environments/other.yaml'])
        self.assertNotIn(BASE + 'environments/other.yaml',
                         self.heat_got()['files'])
        self.assertEqual(2, result['environment_files'])
        self.assertNothingWritten()

    def test_the_recorded_tree_is_what_the_overlay_lies_on(self):
        full = {p: content.md5(d) for p, d in
                small_plan.plan_objects().items() if plan_tree.in_tree(p)}
        # A file a concurrent step wrote is not in this step's tree.
        self.swift.store('environments/later.yaml',
                         b'parameter_defaults: {Later: 1}\n')
        name, data, md5 = plan_tree.snapshot(full)
        self.swift.store(name, data)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'has no environments/later.yaml'):
            self.preview(environments=['environments/later.yaml'],
                         tree={'base': md5, 'changes': {}})
        self.preview(
            environments=['environments/later.yaml'],
            tree={'base': md5, 'changes': {}},
            overlay=protocol.encode_overlay({
                'environments/later.yaml': b'parameter_defaults: '
                                           b'{Later: 2}\n'}))
        self.assertEqual(2, json.loads(self.validate.last_request.json()[
            'files'][BASE + 'environments/later.yaml'])[
                'parameter_defaults']['Later'])
        self.assertNothingWritten()

    def refused(self, regex, **fields):
        with self.assertRaisesRegex(exceptions.CommandError, regex):
            self.preview(**fields)
        # Refused before Swift or Heat is asked anything.
        self.assertEqual([], self.swift.requests)
        self.assertEqual([], self.previews)
        self.assertEqual(0, self.validate.call_count)

    def test_the_record_cannot_be_overlaid_or_deleted(self):
        self.refused('overlay: plan path .user-environments/environments.'
                     'yaml. is under user-environments/',
                     overlay=protocol.encode_overlay({
                         layout.RECORD_DIR + 'environments.yaml': b'x'}))
        self.refused('deleted: plan path .user-environments/rendered.yaml',
                     deleted=[layout.RENDER_MANIFEST])

    def test_paths_a_user_may_not_give_are_refused(self):
        for path in ('../other/x.yaml', '/etc/passwd', 'a//b'):
            self.refused('Bad preview request: overlay: plan path',
                         overlay=protocol.encode_overlay({path: b'x'}))

    def test_a_zlib_bomb_is_refused(self):
        bomb = zlib.compress(b'\0' * (protocol.MAX_OVERLAY_BYTES + 1), 9)
        self.assertLess(len(bomb), 64 * 1024)
        self.refused('larger than 16 MiB once decompressed',
                     overlay={'environments/other.yaml':
                              base64.b64encode(bomb).decode()})

    def test_the_limit_is_on_the_whole_overlay(self):
        half = b'\0' * (protocol.MAX_OVERLAY_BYTES // 2 + 1)
        self.refused('larger than 16 MiB', overlay=protocol.encode_overlay(
            {'a.yaml': half, 'b.yaml': half}))

    def test_malformed_overlays_are_refused(self):
        self.refused('not zlib data in base64',
                     overlay={'a.yaml': 'not base64!'})
        self.refused('not zlib data in base64',
                     overlay={'a.yaml': base64.b64encode(b'plain').decode()})
        truncated = zlib.compress(b'x' * 1000)[:-4]
        self.refused('not one complete zlib stream', overlay={
            'a.yaml': base64.b64encode(truncated).decode()})
        self.refused('overlay is not a mapping', overlay=['a.yaml'])
        self.refused('deleted is not a list', deleted='a.yaml')
        self.refused('both in the overlay and deleted',
                     overlay=protocol.encode_overlay({'a.yaml': b'x'}),
                     deleted=['a.yaml'])
        self.refused('render is not a mapping', render={'roles': 'r.yaml'})


ROLES = b'- name: Controller\n'
SOURCE = b'heat_template_version: rocky\ndescription: {{role}}\n' \
         b'resources: {}\n'
TEMPLATE = b'''heat_template_version: rocky
resources:
  Controller:
    type: x/controller-a.yaml
'''


class TestRenderInMemory(PreviewTestCase):
    """A step that would render: rendered here, the outputs in the
    overlay, nothing written."""

    def setUp(self):
        super().setUp()
        self.stack_is(small_plan.stack('UPDATE_COMPLETE'))
        self.heat_previews_update({})
        stored = {'overcloud.yaml': TEMPLATE, 'roles_data.yaml': ROLES,
                  'x/a.role.j2.yaml': SOURCE}
        rendered = rendering.render(stored, stored.get)
        self.assertEqual(['x/controller-a.yaml'], list(rendered))
        stored.update(rendered)
        stored[layout.RENDER_MANIFEST] = yaml.safe_dump({
            'inputs': {p: content.md5(stored[p]) for p in
                       ('roles_data.yaml', 'x/a.role.j2.yaml')},
            'outputs': {p: content.md5(d) for p, d in rendered.items()}
        }).encode()
        self.swift.objects.clear()
        for name, data in stored.items():
            self.swift.store(name, data)

    def preview(self, **fields):
        fields.setdefault('environments', [])
        fields.setdefault('render', {'roles_data': None,
                                     'network_data': None})
        return super().preview(**fields)

    def test_nothing_to_render_renders_nothing(self):
        result = self.preview()
        self.assertEqual([], result['rendered'])
        self.assertNotIn(('GET', 'x/a.role.j2.yaml'), self.swift.requests)

    def test_the_outputs_reach_heat(self):
        template = TEMPLATE + b'  Compute:\n    type: x/compute-a.yaml\n'
        result = self.preview(overlay=protocol.encode_overlay({
            'roles_data.yaml': ROLES + b'- name: Compute\n',
            'overcloud.yaml': template}))
        self.assertEqual(['x/compute-a.yaml'], result['rendered'])
        files = self.previews[-1].json()['files']
        self.assertEqual('Compute', json.loads(
            files[BASE + 'x/compute-a.yaml'])['description'])
        self.assertEqual('Controller', json.loads(
            files[BASE + 'x/controller-a.yaml'])['description'])
        # Rendered content is computed on, never kept.
        inputs = {'roles_data.yaml': ROLES + b'- name: Compute\n',
                  'x/a.role.j2.yaml': SOURCE}
        output = rendering.render(inputs, inputs.get)['x/compute-a.yaml']
        self.assertIsNone(self.cache.get(content.md5(output)))
        self.assertIsNotNone(self.cache.get(content.md5(SOURCE)))
        self.assertNothingWritten()

    def test_outputs_no_longer_produced_are_gone(self):
        # Controller removed from the roles: its output would be removed.
        with self.assertRaisesRegex(
                exceptions.CommandError, 'references x/controller-a.yaml, '
                'which it does not hold'):
            self.preview(overlay=protocol.encode_overlay({
                'roles_data.yaml': b'- name: Compute\n'}))
        result = self.preview(overlay=protocol.encode_overlay({
            'roles_data.yaml': b'- name: Compute\n',
            'overcloud.yaml': TEMPLATE.replace(b'controller', b'compute')}))
        self.assertEqual(['x/compute-a.yaml'], result['rendered'])
        self.assertNotIn(BASE + 'x/controller-a.yaml',
                         self.previews[-1].json()['files'])
        self.assertNothingWritten()

    def test_a_render_error_is_a_command_error(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'roles_data.yaml must be a YAML list'):
            self.preview(overlay=protocol.encode_overlay({
                'roles_data.yaml': b'name: Controller\n'}))
        self.assertNothingWritten()
