"""Hidden stays hidden (issue 26): a parameter the templates declare
hidden, whose name says nothing secret, set by a GUI through the
parameters_set workflow (its value staged in the plan, never in Mistral)
and by the CLI (the action run on its own, unsaved), is in no Mistral
workflow execution, task or action execution, in no answer, in no
recorded step, and ``plan diff``, ``parameters show`` and
``show-history`` mask it; a command line a client sends with
abbreviated secret options is recorded masked.
"""

import json
import urllib.parse
import uuid

from tests.functional import base

TEMPLATES = {
    'overcloud.yaml': '''heat_template_version: rocky
parameters:
  HashSuffix: {type: string, hidden: true, default: unset}
  Needed: {type: string, default: x}
resources:
  r: {type: OS::Heat::None}
''',
    'roles_data.yaml': '- name: Controller\n',
}
STAGED = 'staged-parameters/'


class TestHiddenStaysHidden(base.PlanTest):

    TEMPLATES = TEMPLATES
    PREFIX = 'hidden'

    def workflow(self, request):
        """A workflow execution started as a GUI starts it: ``(id,
        state, state_info)`` once it ended."""
        execution, shown = self.gui_workflow('parameters_set', request,
                                             timeout=120)
        return execution, shown['State'], shown['State info']

    def mistral(self):
        """Every workflow execution, task and action execution Mistral
        keeps for this project, each with its input, output, published
        values and state info: ``{(kind, id): text}``. The CLI lists
        them; their bodies come from the API (the CLI shows each one's
        input and output one command at a time)."""
        listed = {
            ('execution', e['ID']) for e in self.openstack_json(
                'workflow', 'execution', 'list', '--limit', '-1')}
        listed |= {
            ('action', a['ID']) for a in self.openstack_json(
                'action', 'execution', 'list', '--limit', '-1')}
        url = self.env['LOOPBACK_MISTRAL_URL'].rstrip('/')
        token = self.session.get_token() if self.session else 'none'
        found = {}
        paths = {'execution': 'executions', 'action': 'action_executions',
                 'task': 'tasks'}
        for kind, query in (('execution', {'include_output': 'true'}),
                            ('action', {'include_output': 'true'}),
                            ('task', {})):
            key = paths[kind]
            first = page = '%s/%s?%s' % (url, key, urllib.parse.urlencode(
                dict(query, limit=500)))
            restarts = 0
            while page:
                status, body = base.http('GET', page, token=token)
                if status == 404 and page != first and restarts < 5:
                    # The page's marker (the last item of the page
                    # before) was deleted meanwhile by its owner (another
                    # test's: hardening/test_trust deletes the workflow
                    # executions it made, their tasks and actions with
                    # them): Mistral refuses an unknown marker. Again.
                    page, restarts = first, restarts + 1
                    continue
                self.assertEqual(200, status, body)
                body = json.loads(body)
                for item in body[key]:
                    found[(kind, item['id'])] = item
                page = body.get('next') if body[key] else None
        # Every record the CLI listed is in the pages, unless it was
        # deleted since (as above): Mistral no longer has it at all.
        missing = {(kind, i) for kind, i in listed - set(found)
                   if base.http('GET', '%s/%s/%s' % (url, paths[kind], i),
                                token=token)[0] != 404}
        self.assertEqual(set(), missing)
        return found

    @staticmethod
    def of_execution(kept, execution):
        """The keys of ``kept`` that belong to workflow ``execution``."""
        tasks = {i for (k, i), item in kept.items() if k == 'task' and
                 item.get('workflow_execution_id') == execution}
        return {('execution', execution)} | {('task', i) for i in tasks} | {
            ('action', i) for (k, i), item in kept.items()
            if k == 'action' and item.get('task_execution_id') in tasks}

    def test_a_gui_and_the_cli_set_a_hidden_parameter(self):
        from tripleoplanclient import protocol
        mark = uuid.uuid4().hex[:10]
        gui, cli, inline = ('%s-value-%s' % (who, mark)
                            for who in ('gui', 'cli', 'inline'))
        password, token = 'pw-%s' % mark, 'tok-%s' % mark
        # The GUI stages the values in the plan, then starts the workflow.
        staged = '%sgui-%s.yaml' % (STAGED, mark)
        status, _, _ = self.swift.request(
            'PUT', '%s/%s' % (self.plan, staged),
            data=('HashSuffix: %s\n' % gui).encode())
        self.assertEqual(201, status)
        execution, state, info = self.workflow(protocol.request(
            'parameters_set', container=self.plan, staged=staged,
            assignments=['Needed=gui'], command=[
                '--os-passw', password, '--os-tok', token, 'overcloud',
                'plan', 'parameters', 'set', self.plan, 'Needed=gui']))
        self.assertEqual('SUCCESS', state, info)
        self.assertNotIn(staged, self.swift.listing(self.plan))
        self.assertIn(gui.encode(), self.swift.get(self.plan,
                                                   'plan-parameters.yaml'))
        # A hidden value in the workflow's own input is refused, unechoed.
        refused, state, info = self.workflow(protocol.request(
            'parameters_set', container=self.plan,
            assignments=['HashSuffix=' + inline]))
        self.assertEqual('ERROR', state)
        self.assertIn(STAGED, info)
        # The CLI runs the action on its own: nothing saved in Mistral.
        self.openstack('overcloud', 'plan', 'parameters', 'set', self.plan,
                       'HashSuffix=' + cli)
        self.assertIn(cli.encode(), self.swift.get(self.plan,
                                                   'plan-parameters.yaml'))
        kept = self.mistral()
        self.assertIn(('execution', execution), kept)
        where = self.of_execution(kept, refused)
        for key, item in kept.items():
            text = json.dumps(item)
            for value in (gui, cli):
                self.assertNotIn(value, text, key)
            # The refused value: only where the client put it, in the
            # refused request, never echoed in an answer or an error.
            if inline in text:
                self.assertIn(key, where)
                self.assertNotIn(inline, json.dumps(
                    {k: v for k, v in item.items() if k != 'input'}))
        # Nor in Mistral's log (the API logs requests, the executor
        # actions).
        log = self.env.get('LOOPBACK_MISTRAL_LOG')
        if log:
            with open(log, errors='replace') as f:
                text = f.read()
            for value in (gui, cli):
                self.assertNotIn(value, text)
        # The record, show-history, parameters show and plan diff.
        for name, md5 in self.swift.listing(self.plan).items():
            if name == 'plan-parameters.yaml' or name.startswith(
                    'user-environments/kept/'):
                continue    # the values themselves, and past ones
            data = self.swift.get(self.plan, name)
            for value in (gui, cli, password, token):
                self.assertNotIn(value.encode(), data, name)
        commands = [s['command'] for s in
                    self.plan_record(self.plan)['history'][-2:]]
        self.assertIn('--os-passw *** --os-tok ***', commands[0])
        self.assertIn('HashSuffix=***', commands[1])
        history = json.dumps(self.openstack_json(
            'overcloud', 'plan', 'show-history', self.plan))
        rows = {r['name']: r for r in self.openstack_json(
            'overcloud', 'plan', 'parameters', 'show', self.plan)}
        self.assertEqual('******', rows['HashSuffix']['value'])
        diff = self.openstack_json('overcloud', 'plan', 'diff', self.plan,
                                   '--from', '1')
        self.assertEqual({'change': 'added', 'new': '***'},
                         diff['parameters_changed']['HashSuffix'])
        between = self.openstack_json('overcloud', 'plan', 'diff',
                                      self.plan, '--from', '2', '--to', '3')
        self.assertEqual({'change': 'changed', 'old': '***', 'new': '***'},
                         between['parameters_changed']['HashSuffix'])
        for text in (history, json.dumps(rows), json.dumps(diff),
                     json.dumps(between)):
            for value in (gui, cli, inline, password, token):
                self.assertNotIn(value, text)
        print('Mistral records scanned: %d (%d workflow executions, %d '
              'tasks, %d action executions)' % (
                  len(kept), *(sum(1 for k, _ in kept if k == kind)
                               for kind in ('execution', 'task', 'action'))))
