"""A plan's record never chooses a local file: recorded sources read again
by a stack step only when this Keystone user recorded them from this
machine, into the user-files/ path the client gives them; any other is
told and left alone. Through the real commands and prepare on a stateful
fake Swift, the Mistral side run here."""

import json
import os

import yaml

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import preview as preview_commands
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.record import log
from tripleoplanclient.record import origin
from tripleoplanclient.record import sources
from tripleoplanclient.stack import operations

SECRET = b'clouds: {undercloud: {auth: {password: S3CR3T}}}\n'
OPERATOR = 'u-operator'


class SourcesTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        self.tht = os.path.dirname(self.write(
            'tht/overcloud.yaml', b'heat_template_version: rocky\n'))
        self.images = self.write('mine/images.yaml',
                                 b'parameter_defaults: {Image: old}\n')
        self.clouds = self.write('home/.config/openstack/clouds.yaml',
                                 SECRET)
        self.run_as(OPERATOR, plan_commands.CreatePlan, 'p', '--templates',
                    self.tht, '--no-render', '-e', self.images)

    def run_as(self, user_id, command, *argv):
        """``command`` run as the Keystone user ``user_id``; its result."""
        self.app = fakes.make_app(
            {'object-store': fakes.SWIFT, 'orchestration': fakes.HEAT,
             'workflow': fakes.MISTRAL},
            auth=fakes.KeystoneUser(user_id, 'name-of-' + user_id))
        cmd = command(self.app, None)
        return cmd.take_action(cmd.get_parser('x').parse_args(list(argv)))

    def craft(self, entries, user='operator'):
        """A step written straight into the container, as anyone who can
        write it may: files with the sources it likes, in anyone's name."""
        head = self.store.reader.head('p')
        step = log.make_step('amend', {'files': entries})
        step['user'] = user
        self.store.writer.write_step('p', step, head)

    def prepare(self, user_id=OPERATOR, **origin_args):
        files = files_mod.PlanFiles(
            self.store.reader.head('p').state['templates'])
        files.origin = origin.Origin('p', user_id, **origin_args)
        services = operations.Services(
            self.store, fakes.heat_client(), fakes.HEAT, fakes.SWIFT, None,
            None, None, lambda line: None)
        return operations.prepare(services, 'deploy', 'p', files)

    def recorded(self, path):
        return self.store.reader.head('p').state['files'][path]

    def assertNotRead(self, prepared, path, reason):
        """``path``'s recorded source is listed with ``reason`` and no
        content of it is about to be written."""
        for data in prepared.change.objects().values():
            self.assertNotIn(b'S3CR3T', data)
        self.assertNotIn(path, prepared.resent)
        unread = {u.path: u.reason for u in prepared.unread}
        self.assertIn(path, unread)
        self.assertIn(reason, unread[path])


class TestCraftedSources(SourcesTestCase):

    def test_a_crafted_clouds_yaml_is_not_read(self):
        path = files_mod.user_path(self.clouds)
        self.craft({path: {'source': self.clouds, 'md5': '0' * 32}})
        prepared = self.prepare()
        self.assertNotRead(prepared, path, 'without a mark')
        self.assertNotIn(path, prepared.change.objects())

    def test_a_crafted_source_for_plan_environment_is_not_read(self):
        passwords = self.swift.objects[layout.PLAN_ENVIRONMENT][0]
        self.craft({layout.PLAN_ENVIRONMENT: {'source': self.clouds,
                                              'md5': '0' * 32}})
        prepared = self.prepare()
        self.assertNotRead(prepared, layout.PLAN_ENVIRONMENT,
                           'generated passwords')
        self.assertNotIn(layout.PLAN_ENVIRONMENT, prepared.change.objects())
        self.assertEqual(passwords,
                         self.swift.objects[layout.PLAN_ENVIRONMENT][0])

    def test_a_path_that_does_not_match_its_source_is_not_read(self):
        # Even with a mark the client made: a mark names its own path.
        mark = origin.Origin('p', OPERATOR).mark('user-files/x.yaml',
                                                 self.clouds)
        for path in ('user-files/x.yaml', 'environments/x.yaml'):
            self.craft({path: dict(mark, source=self.clouds,
                                   md5='0' * 32)})
        prepared = self.prepare()
        self.assertNotRead(prepared, 'user-files/x.yaml',
                           'stores no source')
        self.assertNotRead(prepared, 'environments/x.yaml',
                           'not under user-files/')

    def test_a_mark_copied_from_another_source_is_refused(self):
        path = files_mod.user_path(self.clouds)
        images = self.recorded(files_mod.user_path(self.images))
        self.assertTrue(images.get('tag'))
        self.craft({path: dict(images, source=self.clouds)})
        self.assertNotRead(self.prepare(), path,
                           'not recorded by this Keystone user')

    def test_the_command_tells_what_it_left_alone(self):
        path = files_mod.user_path(self.clouds)
        self.craft({path: {'source': self.clouds, 'md5': '0' * 32}})
        writes = len(self.swift.requests)
        preview = self.m.post(fakes.MISTRAL + '/action_executions',
                              status_code=201, json={
                                  'id': None, 'state': 'SUCCESS',
                                  'output': json.dumps({'result': {
                                      'operation': 'CREATE', 'nested': True,
                                      'resources': {}}})})
        names, values = self.run_as(OPERATOR, preview_commands.DeployPreview,
                                    '--stack', 'p')
        # Nothing of it reached Mistral's preview, nor Swift.
        request = json.loads(preview.last_request.json()['input'])
        self.assertNotIn(path, request['request']['overlay'] or {})
        self.assertNotIn('S3CR3T', json.dumps(request))
        self.assertEqual([], [r for r in self.swift.requests[writes:]
                              if r[0] not in ('GET', 'HEAD', 'LIST')])
        self.assertEqual(0, dict(zip(names, values))['objects_added'])
        err = self.app.stderr.getvalue()
        self.assertIn('1 recorded source(s) not read', err)
        self.assertIn('%s <- %s: recorded without a mark' % (
            path, self.clouds), err)

    def test_a_crafted_source_cannot_write_to_the_terminal(self):
        source = '/tmp/\x1b]0;owned\x07\x1b[2J/x.yaml'
        # (a plan path with one is a damaged record: plan.schema)
        self.craft({'user-files/y.yaml': {'source': source,
                                          'md5': '0' * 32}})
        lines = sources.told(self.prepare().unread)
        self.assertEqual(2, len(lines))
        self.assertNotIn('\x1b', ''.join(lines))
        self.assertNotIn('\x07', ''.join(lines))
        self.assertIn('\\x1b]0;owned', lines[1])


class TestWhoRecorded(SourcesTestCase):

    def change_images(self):
        self.write('mine/images.yaml', b'parameter_defaults: {Image: new}\n')
        return files_mod.user_path(self.images)

    def test_the_operators_own_changed_source_is_read_again(self):
        self.assertEqual(([], []), (self.prepare().resent,
                                    self.prepare().unread))
        path = self.change_images()
        prepared = self.prepare()
        self.assertEqual(([path], []), (prepared.resent, prepared.unread))
        self.assertIn(b'Image: new', prepared.change.objects()[path])

    def test_a_source_another_user_recorded_is_not_read(self):
        path = self.change_images()
        self.run_as('u-other', plan_commands.AmendPlan, 'p', '--no-render',
                    '-e', self.images)
        self.write('mine/images.yaml', b'parameter_defaults: {Image: 3}\n')
        self.assertNotRead(self.prepare(), path,
                           'not recorded by this Keystone user (%s)'
                           % OPERATOR)
        # Its own recorder reads it again.
        self.assertEqual([path], self.prepare('u-other').resent)

    def test_a_source_recorded_on_another_machine_is_not_read(self):
        path = self.change_images()
        self.assertNotRead(self.prepare(machine_digest='0' * 16), path,
                           'recorded on another machine')

    def test_without_the_key_nothing_is_read(self):
        path = self.change_images()
        self.assertNotRead(
            self.prepare(key_file=os.path.join(self.dir, 'none')), path,
            'no key here')
        key = origin.key_path()
        os.chmod(key, 0o644)
        self.assertNotRead(self.prepare(), path, 'chmod 600')

    def test_an_unmarked_source_is_marked_when_given_again(self):
        # As a client before marks recorded it: listed, not read.
        path = files_mod.user_path(self.images)
        self.craft({path: {'source': self.images,
                           'md5': self.recorded(path)['md5']}})
        self.assertNotRead(self.prepare(), path, 'without a mark')
        # Given again unchanged: the step records its mark.
        self.run_as(OPERATOR, plan_commands.AmendPlan, 'p', '--no-render',
                    '-e', self.images)
        self.assertTrue(self.recorded(path)['tag'])
        self.change_images()
        self.assertEqual([path], self.prepare().resent)

    def test_the_same_file_given_again_records_no_step(self):
        # The mark is the same: nothing to record again.
        result = self.run_as(OPERATOR, plan_commands.AmendPlan, 'p',
                             '--no-render', '-e', self.images)
        self.assertIn('nothing changed', self.app.stderr.getvalue())
        self.assertIsNotNone(result)

    def test_a_mark_names_no_secret(self):
        entry = self.recorded(files_mod.user_path(self.images))
        self.assertEqual({'source', 'md5', 'machine', 'tag', 'name'},
                         set(entry))
        self.assertEqual(self.images, entry['name'])
        with open(origin.key_path(), 'rb') as f:
            key = f.read().strip()
        stored = b''.join(d for d, _ in self.swift.objects.values())
        self.assertNotIn(key, stored)
        for name in ('/etc/machine-id', '/var/lib/dbus/machine-id'):
            if os.path.exists(name):
                with open(name, 'rb') as f:
                    ident = f.read().strip()
                if ident:
                    self.assertNotIn(ident, stored)
        self.assertEqual(0o600, os.stat(origin.key_path()).st_mode & 0o777)
        # The record's objects keep their shape (plan.schema).
        self.assertTrue(yaml.safe_load(self.swift.objects[
            sorted(n for n in self.swift.objects
                   if n.startswith(log.LOG_PREFIX))[-1]][0]))


class TestGone(SourcesTestCase):

    def test_a_gone_source_is_told_and_its_stored_copy_stands(self):
        path = files_mod.user_path(self.images)
        stored = self.swift.objects[path][0]
        os.remove(self.images)
        prepared = self.prepare()
        self.assertEqual([], prepared.resent)
        self.assertEqual([(path, sources.GONE)],
                         [(u.path, u.reason) for u in prepared.unread])
        self.assertEqual(stored, self.swift.objects[path][0])
        self.assertEqual(
            ["1 recorded source(s) gone from this machine; the plan's "
             "stored copies are used:", '  %s (%s)' % (self.images, path)],
            sources.told(prepared.unread))

    def test_an_upload_is_not_read_while_its_environment_is_gone(self):
        # it may be a file the environment references: not comparable
        upload = self.write('mine/data.txt', b'one\n')
        self.run_as(OPERATOR, plan_commands.AmendPlan, 'p', '--no-render',
                    '--upload-file', upload)
        self.write('mine/data.txt', b'two\n')
        os.remove(self.images)
        prepared = self.prepare()
        self.assertEqual([], prepared.resent)
        self.assertEqual([files_mod.user_path(self.images)],
                         [u.path for u in prepared.unread])
