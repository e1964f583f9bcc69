"""No lost update (issue 27): 8 ``parameters set`` of different names and
8 ``capabilities set`` of different environment files, all started at
once on one plan, against the real Swift, Mistral and Heat. Every value
and file a command reported as set is in the plan afterwards: in
``plan-parameters.yaml`` as a script downloads it, in ``parameters show``
(Heat's merge of what a deploy sends), in the record and in
``environments.yaml``; a hidden value in none of the record's objects.

Also run on a Swift of three replicas with an object server down
(``FUNCTIONAL_SWIFT_URL``, tools/run-tests.sh).
"""

import json
import subprocess
import threading
import time
import uuid

import yaml

from tests.functional import base

WRITERS = 8
# seconds a reader may take to list every step (see capabilities_race)
CONVERGE = 30
HIDDEN = 'P%d' % (WRITERS - 1)
ROOT = 'overcloud-resource-registry-puppet.yaml'
# The other capabilities: one environment file each, none in conflict.
CAPS = ['environments/cap%d.yaml' % i for i in range(1, WRITERS)]

TEMPLATES = dict({
    'overcloud.yaml': 'heat_template_version: rocky\nparameters:\n%s'
                      'resources:\n  r: {type: OS::Heat::None}\n' % ''.join(
                          '  P%d: {type: string, default: d%s}\n' % (
                              i, ', hidden: true' if 'P%d' % i == HIDDEN
                              else '') for i in range(WRITERS)),
    ROOT: 'resource_registry: {}\n',
    'sample-env-generator/caps.yaml': '''environments:
  - name: cap1
    title: Capability 1
    description: The first capability.
    files: {}
''',
}, **{path: '# title: Capability %d\nparameter_defaults:\n  Cap%d: on\n'
      % (i, i) for i, path in enumerate(CAPS, 1)})


def _at_once(env, commands):
    """Start every ``openstack`` command at once: ``[(rc, out, err)]``."""
    procs = [subprocess.Popen(
        ['openstack'] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env, stdin=subprocess.DEVNULL) for cmd in commands]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        results.append((proc.returncode, out, err))
    return results


class TestConcurrentSettings(base.PlanTest):
    """Through the CLI (this loopback Mistral happens to run the actions
    one at a time: their steps come out in turn) and through the action
    bodies run side by side, as a Mistral of several executors runs
    them."""

    TEMPLATES = TEMPLATES
    PREFIX = 'conc'

    def new_plan(self):
        plan = 'conc-%s' % uuid.uuid4().hex[:8]
        self.openstack('overcloud', 'plan', 'create', plan, '--templates',
                       self.templates, '--no-render')
        self.addCleanup(self.openstack, 'overcloud', 'plan', 'delete', '-y',
                        plan)
        return plan

    def reported(self, results):
        """The results of the commands that reported a step: their index
        and step id (a refused command says so, leaving nothing)."""
        out = {}
        for i, (rc, stdout, stderr) in enumerate(results):
            self.assertNotIn('Traceback', stderr)
            if rc != 0:
                self.assertEqual('', stdout)
                self.assertTrue(stderr.strip())
                continue
            result = json.loads(stdout)
            self.assertEqual('SUCCESS', result['status'], stderr)
            out[i] = result['id']
        return out

    def executors(self, plan, name, requests):
        """Our action ``name``'s body run for each request's fields at
        once, each in a thread of its own (a Mistral executor), on the
        real Swift and Heat as this user: ``[(rc, json, error)]`` as the
        CLI would end."""
        from heatclient import client as heat_client
        from swiftclient import client as swift_client

        from tripleoplanclient.common import exceptions
        from tripleoplanclient.mistral import library
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import settings
        from tripleoplanclient import protocol
        from tripleoplanclient.record import plan_store

        swift_url = self.env['LOOPBACK_SWIFT_URL']
        heat_url = self.env['LOOPBACK_HEAT_URL']
        token = self.session.get_token() if self.session else 'functional'
        start = threading.Barrier(len(requests))
        results = [None] * len(requests)

        def run(i):
            local = threading.local()

            def connect():
                if not hasattr(local, 'conn'):
                    local.conn = swift_client.Connection(
                        preauthurl=swift_url, preauthtoken=token)
                return local.conn

            store = plan_store.PlanStore(connect)
            req = protocol.read(name, protocol.request(
                name, container=plan, swift_url=swift_url, **dict(
                    requests[i], **({'heat_url': heat_url}
                                    if name == 'parameters_set' else {}))))
            start.wait()
            try:
                found = library.Plan(store, req, objects.ContentCache())
                if name == 'parameters_set':
                    heat = heat_client.Client('1', endpoint=heat_url,
                                              token=token)
                    result = settings.set_parameters(store, found, heat,
                                                     req)
                else:
                    result = settings.set_capabilities(store, found, req)
                results[i] = (0, json.dumps(result), '')
            except exceptions.CommandError as exc:
                results[i] = (1, '', str(exc))

        threads = [threading.Thread(target=run, args=(i,))
                   for i in range(len(requests))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        return results

    def downloaded(self, plan):
        data = self.swift.get(plan, 'plan-parameters.yaml')
        return (yaml.safe_load(data) or {}).get('parameter_defaults') or {} \
            if data is not None else {}

    def parameters_race(self, executors):
        plan = self.new_plan()
        # One value set before: it stays through the race.
        self.openstack('overcloud', 'plan', 'parameters', 'set', plan,
                       'P0=before')
        secret = 'hidden-%s' % uuid.uuid4().hex
        values = {'P%d' % i: 'v%d-%s' % (i, uuid.uuid4().hex[:6])
                  for i in range(1, WRITERS)}
        values[HIDDEN] = secret
        values['P0'] = None         # taken out again by writer 0
        names = sorted(values)
        assignments = ['%s=%s' % (n, '' if values[n] is None else values[n])
                       for n in names]
        if executors:
            results = self.executors(plan, 'parameters_set', [
                {'assignments': [a], 'command': [
                    'overcloud', 'plan', 'parameters', 'set', plan, a]}
                for a in assignments])
        else:
            results = _at_once(self.env, [
                ['overcloud', 'plan', 'parameters', 'set', plan, a, '-f',
                 'json'] for a in assignments])
        reported = self.reported(results)
        wanted = {names[i]: values[names[i]] for i in reported}

        def kept(found):
            return {n: v for n, v in wanted.items()
                    if found.get(n) == v or (v is None and n not in found)}

        # As a script downloads the file right after the last command.
        survived = kept(self.downloaded(plan))
        print('\n%d parameters set at once (%s): %d reported set, %d in %s '
              'as downloaded' % (WRITERS, 'executors' if executors else
                                 'CLI', len(reported), len(survived),
                                 'plan-parameters.yaml'))
        self.assertEqual(wanted, survived)
        # Heat's merge of what a deploy sends (hidden values masked).
        rows = {r['name']: r['value'] for r in self.openstack_json(
            'overcloud', 'plan', 'parameters', 'show', plan)}
        for name, value in wanted.items():
            if name != HIDDEN:
                self.assertEqual(value, rows[name], name)
        self.assertNotEqual(secret, rows[HIDDEN])
        self.assertEqual(wanted, kept(self.downloaded(plan)))
        # Every step on record; the hidden value in none of its objects.
        record = self.plan_record(plan)
        ids = [row['id'] for row in record['history']]
        self.assertLessEqual(set(reported.values()), set(ids))
        for name in self.swift.listing(plan, 'user-environments/'):
            if name.startswith(('user-environments/log/',
                                'user-environments/environments.yaml',
                                'user-environments/outcomes/')):
                self.assertNotIn(secret.encode(), self.swift.get(plan, name),
                                 name)
        out, _ = self.openstack('overcloud', 'plan', 'show-history', plan,
                                '-f', 'json')
        self.assertNotIn(secret, out)

    def capabilities_race(self, executors):
        plan = self.new_plan()
        paths = [ROOT] + CAPS
        if executors:
            results = self.executors(plan, 'capabilities_set', [
                {'enable': [p], 'command': [
                    'overcloud', 'plan', 'capabilities', 'set', plan,
                    '--enable', p]} for p in paths])
        else:
            results = _at_once(self.env, [
                ['overcloud', 'plan', 'capabilities', 'set', plan,
                 '--enable', p, '-f', 'json'] for p in paths])
        reported = self.reported(results)
        wanted = {paths[i] for i in reported}
        # Every step is stored before it is reported; a reader finds it
        # by the container listing, which on three replicas with a node
        # down may miss updates until the object updater's next pass
        # (5 s here): read again within CONVERGE seconds, and say how long
        # it took (a lost step never shows up: the assertion fails).
        began = time.monotonic()
        while True:
            record = self.plan_record(plan)
            found = wanted & set(record['environments'])
            if found == wanted or time.monotonic() - began > CONVERGE:
                break
            time.sleep(1)
        print('\n%d capabilities set at once (%s): %d reported set, %d in '
              'the record (read %.1f s after the last)' % (
                  WRITERS, 'executors' if executors else 'CLI',
                  len(reported), len(found), time.monotonic() - began))
        self.assertEqual(wanted, wanted & set(record['environments']))
        if ROOT in wanted:
            self.assertEqual(ROOT, record['environments'][0])
        caps = {r['file']: r for r in self.openstack_json(
            'overcloud', 'plan', 'capabilities', plan)}
        self.assertEqual(wanted, {f for f in wanted if caps[f]['enabled']})

    def test_eight_parameters_set_at_once_lose_none(self):
        self.parameters_race(executors=False)

    def test_eight_executors_setting_parameters_lose_none(self):
        self.parameters_race(executors=True)

    def test_eight_capabilities_set_at_once_lose_none(self):
        self.capabilities_race(executors=False)

    def test_eight_executors_setting_capabilities_lose_none(self):
        self.capabilities_race(executors=True)
