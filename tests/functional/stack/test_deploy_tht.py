"""The real thing: a tripleo-heat-templates 17.0.0 overcloud upgraded to
18.0.0.

Deployed servers (1 controller, 1 compute: the loopback sshd's servers
127.0.0.2 and 127.0.0.3), rendered in Mistral, created with 17.0.0,
configured again (``update --config-download-only``) and upgraded to
18.0.0 by the loopback Heat: several minutes. Each stack step runs its
config-download playbooks on the servers (as the loopback's Mistral
configures it: become off, the tags no server here can run skipped);
at the end ``config download`` of the upgraded stack is compared with
tripleo-common 18.0.0's download, file for file. Deleting that stack
takes Heat minutes more, so the test only starts the delete; the next
run finishes it and removes the plan (a fixed name) before it begins.
"""

import json
import os
import subprocess
import sys
import time

import yaml

from tests.functional import base
from tests.functional.config import tripleo_common_parity as parity

UPGRADE_PREPARE = 'environments/lifecycle/upgrade-prepare.yaml'
NEW_IN_18 = 'ContainerGlanceApiInternalConfigImage'
GONE_IN_18 = 'environments/neutron-ml2-vpp.yaml'
PLAN = 'tht-story'
SERVERS = {'overcloud-controller-0', 'overcloud-novacompute-0'}


def loopback_skip_tags():
    """The tags the loopback's Mistral configuration skips."""
    sys.path.insert(0, os.path.join(base.REPO, 'tools'))
    from loopback import mistral
    return list(mistral.CONFIG_SKIP_TAGS)


def _strings(data):
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)
    else:
        yield str(data)


class TestTHTDeployUpgrade(base.FunctionalTest):

    def setUp(self):
        super().setUp()
        self.tht = base.tht_dir('18.0.0')
        self.plan = PLAN
        self.remove(wait=True)
        self.addCleanup(self.remove, wait=False)

    def remove(self, wait):
        subprocess.run(['openstack', 'stack', 'delete', '-y', self.plan] +
                       (['--wait'] if wait else []), env=self.env,
                       capture_output=True, timeout=900)
        if wait:
            subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                            self.plan], env=self.env, capture_output=True)
            self.assertIsNone(self.swift.listing(self.plan))

    def assert_configured(self, row, playbooks):
        """The step ran ``playbooks`` in turn, each running tasks on both
        servers, with the loopback's skip tags; its part's numbers."""
        config = row.get('config') or {}
        self.assertEqual(('SUCCESS', 'SUCCESS'), (
            config.get('status'), row['outcome'].get('config_status')),
            config)
        self.assertEqual(playbooks, [r['playbook'] for r in config['runs']])
        self.assertEqual(['SUCCESS'] * len(playbooks),
                         [r['status'] for r in config['runs']])
        self.assertEqual([], [r['playbook'] for r in config['runs']
                              if not r['tasks']['ran'] > 0])
        self.assertEqual(loopback_skip_tags(), config['skip_tags'])
        # both servers reached over SSH (the loopback sshd's 127.0.0.2
        # and .3), none unreachable, nothing failed
        hosts = config['hosts']
        self.assertLessEqual(SERVERS, set(hosts))
        self.assertEqual([], [h for h in SERVERS if not hosts[h]['ok']])
        self.assertEqual([], [h for h, c in hosts.items()
                              if c['failed'] or c['unreachable']])
        return {r['playbook']: dict(r['tasks'], s=r['duration'])
                for r in config['runs']}

    def test_deploy_17_then_upgrade_to_18_without_environment_files(self):
        tht17, tht18 = base.tht_dir('17.0.0'), self.tht
        servers = os.path.join(base.FIXTURES, 'tht18-deployed-server.yaml')
        with open(os.path.join(base.FIXTURES,
                               'tht18-container-images.yaml')) as f:
            images18 = f.read()
        # 17.0.0 lacks the one image parameter 18.0.0 requires.
        images = self.write('images.yaml', ''.join(
            line for line in images18.splitlines(True)
            if NEW_IN_18 not in line))
        # the playbooks' plays name the stack's group
        root = self.write('root-stack-name.yaml',
                          'parameter_defaults:\n  RootStackName: %s\n'
                          % self.plan)
        # a token of now, for the end: it expired by then (with Keystone,
        # run with 120 s tokens: tools/run-tests.sh)
        early_token = self.session.get_token() if self.session else None
        started = time.monotonic()
        created = self.openstack_json(
            'overcloud', 'deploy', '--stack', self.plan, '--templates',
            tht17, '-e', os.path.join(
                tht17, 'overcloud-resource-registry-puppet.yaml'),
            '-e', servers, '-e', images, '-e', root, timeout=1800)
        created_s = time.monotonic() - started
        environments = ['overcloud-resource-registry-puppet.yaml'] + [
            'user-files' + path for path in (servers, images, root)]
        self.assertEqual(('CREATE', 'CREATE_COMPLETE', 'SUCCESS'), (
            created['operation'], created['stack_status'],
            created['status']))
        self.assertEqual(environments, created['environments'])
        self.assertTrue(created['rendered'])

        # The same servers configured again, Heat not asked: the update's
        # playbooks, then the deploy's.
        started = time.monotonic()
        reconfigured = self.openstack_json(
            'overcloud', 'update', '--stack', self.plan,
            '--config-download-only', '-y', timeout=1800)
        reconfigured_s = time.monotonic() - started
        self.assertEqual('SUCCESS', reconfigured['status'], reconfigured)

        # The operator regenerates the images file for 18.0.0, same path.
        self.write('images.yaml', images18)
        before = self.resources(self.plan)
        # What the upgrade would do, Heat's answer included: nothing changes.
        snapshot = self.snapshot(self.plan)
        started = time.monotonic()
        out, err = self.openstack(
            'overcloud', 'upgrade', 'preview', '--stack', self.plan,
            '--templates', tht18, '-f', 'json', timeout=900)
        preview_s = time.monotonic() - started
        preview = json.loads(out)
        self.assertEqual(snapshot, self.snapshot(self.plan))
        self.assertEqual(('UPDATE', '18.0.0'), (preview['heat_operation'],
                                                preview['templates']))
        self.assertEqual(['user-files' + images], preview['files_changed'])
        self.assertIn('user-files%s (its local source changed' % images, err)
        self.assertGreater(preview['objects_removed'], 0)
        top = self.plan + '/'
        previewed = {kind: sorted(r[len(top):] for r in preview[
            'resources_' + kind] if r.startswith(top) and '/' not in
            r[len(top):]) for kind in ('added', 'replaced', 'deleted')}
        started = time.monotonic()
        upgraded = self.openstack_json(
            'overcloud', 'upgrade', '--stack', self.plan, '--templates',
            tht18, '-y', timeout=1800)
        upgraded_s = time.monotonic() - started
        self.assertEqual(('UPDATE', 'UPDATE_COMPLETE', 'SUCCESS'), (
            upgraded['operation'], upgraded['stack_status'],
            upgraded['status']))
        self.assertEqual([UPGRADE_PREPARE] + environments,
                         upgraded['environments'])
        self.assertEqual(created['stack_id'], upgraded['stack_id'])
        self.assertTrue(upgraded['rendered'])
        after = self.resources(self.plan)
        happened = {
            'added': sorted(set(after) - set(before)),
            'deleted': sorted(set(before) - set(after)),
            'replaced': sorted(n for n in set(before) & set(after)
                               if before[n] != after[n])}
        # Heat did at the top level what it previewed.
        self.assertEqual(previewed, happened)

        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual(['create', 'deploy', 'update', 'upgrade'],
                         [s['action'] for s in history])
        expiration = int(self.env.get('LOOPBACK_KEYSTONE_TOKEN_EXPIRATION',
                                      0))
        if self.session:
            self.assertEqual([('admin', 'admin')] * 4,
                             [(s['user'], s['project']) for s in history])
        if self.session and time.monotonic() - started > expiration + 10:
            # every token of the story's start expired during it, and the
            # record is whole; such a token now is a clear error
            env = self.cloud_env('expired', auth_type='v3token', auth={
                'username': None, 'password': None,
                'user_domain_name': None, 'token': early_token})
            _, err = self.openstack('overcloud', 'plan', 'show-history',
                                    self.plan, fail=True, env=env)
            self.assertIn('does not accept the token of cloud "expired"',
                          err)
        self.assertEqual(['17.0.0', '17.0.0', '17.0.0', '18.0.0'],
                         [s['templates'] for s in history])
        self.assertEqual(['SUCCESS'] * 4,
                         [s['outcome']['status'] for s in history])
        self.assertEqual(['CREATE_COMPLETE', 'UPDATE_COMPLETE'],
                         [history[i]['outcome']['stack_status']
                          for i in (1, 3)])
        record = self.plan_record(self.plan)
        rows = record['history']
        print(json.dumps({'config': [r.get('config') for r in rows[1:]]}))
        configured = {
            'deploy': self.assert_configured(rows[1], [
                'deploy_steps_playbook.yaml']),
            'update': self.assert_configured(rows[2], [
                'update_steps_playbook.yaml', 'deploy_steps_playbook.yaml']),
            'upgrade': self.assert_configured(rows[3], [
                'upgrade_steps_playbook.yaml', 'deploy_steps_playbook.yaml',
                'post_upgrade_steps_playbook.yaml'])}
        self.assertEqual(UPGRADE_PREPARE, rows[3]['lifecycle'])
        self.assertEqual({'step': history[0]['id'], 'rendered': True},
                         record['history'][1]['plan_created'])
        self.assertEqual(environments, record['environments'])
        # The plan holds 18.0.0 now: what 17.0.0 had and 18.0.0 has not is
        # gone (kept for the earlier steps), user files stayed.
        listing = self.swift.listing(self.plan)
        self.assertNotIn(GONE_IN_18, listing)
        self.assertIn('user-files' + images, listing)
        self.assertIn(NEW_IN_18, self.swift.get(
            self.plan, 'user-files' + images).decode())
        # 18.0.0 needs one password 17.0.0 did not: generated on the way.
        passwords = yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords']
        self.assertIn('CinderSvfSanPassword', passwords)

        heat = base.Swift(self.env['LOOPBACK_HEAT_URL'], self.session)
        where = 'stacks/%s/%s/' % (self.plan, created['stack_id'])
        seen = {}
        for part in ('files', 'environment'):
            status, _, body = heat.request(
                'GET', where + part, headers={'Accept': 'application/json'})
            self.assertEqual(200, status)
            seen[part] = json.loads(body)
        # Heat's environment is the merge of every recorded file and the
        # lifecycle file: a value from each is there.
        defaults = seen['environment']['parameter_defaults']
        self.assertEqual('retain', defaults['ServerDeletionPolicy'])
        self.assertIn(NEW_IN_18, defaults)
        self.assertEqual(1, defaults['ControllerCount'])
        self.assertEqual('OS::Heat::None', seen['environment'][
            'resource_registry']['resources'].get(
                'OS::TripleO::Tasks::*PreConfig') or seen['environment'][
            'resource_registry'].get('OS::TripleO::Tasks::*PreConfig'))
        # Heat has every generated password only as a hidden parameter of
        # the stack's environment: in no file of the stack, masked there.
        self.assertIn('AdminPassword', passwords)
        self.assertEqual('******', seen['environment'][
            'parameter_defaults']['AdminPassword'])
        # Every string in them, decoded (keys hold newlines).
        seen = {part: '\n'.join(_strings(data))
                for part, data in seen.items()}
        self.assertEqual([], [name for name, value in passwords.items()
                              if str(value) in seen['files']])
        # Only those the stack's templates declare reach it (hidden, so
        # masked), but one THT 18 declares a plain string (an id).
        self.assertLessEqual(set(
            name for name, value in passwords.items()
            if str(value) in seen['environment']), {'CephClusterFSID'})
        # The configuration of the upgraded stack, as `config download`
        # writes it, is tripleo-common 18.0.0's, file for file.
        started = time.monotonic()
        compared, differences = parity.compare(self, self.plan)
        parity_s = time.monotonic() - started
        self.assertEqual([], differences)
        self.assertGreater(compared, 300)
        print(json.dumps({
            'parity_files': compared, 'parity_s': round(parity_s, 1),
            'create_s': round(created_s), 'upgrade_s': round(upgraded_s),
            'reconfigure_s': round(reconfigured_s), 'configured': configured,
            'preview_s': round(preview_s),
            'previewed': {k: len(preview['resources_' + k]) for k in (
                'added', 'updated', 'replaced', 'deleted')},
            'previewed_unchanged': preview['resources_unchanged'],
            'nested_detail': preview['nested_detail'],
            'top_level_happened': {k: len(v) for k, v in happened.items()},
            'objects_removed': preview['objects_removed'],
            'token_expiration_s': expiration}))
