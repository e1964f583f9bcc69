"""The deploy action's body: the plan in Swift, Heat, both over requests-mock.

The store is the project's PlanStore over a real swiftclient Connection;
Heat is a real python-heatclient v1 client. Only HTTP is faked.
"""

import json
import unittest

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import assembly
from tripleoplanclient.mistral import deploy
from tripleoplanclient.mistral import objects
from tripleoplanclient import protocol

SWIFT = fakes.SWIFT
BASE = SWIFT + '/p/'
HEAT = fakes.HEAT
STACK_ID = fakes.STACK_ID
JSON = fakes.JSON


class PlanTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.store = fakes.plan_store()
        self.cache = objects.ContentCache()

    def plan(self, stored, is_plan=True):
        self.swift_plan(stored, is_plan=is_plan)

    def objects(self):
        _, listing = self.store.container.listing('p')
        return objects.PlanObjects(self.store, 'p', listing, self.cache)

    def object_gets(self):
        return [r.path for r in self.m.request_history
                if r.method == 'GET' and r.netloc == 'swift.test'
                and '/p/' in r.path]


class TestAssemble(PlanTestCase):

    def assemble(self, environments, **kwargs):
        return assembly.assemble(self.objects(), BASE, environments, **kwargs)

    def test_template_nested_files_and_registry_are_resolved(self):
        self.plan(small_plan.plan_objects())
        fields = self.assemble(['environments/registry.yaml'])
        resources = fields['template']['resources']
        self.assertEqual(BASE + 'nested/a.yaml', resources['Nested']['type'])
        self.assertEqual(BASE + 'scripts/run.sh',
                         resources['Script']['properties']['config'][
                             'get_file'])
        files = fields['files']
        self.assertEqual('#!/bin/sh\necho hi\n',
                         files[BASE + 'scripts/run.sh'])
        self.assertEqual('OS::Heat::None', json.loads(
            files[BASE + 'nested/a.yaml'])['resources']['Leaf']['type'])
        # The registry's relative path, made absolute, and its target.
        env = json.loads(files[BASE + 'environments/registry.yaml'])
        self.assertEqual(BASE + 'extra/thing.yaml',
                         env['resource_registry']['OS::TripleO::Thing'])
        self.assertEqual('OS::Heat::None',
                         env['resource_registry']['OS::TripleO::Builtin'])
        self.assertIn(BASE + 'extra/thing.yaml', files)
        # Every value is text: Heat's JSON body cannot carry bytes.
        self.assertTrue(all(isinstance(v, str) for v in files.values()))
        json.dumps(fields)

    def test_environment_files_in_recorded_order_plan_environment_first(self):
        self.plan(small_plan.plan_objects())
        fields = self.assemble(['environments/other.yaml',
                                'environments/registry.yaml'])
        self.assertEqual([BASE + 'plan-environment.yaml',
                          BASE + 'environments/other.yaml',
                          BASE + 'environments/registry.yaml'],
                         fields['environment_files'])
        for url in fields['environment_files']:
            self.assertIn(url, fields['files'])

    def test_plan_parameter_defaults_override_passwords(self):
        self.plan(small_plan.plan_objects())
        fields = self.assemble(['environments/registry.yaml'])
        first = json.loads(fields['files'][BASE + 'plan-environment.yaml'])
        # Only parameter_defaults: the plan-environment's other keys are no
        # Heat environment sections.
        self.assertEqual({'parameter_defaults': {
            'AdminPassword': 'generated', 'Foo': 'generated-foo',
            'Shared': 'plan'}}, first)
        # The environments come after it, so Heat lets them win (Foo).
        self.assertLess(
            fields['environment_files'].index(BASE + 'plan-environment.yaml'),
            fields['environment_files'].index(
                BASE + 'environments/registry.yaml'))

    def test_a_custom_plan_environment_overrides_the_stored_one(self):
        stored = small_plan.plan_objects()
        stored['user-files/pe.yaml'] = (b'parameter_defaults:\n'
                                        b'  Shared: custom\n')
        self.plan(stored)
        merged = assembly.parameter_defaults(self.objects(),
                                             'user-files/pe.yaml')
        self.assertEqual('custom', merged['Shared'])
        self.assertEqual('generated', merged['AdminPassword'])

    def test_no_plan_environment_no_parameters(self):
        stored = small_plan.plan_objects()
        del stored['plan-environment.yaml']
        self.plan(stored)
        fields = self.assemble([])
        self.assertEqual({'parameter_defaults': {}}, json.loads(
            fields['files'][BASE + 'plan-environment.yaml']))
        self.assertEqual([BASE + 'plan-environment.yaml'],
                         fields['environment_files'])

    def test_paths_with_spaces(self):
        stored = small_plan.plan_objects()
        stored['user-files/home/my env.yaml'] = (
            b'resource_registry:\n  OS::TripleO::X: impl one.yaml\n')
        stored['user-files/home/impl one.yaml'] = small_plan.THING
        self.plan(stored)
        fields = self.assemble(['user-files/home/my env.yaml'])
        env_url = BASE + 'user-files/home/my%20env.yaml'
        self.assertEqual(env_url, fields['environment_files'][1])
        registry = json.loads(fields['files'][env_url])['resource_registry']
        self.assertEqual({'heat_template_version': 'rocky', 'resources': {}},
                         json.loads(fields['files'][
                             registry['OS::TripleO::X']]))

    def test_a_missing_environment_is_named(self):
        self.plan(small_plan.plan_objects())
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p has no environments/gone.yaml'):
            self.assemble(['environments/other.yaml',
                           'environments/gone.yaml'])
        # Refused before reading anything.
        self.assertEqual([], self.object_gets())

    def test_a_reference_outside_the_plan_is_named(self):
        stored = small_plan.plan_objects()
        stored['environments/escape.yaml'] = (
            b'resource_registry:\n'
            b'  OS::TripleO::X: ../../other-container/x.yaml\n')
        self.plan(stored)
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'Plan p references %s/other-container/x.yaml, which is '
                'outside the plan' % SWIFT):
            self.assemble(['environments/escape.yaml'])

    def test_an_absolute_reference_is_outside_the_plan(self):
        stored = small_plan.plan_objects()
        stored['overcloud.yaml'] = small_plan.TEMPLATE.replace(
            b'scripts/run.sh', b'/usr/share/run.sh')
        self.plan(stored)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'usr/share/run.sh, which is outside'):
            self.assemble([])

    def test_a_reference_to_an_object_the_plan_lacks_is_named(self):
        stored = small_plan.plan_objects()
        del stored['extra/thing.yaml']
        self.plan(stored)
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'Plan p references extra/thing.yaml, which it does not '
                'hold'):
            self.assemble(['environments/registry.yaml'])

    def test_a_broken_template_is_a_command_error(self):
        stored = small_plan.plan_objects()
        stored['overcloud.yaml'] = b'heat_template_version: [\n'
        self.plan(stored)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p, overcloud.yaml'):
            self.assemble([])

    def test_a_broken_environment_is_named(self):
        # heatclient's own message names no file.
        stored = small_plan.plan_objects()
        stored['environments/typo.yaml'] = b'paramter_defaults:\n  A: 1\n'
        self.plan(stored)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'environments/typo.yaml'):
            self.assemble(['environments/other.yaml',
                           'environments/typo.yaml'])

    def test_a_plan_environment_that_is_no_mapping_is_named(self):
        stored = small_plan.plan_objects()
        stored['plan-environment.yaml'] = b'- a list\n'
        self.plan(stored)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'plan-environment.yaml of plan p is not '
                                    'a mapping'):
            self.assemble([])


class TestCache(PlanTestCase):

    def test_a_second_assemble_reads_no_object_from_swift(self):
        self.plan(small_plan.plan_objects())
        envs = ['environments/other.yaml', 'environments/registry.yaml']
        first = self.objects()
        fields = assembly.assemble(first, BASE, envs)
        fetched = len(self.object_gets())
        # Every object but the record was read, once.
        self.assertEqual(7, fetched)
        self.assertEqual((7, 0), (first.gets, first.hits))
        second = self.objects()
        again = assembly.assemble(second, BASE, envs)
        self.assertEqual(fetched, len(self.object_gets()))
        self.assertEqual((0, 7), (second.gets, second.hits))
        self.assertEqual(assembly.fingerprint(fields),
                         assembly.fingerprint(again))

    def test_a_changed_object_is_read_again(self):
        stored = small_plan.plan_objects()
        self.plan(stored)
        assembly.assemble(self.objects(), BASE, [])
        stored['nested/a.yaml'] = small_plan.NESTED + b'# edited\n'
        self.plan(stored)
        second = self.objects()
        assembly.assemble(second, BASE, [])
        self.assertEqual(1, second.gets)

    def test_least_recently_used_content_goes_first(self):
        cache = objects.ContentCache(max_bytes=10)
        a = cache.put(b'aaaa')
        b = cache.put(b'bbbb')
        self.assertEqual(b'aaaa', cache.get(a))     # a is now the newest
        c = cache.put(b'cccc')
        self.assertIsNone(cache.get(b))
        self.assertEqual(b'aaaa', cache.get(a))
        self.assertEqual(b'cccc', cache.get(c))
        self.assertEqual(content.md5(b'cccc'), c)

    def test_an_empty_object_is_cached_too(self):
        cache = objects.ContentCache()
        self.assertEqual(b'', cache.get(cache.put(b'')))

    def test_an_object_gone_since_the_listing_is_a_command_error(self):
        self.plan(small_plan.plan_objects())
        plan = self.objects()
        self.m.get(SWIFT + '/p/nested/a.yaml', status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'nested/a.yaml vanished from plan p'):
            assembly.assemble(plan, BASE, [])


class TestFingerprint(PlanTestCase):

    def fields(self, stored, envs=('environments/other.yaml',
                                   'environments/registry.yaml')):
        self.plan(stored)
        return assembly.assemble(self.objects(), BASE, list(envs))

    def test_stable(self):
        one = assembly.fingerprint(self.fields(small_plan.plan_objects()))
        self.cache = objects.ContentCache()
        two = assembly.fingerprint(self.fields(small_plan.plan_objects()))
        self.assertEqual(one, two)
        self.assertRegex(one, '^[0-9a-f]{64}$')

    def test_changes_with_any_file_the_stack_uses(self):
        base = assembly.fingerprint(self.fields(small_plan.plan_objects()))
        edits = [('scripts/run.sh', b'echo hi', b'echo ho'),
                 ('nested/a.yaml', b'OS::Heat::None', b'OS::Heat::Value'),
                 ('extra/thing.yaml', b'{}', b'{X: {type: OS::Heat::None}}'),
                 ('plan-environment.yaml', b'Shared: plan', b'Shared: 2'),
                 ('plan-environment.yaml', b'generated-foo', b'new-foo'),
                 ('environments/other.yaml', b'from-other', b'x')]
        for path, old, new in edits:
            stored = small_plan.plan_objects()
            self.assertIn(old, stored[path])
            stored[path] = stored[path].replace(old, new)
            self.assertNotEqual(base, assembly.fingerprint(
                self.fields(stored)), path)

    def test_changes_with_the_environment_order(self):
        one = assembly.fingerprint(self.fields(small_plan.plan_objects()))
        two = assembly.fingerprint(self.fields(
            small_plan.plan_objects(), ('environments/registry.yaml',
                                        'environments/other.yaml')))
        self.assertNotEqual(one, two)

    def test_ignores_what_heat_is_not_given(self):
        one = assembly.fingerprint(self.fields(small_plan.plan_objects()))
        stored = small_plan.plan_objects()
        # A comment in a nested template: Heat gets the parsed template.
        stored['extra/thing.yaml'] += b'# a comment\n'
        stored['user-environments/environments.yaml'] = b'version: 1\n#\n'
        stored['unused.yaml'] = b'a: 1\n'
        self.assertEqual(one, assembly.fingerprint(self.fields(stored)))


def checked_defaults(body):
    """The parameter_defaults of every environment a request names."""
    out = {}
    for url in body['environment_files']:
        out.update(json.loads(body['files'][url]).get(
            'parameter_defaults') or {})
    return out


class TestDeploy(PlanTestCase):

    ENVS = ['environments/other.yaml', 'environments/registry.yaml']

    def setUp(self):
        super().setUp()
        self.heat = fakes.heat_client()
        self.plan(small_plan.plan_objects())
        # Heat merges the environments it is given in order (a stand-in:
        # parameter_defaults only, later files win).
        self.validate = self.m.post(HEAT + '/validate', headers=JSON,
                                    json=self.heat_merges)
        # Before an update: the newest event, where following starts.
        self.marker = self.m.get(
            HEAT + '/stacks/p/%s/events' % STACK_ID, headers=JSON,
            json={'events': [{'id': 'e1', 'links': []}]})

    heat_merges = staticmethod(fakes.heat_merges)

    def stack_is(self, body):
        fakes.stack_is(self.m, body, STACK_ID)

    def deploy(self, **kwargs):
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=self.ENVS,
            swift_url=SWIFT, heat_url=HEAT, **kwargs))
        return deploy.deploy(self.store, self.heat, req, cache=self.cache)

    def writes(self):
        # (a template validation stores nothing)
        return [(r.method, r.path) for r in self.m.request_history
                if r.method not in ('GET', 'HEAD')
                and not r.path.endswith('/validate')]

    def digest(self):
        return assembly.fingerprint(assembly.assemble(
            self.objects(), BASE, self.ENVS))

    def test_no_stack_is_a_create(self):
        self.stack_is(None)
        create = self.m.post(HEAT + '/stacks', status_code=201, headers=JSON,
                             json={'stack': {'id': STACK_ID, 'links': []}})
        summary = self.deploy(timeout=90)
        self.assertEqual(('CREATE', STACK_ID),
                         (summary['operation'], summary['stack_id']))
        self.assertEqual([('POST', '/v1/admin/stacks')], self.writes())
        body = create.last_request.json()
        self.assertEqual('p', body['stack_name'])
        self.assertEqual(90, body['timeout_mins'])
        self.assertIs(True, body['disable_rollback'])
        # Heat merged the environments in a validation of the same files;
        # the stack gets the merged environment, and no passwords file.
        checked = self.validate.last_request.json()
        self.assertEqual([BASE + 'plan-environment.yaml',
                          BASE + 'environments/other.yaml',
                          BASE + 'environments/registry.yaml'],
                         checked['environment_files'])
        self.assertNotIn('environment_files', body)
        self.assertEqual('generated', body['environment'][
            'parameter_defaults']['AdminPassword'])
        self.assertNotIn(BASE + 'plan-environment.yaml', body['files'])
        self.assertNotIn('generated', json.dumps(body['files']))
        # A default no template declares is not given: Heat would not
        # use it, nor mask it.
        self.assertIn('Shared', checked_defaults(checked))
        self.assertNotIn('Shared', body['environment']['parameter_defaults'])
        # no environment file at all: Heat has their merge
        self.assertEqual(set(checked['files']) - set(
            checked['environment_files']), set(body['files']))
        self.assertEqual(BASE + 'nested/a.yaml',
                         body['template']['resources']['Nested']['type'])
        self.assertEqual(summary['fingerprint'], self.digest())
        self.assertEqual(3, summary['environment_files'])

    def test_an_operators_own_secret_reaches_no_file_of_the_stack(self):
        objects = small_plan.plan_objects()
        objects['environments/other.yaml'] = (
            b'parameter_defaults:\n  AdminPassword: operator-secret\n')
        self.plan(objects)
        self.stack_is(None)
        create = self.m.post(HEAT + '/stacks', status_code=201, headers=JSON,
                             json={'stack': {'id': STACK_ID, 'links': []}})
        self.deploy()
        body = create.last_request.json()
        self.assertNotIn('operator-secret', json.dumps(body['files']))
        self.assertNotIn(BASE + 'environments/other.yaml', body['files'])
        # the merged environment has it, where Heat masks a hidden one
        self.assertEqual('operator-secret', body['environment'][
            'parameter_defaults']['AdminPassword'])

    def test_a_complete_stack_is_updated(self):
        self.stack_is(small_plan.stack('CREATE_COMPLETE', updated=None))
        update = self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        summary = self.deploy()
        self.assertEqual(('UPDATE', STACK_ID),
                         (summary['operation'], summary['stack_id']))
        self.assertEqual([('PUT', '/v1/admin/stacks/' + STACK_ID)],
                         self.writes())
        body = update.last_request.json()
        self.assertNotIn('stack_name', body)
        self.assertNotIn('existing', body)
        self.assertEqual(240, body['timeout_mins'])
        self.assertNotIn('environment_files', body)
        self.assertIn('parameter_defaults', body['environment'])

    def test_a_failed_stack_is_updated(self):
        self.stack_is(small_plan.stack('UPDATE_FAILED'))
        self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        unchanged = {'fingerprint': self.digest(),
                     'updated': '2024-05-01T12:00:00Z'}
        summary = self.deploy(unchanged=unchanged)
        self.assertEqual('UPDATE', summary['operation'])

    def test_nothing_changed_calls_no_heat_operation(self):
        self.stack_is(small_plan.stack('UPDATE_COMPLETE'))
        unchanged = {'fingerprint': self.digest(),
                     'updated': '2024-05-01T12:00:00Z'}
        summary = self.deploy(unchanged=unchanged)
        self.assertEqual('NONE', summary['operation'])
        self.assertEqual((STACK_ID, 'UPDATE_COMPLETE', '2024-05-01T12:00:00Z'),
                         (summary['stack_id'], summary['status'],
                          summary['updated']))
        self.assertEqual([], self.writes())

    def test_a_redeploy_reads_no_object_from_swift(self):
        # deploy() reads through the cache the action hands it (the
        # executor's, scoped to the plan): the second run needs nothing.
        self.stack_is(None)
        self.m.post(HEAT + '/stacks', status_code=201, headers=JSON,
                    json={'stack': {'id': STACK_ID, 'links': []}})
        first = self.deploy()
        fetched = len(self.object_gets())
        self.assertEqual(fetched, first['swift_gets'])
        second = self.deploy()
        self.assertEqual((0, 7), (second['swift_gets'],
                                  second['cache_hits']))
        self.assertEqual(fetched, len(self.object_gets()))
        self.assertEqual(first['fingerprint'], second['fingerprint'])

    def test_a_stack_never_updated_compares_its_creation_time(self):
        self.stack_is(small_plan.stack('CREATE_COMPLETE', updated=None))
        summary = self.deploy(unchanged={
            'fingerprint': self.digest(), 'updated': '2024-05-01T10:00:00Z'})
        self.assertEqual('NONE', summary['operation'])
        self.assertEqual([], self.writes())

    def test_a_stack_touched_since_is_updated(self):
        self.stack_is(small_plan.stack('UPDATE_COMPLETE',
                                       updated='2024-05-02T08:00:00Z'))
        self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        summary = self.deploy(unchanged={
            'fingerprint': self.digest(), 'updated': '2024-05-01T12:00:00Z'})
        self.assertEqual('UPDATE', summary['operation'])
        self.assertEqual(1, len(self.writes()))

    def test_a_changed_plan_is_updated(self):
        self.stack_is(small_plan.stack('UPDATE_COMPLETE'))
        self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        summary = self.deploy(unchanged={
            'fingerprint': 'f' * 64, 'updated': '2024-05-01T12:00:00Z'})
        self.assertEqual('UPDATE', summary['operation'])

    def test_a_busy_stack_is_refused(self):
        self.stack_is(small_plan.stack('UPDATE_IN_PROGRESS'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Stack p is UPDATE_IN_PROGRESS'):
            self.deploy()
        self.assertEqual([], self.writes())

    def test_heat_refusing_the_create_is_a_command_error(self):
        self.stack_is(None)
        self.m.post(HEAT + '/stacks', status_code=400, headers=JSON, json={
            'code': 400, 'title': 'Bad Request', 'error': {
                'message': 'Parameter Foo is invalid',
                'type': 'StackValidationFailed'}})
        with self.assertRaisesRegex(
                exceptions.CommandError,
                'Heat refused the stack create: Parameter Foo is invalid'):
            self.deploy()

    def test_no_plan_is_refused_before_heat(self):
        self.m.get(SWIFT + '/p', status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p does not exist'):
            self.deploy()
        self.assertEqual([], [r for r in self.m.request_history
                              if r.netloc == 'heat.test'])

    def test_a_container_that_is_no_plan_is_refused(self):
        self.plan(small_plan.plan_objects(), is_plan=False)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p does not exist'):
            self.deploy()

    def test_a_missing_environment_calls_no_heat(self):
        self.ENVS = ['environments/gone.yaml']
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'environments/gone.yaml'):
            self.deploy()
        self.assertEqual([], [r for r in self.m.request_history
                              if r.netloc == 'heat.test'])


class TestScopedCache(unittest.TestCase):

    def test_a_plan_never_gets_another_plans_content(self):
        # The executor's cache serves every plan: content read for plan a
        # is not there for plan b (nor for a in another account), even
        # when b's request names its MD5.
        cache = objects.ContentCache()
        a = cache.scoped(SWIFT, 'a')
        md5 = a.put(b'AdminPassword: s3cret\n')
        self.assertEqual(b'AdminPassword: s3cret\n', a.get(md5))
        self.assertIsNone(cache.scoped(SWIFT, 'b').get(md5))
        self.assertIsNone(cache.scoped(SWIFT + '2', 'a').get(md5))
        self.assertIsNone(cache.get(md5))
