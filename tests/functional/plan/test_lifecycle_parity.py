"""Plan create, amend, list and delete through Mistral's API, as a GUI
would drive them, next to the real CLI: the same recorded steps, and the
delete refused by the action while a stack of the plan's name exists.

The GUI writes the files to Swift itself (plain PUTs), then starts our
workflow with what it wrote; the CLI writes its files in one pass and
runs the same action.
"""

import hashlib
import json
import os
import time
import uuid

from tests.functional import base
from tests.functional import library_base

REGISTRY = 'overcloud-resource-registry-puppet.yaml'
EXTRA = 'parameter_defaults:\n  Needed: from-an-amend\n'
STACK = ('heat_template_version: rocky\n'
         'resources:\n  r: {type: OS::Heat::None}\n')


class TestLifecycleParity(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'),
                                        library_base.TEMPLATES)

    def execution(self, name, fields, ok=True):
        """A workflow execution of ours, started as a GUI starts one: its
        ``(state, output or state info)``."""
        from tripleoplanclient import protocol
        execution, shown = self.gui_workflow(
            name, protocol.request(name, **fields))
        self.assertEqual('SUCCESS' if ok else 'ERROR', shown['State'],
                         shown.get('State info'))
        if not ok:
            return shown['State info']
        out, _ = self.openstack('workflow', 'execution', 'output', 'show',
                                execution)
        return json.loads(out)[name]

    def put(self, plan, objects):
        """What a GUI does first: the files, PUT one by one."""
        status, _, _ = self.swift.request('PUT', plan)
        self.assertIn(status, (201, 202))
        for name, text in objects.items():
            status, _, _ = self.swift.request('PUT', '%s/%s' % (plan, name),
                                              text.encode())
            self.assertEqual(201, status, name)
        return {n: hashlib.md5(t.encode()).hexdigest()
                for n, t in objects.items()}

    def tree(self, plan, state):
        from swiftclient import client as swift_client

        from tripleoplanclient.record import plan_store
        url = self.env['LOOPBACK_SWIFT_URL']
        token = self.session.get_token() if self.session else 'functional'
        return plan_store.PlanStore(lambda: swift_client.Connection(
            preauthurl=url, preauthtoken=token)).container.view(
                plan, state['tree']).full()

    def test_create_amend_list_delete_like_the_cli(self):
        gui, cli = ('life%s-%s' % (who, uuid.uuid4().hex[:8])
                    for who in ('gui', 'cli'))
        for plan in (gui, cli):
            self.addCleanup(base.subprocess.run, [
                'openstack', 'overcloud', 'plan', 'delete', '-y', plan],
                env=self.env, capture_output=True)

        # create: the GUI's files, then the workflow; the CLI's command
        tree = self.put(gui, library_base.TEMPLATES)
        result = self.execution('plan_create', dict(
            container=gui, environments=[REGISTRY], tree=tree))
        self.assertEqual(('create', 'SUCCESS', len(tree) + 1),
                         (result['action'], result['status'],
                          result['added']))
        self.openstack('overcloud', 'plan', 'create', cli, '--templates',
                       self.templates, '-e',
                       os.path.join(self.templates, REGISTRY))
        theirs, ours = self.plan_record(gui), self.plan_record(cli)
        for key in ('environments', 'files', 'inputs', 'created',
                    'render'):
            self.assertEqual(base.unmarked(ours[key], key), theirs[key], key)
        self.assertEqual('mistral action tripleoplan.plan_create',
                         theirs['history'][0]['command'])
        self.assertEqual(ours['history'][0]['user'],
                         theirs['history'][0]['user'])
        # the same tree but for the generated passwords
        mine, yours = self.tree(cli, ours), self.tree(gui, theirs)
        self.assertEqual(sorted(mine), sorted(yours))
        self.assertEqual(['plan-environment.yaml'],
                         [p for p in mine if mine[p] != yours[p]])
        self.assertIn(b'AdminPassword:',
                      self.swift.get(gui, 'plan-environment.yaml'))

        # amend: a user file, with the CLI's local source
        local = self.write('extra-%s.yaml' % gui, EXTRA)
        path = 'user-files' + local
        self.put(gui, {path: EXTRA})
        md5 = hashlib.md5(EXTRA.encode()).hexdigest()
        result = self.execution('plan_amend', dict(
            container=gui, add=[path], tree={path: md5},
            files={path: {'source': local, 'md5': md5}}))
        self.assertEqual(('amend', [REGISTRY, path]),
                         (result['action'], result['environments']))
        self.openstack('overcloud', 'plan', 'amend', cli, '-e', local)
        theirs, ours = self.plan_record(gui), self.plan_record(cli)
        for key in ('environments', 'files', 'inputs', 'render'):
            self.assertEqual(base.unmarked(ours[key], key), theirs[key], key)
        # the CLI's sources carry its marks (record.origin), the GUI's none
        self.assertTrue(ours['files'][path].get('tag'))
        self.assertNotIn('tag', theirs['files'][path])
        self.assertEqual([('create', 'SUCCESS'), ('amend', 'SUCCESS')],
                         [(r['action'], r['outcome']['status'])
                          for r in theirs['history']])
        self.assertEqual(md5, self.tree(gui, theirs)[path])
        # nothing new: no step
        result = self.execution('plan_amend', dict(
            container=gui, add=[path], tree={path: md5},
            files={path: {'source': local, 'md5': md5}}))
        self.assertEqual('UNCHANGED', result['status'])
        self.assertEqual(2, len(self.plan_record(gui)['history']))

        # list: the same rows
        listed = {p['name']: p for p in self.execution('plan_list', {})[
            'plans']}
        shown = {r['Plan']: r for r in self.openstack_json(
            'overcloud', 'plan', 'list')}
        for plan in (gui, cli):
            self.assertEqual((shown[plan]['Objects'], shown[plan]['Bytes']),
                             (listed[plan]['objects'],
                              listed[plan]['bytes']))

        # delete: refused by the action while a stack has the plan's name
        stack = self.write('stack-%s.yaml' % gui, STACK)
        self.openstack('stack', 'create', '--wait', '-t', stack, gui)
        self.addCleanup(base.subprocess.run, [
            'openstack', 'stack', 'delete', '-y', '--wait', gui],
            env=self.env, capture_output=True)
        before = self.snapshot(gui)
        info = self.execution('plan_delete', dict(containers=[gui, cli]),
                              ok=False)
        self.assertIn('Stack %s exists: delete the stack before its plan. '
                      'Nothing was deleted.' % gui, info)
        self.fail_with('Stack %s exists' % gui, 'overcloud', 'plan',
                       'delete', '-y', cli, gui)
        self.assertEqual(before, self.snapshot(gui))
        self.assertIsNotNone(self.snapshot(cli))
        self.openstack('stack', 'delete', '-y', '--wait', gui)
        result = self.execution('plan_delete', dict(containers=[gui]))
        self.assertEqual(([gui], True),
                         ([p['name'] for p in result['plans']],
                          result['deleted']))
        self.assertIsNone(self.swift.listing(gui))
        _, err = self.openstack('overcloud', 'plan', 'delete', '-y', cli)
        self.assertIn('Deleted plan %s' % cli, err)
        self.assertIsNone(self.swift.listing(cli))

    def test_a_client_killed_once_mistral_has_the_create_is_on_record(self):
        plan = 'lifekill-%s' % uuid.uuid4().hex[:8]
        self.addCleanup(base.subprocess.run, [
            'openstack', 'overcloud', 'plan', 'delete', '-y', plan],
            env=self.env, capture_output=True)
        # The files are written and Mistral has the request: the client
        # dies before it sees the answer.
        self.killed_once_started(
            'overcloud', 'plan', 'create', plan, '--templates',
            self.templates, '-e', os.path.join(self.templates, REGISTRY))
        deadline = time.monotonic() + 120
        history = []
        while time.monotonic() < deadline:
            found = self.swift.listing(plan, 'user-environments/log/')
            if found:
                history = self.plan_record(plan)['history']
                break
            time.sleep(0.5)
        self.assertEqual([('create', 'SUCCESS')],
                         [(r['action'], r['outcome']['status'])
                          for r in history])
        self.assertEqual([REGISTRY], self.plan_record(plan)['environments'])
        self.assertIn(b'AdminPassword:',
                      self.swift.get(plan, 'plan-environment.yaml'))
