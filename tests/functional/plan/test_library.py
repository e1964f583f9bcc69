"""The deployment library through the real CLI and through Mistral's API.

One small plan of templates with a sample-env-generator, two mutually
exclusive environments, a nested template, roles and a hidden parameter:
``overcloud plan capabilities``, ``roles list|show``, ``parameters show``
and ``validate`` answer from our Mistral actions; a workflow execution
started the way a GUI would (``openstack workflow execution create``)
gets the same answers. Nothing here writes to the plan.
"""

import json
import os
import uuid

from tests.functional import base
from tests.functional import library_base


class TestLibrary(base.PlanTest):

    TEMPLATES = library_base.TEMPLATES
    PREFIX = 'lib'

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        env = os.path.join(cls.templates, 'environments', 'mode-a.yaml')
        base.subprocess.run(
            ['openstack', 'overcloud', 'plan', 'amend', cls.plan, '-e',
             os.path.join(cls.templates,
                          'overcloud-resource-registry-puppet.yaml'),
             '-e', env, '--no-render'],
            check=True, env=cls.env, capture_output=True)

    def setUp(self):
        super().setUp()
        self.before = self.snapshot(self.plan)

    def tearDown(self):
        # reads only: the plan and its record as they were
        self.assertEqual(self.before, self.snapshot(self.plan))
        super().tearDown()

    def library(self, *args):
        return self.openstack_json('overcloud', 'plan', *args)

    # -- capabilities ------------------------------------------------

    def test_capabilities(self):
        rows = {r['file']: r for r in self.library('capabilities',
                                                   self.plan)}
        self.assertEqual({'environments/mode-a.yaml',
                          'environments/mode-b.yaml',
                          'overcloud-resource-registry-puppet.yaml'},
                         set(rows))
        a, b = rows['environments/mode-a.yaml'], rows[
            'environments/mode-b.yaml']
        self.assertEqual(('Mode A', 'The first mode.', True),
                         (a['title'], a['description'].strip(),
                          a['enabled']))
        self.assertEqual(('Mode B', False), (b['title'], b['enabled']))
        self.assertEqual(['environments/mode-b.yaml'], a['excludes'])
        self.assertEqual(['environments/mode-a.yaml'], b['excludes'])
        enabled = self.library('capabilities', self.plan, '--enabled')
        self.assertEqual(
            ['environments/mode-a.yaml',
             'overcloud-resource-registry-puppet.yaml'],
            sorted(r['file'] for r in enabled))

    # -- roles -------------------------------------------------------

    def test_roles(self):
        rows = {r['name']: r for r in self.library('roles', 'list',
                                                   self.plan)}
        self.assertEqual({'Controller', 'Compute'}, set(rows))
        self.assertEqual((True, 1, 'ControllerCount', ['InternalApi']), (
            rows['Controller']['in_plan'], rows['Controller']['count'],
            rows['Controller']['count_parameter'],
            rows['Controller']['networks']))
        self.assertEqual((False, None), (rows['Compute']['in_plan'],
                                         rows['Compute']['count']))
        role = self.library('roles', 'show', self.plan, 'Compute')
        self.assertEqual(('Compute', 'The computes'),
                         (role['name'], role['description']))
        err = self.fail_with(r'Nosuch', 'overcloud', 'plan', 'roles', 'show',
                             self.plan, 'Nosuch')
        self.assertIn('Controller', err)

    # -- parameters --------------------------------------------------

    def test_parameters_and_their_cache(self):
        out, err = self.openstack('overcloud', 'plan', 'parameters', 'show',
                                  self.plan, '-f', 'json')
        rows = {r['name']: r for r in json.loads(out)}
        self.assertEqual(('String', 'a', 'a'), (
            rows['Mode']['type'], rows['Mode']['default'],
            rows['Mode']['value']))
        self.assertEqual(['overcloud.yaml'], rows['Mode']['templates'])
        self.assertIn('controller.yaml',
                      rows['ControllerExtraConfig']['templates'])
        # the generated password: hidden, nowhere in the answer
        password = self.plan_password('AdminPassword')
        self.assertNotIn(password, out + err)
        self.assertNotEqual(password, rows['AdminPassword']['value'])
        # asked again, unchanged: the action answers from its cache (that
        # Heat is then not asked: tests/unit/mistral/test_library; Heat's
        # access log here has other tests' validations too)
        again, err = self.openstack('overcloud', 'plan', 'parameters',
                                    'show', self.plan, '-f', 'json')
        self.assertIn('kept from before', err)
        self.assertEqual(json.loads(out), json.loads(again))

    def plan_password(self, name):
        import yaml
        return yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords'][name]

    # -- validate ----------------------------------------------------

    def test_validate_lists_every_problem(self):
        out, err = self.openstack('overcloud', 'plan', 'validate', self.plan,
                                  '-f', 'json', fail=True)
        problems = json.loads(out)
        self.assertIn({'kind': 'parameter', 'what': 'Needed',
                       'problem': 'required, and neither the plan nor its '
                                  'templates give it a value'}, problems)
        self.assertIn('is not valid', err)

    # -- the same through Mistral's API ------------------------------

    def execution(self, name, **fields):
        """A workflow execution of ours, as a GUI starts it: its output."""
        from tripleoplanclient import protocol
        execution, shown = self.gui_workflow(name, protocol.request(
            name, container=self.plan, **fields))
        self.assertEqual('SUCCESS', shown['State'])
        out, _ = self.openstack('workflow', 'execution', 'output', 'show',
                                execution)
        return json.loads(out)[name]

    def test_a_workflow_execution_answers_like_the_cli(self):
        cli = {r['file']: r['enabled'] for r in
               self.library('capabilities', self.plan)}
        gui = self.execution('capabilities')
        self.assertEqual(cli, {
            e['file']: e['enabled'] for t in gui['topics']
            for g in t['groups'] for e in g['environments']})
        cli = self.library('roles', 'list', self.plan)
        gui = self.execution('roles')['roles']
        self.assertEqual([(r['name'], r['count']) for r in cli],
                         [(r['name'], r['count']) for r in gui])
        cli = {r['name']: r['value'] for r in self.library(
            'parameters', 'show', self.plan)}
        gui = self.execution('parameters')['parameters']
        self.assertEqual(cli, {r['name']: r['value'] for r in gui})

    # -- bad input ---------------------------------------------------

    def test_an_unknown_plan_is_a_clear_error(self):
        plan = 'nosuch-%s' % uuid.uuid4().hex[:8]
        for args in (('capabilities', plan), ('roles', 'list', plan),
                     ('parameters', 'show', plan), ('validate', plan)):
            self.fail_with(r'Plan %s does not exist' % plan, 'overcloud',
                           'plan', *args)


class TestDeployValidates(library_base.DeployedPlanTest):
    """``overcloud deploy`` checks what ``plan validate`` checks first."""

    PREFIX = 'libdep'

    def test_a_deploy_is_refused_until_the_plan_is_valid(self):
        registry = os.path.join(self.templates,
                                'overcloud-resource-registry-puppet.yaml')
        err = self.fail_with(
            r'not ready to deploy \(1 problems\): parameter Needed: '
            r'required.*--no-validate', 'overcloud', 'deploy', '--stack',
            self.plan, '-e', registry, '-y')
        status, _ = base.http('GET', '%s/stacks/%s' % (
            self.env['LOOPBACK_HEAT_URL'], self.plan))
        self.assertEqual(404, status, 'Heat was asked to create the stack')
        self.assertIn('FAILED', err)
        needed = self.write('needed.yaml',
                            'parameter_defaults:\n  Needed: here\n')
        # two mutually exclusive environments: refused, each named
        both = [os.path.join(self.templates, 'environments', name)
                for name in ('mode-a.yaml', 'mode-b.yaml')]
        err = self.fail_with(
            r'not ready to deploy.*capabilities', 'overcloud', 'deploy',
            '--stack', self.plan, '-e', needed, '-e', both[0], '-e',
            both[1], '-y')
        self.assertIn('environments/mode-b.yaml', err)
        # without the checks Heat is asked, and creates the stack
        result = self.openstack_json(
            'overcloud', 'deploy', '--stack', self.plan, '--no-validate',
            '-y')
        self.assertEqual(('CREATE', 'SUCCESS'),
                         (result['operation'], result['status']))


class TestLibraryWrites(library_base.DeployedPlanTest):
    """``capabilities set`` and ``parameters set``: recorded steps, the
    same through the CLI and through a workflow execution."""

    PREFIX = 'libset'

    def history(self):
        return self.openstack_json('overcloud', 'plan', 'show-history',
                                   self.plan)

    def refused(self, pattern, *args):
        before = self.snapshot(self.plan)
        err = self.fail_with(pattern, 'overcloud', 'plan', *args)
        self.assertEqual(before, self.snapshot(self.plan))
        return err

    def test_capabilities_then_parameters_then_deploy(self):
        registry = 'overcloud-resource-registry-puppet.yaml'
        result = self.openstack_json(
            'overcloud', 'plan', 'capabilities', 'set', self.plan,
            '--enable', registry, '--enable', 'environments/mode-a.yaml')
        self.assertEqual(([registry, 'environments/mode-a.yaml'],
                          'capabilities'),
                         (result['environments'], result['action']))
        # a choice that breaks a constraint, an unknown path: refused
        err = self.refused(r'mode-b\.yaml', 'capabilities', 'set', self.plan,
                           '--enable', 'environments/mode-b.yaml')
        self.assertIn('mode-a.yaml', err)
        self.refused(r'environments/nosuch\.yaml', 'capabilities', 'set',
                     self.plan, '--enable', 'environments/nosuch.yaml')
        # parameters: Heat's types and constraints, every problem named
        err = self.refused(r'Mode', 'parameters', 'set', self.plan,
                           'Mode=x', 'Nosuch=1')
        self.assertIn('Nosuch', err)
        result = self.openstack_json(
            'overcloud', 'plan', 'parameters', 'set', self.plan,
            'Needed=hello', 'AdminPassword=set-by-operator')
        self.assertEqual('parameters', result['action'])
        rows = {r['name']: r for r in self.openstack_json(
            'overcloud', 'plan', 'parameters', 'show', self.plan)}
        self.assertEqual('hello', rows['Needed']['value'])
        self.assertNotEqual('set-by-operator', rows['AdminPassword']['value'])
        steps = self.history()
        self.assertEqual(['capabilities', 'parameters'],
                         [s['action'] for s in steps[-2:]])
        record = self.plan_record(self.plan)['history'][-1]
        self.assertNotIn('set-by-operator', json.dumps(record))
        self.openstack('overcloud', 'plan', 'validate', self.plan)
        # the deploy gives Heat the values set, in no file of the stack
        result = self.openstack_json('overcloud', 'deploy', '--stack',
                                     self.plan, '-y')
        self.assertEqual('SUCCESS', result['status'])
        stack = self.openstack_json('stack', 'show', self.plan)
        self.assertEqual('hello', stack['parameters']['Needed'])
        files, _ = self.openstack('stack', 'file', 'list', self.plan,
                                  '-f', 'json')
        self.assertNotIn('plan-parameters.yaml', files)
        self.assertNotIn('set-by-operator', files)

    def test_a_workflow_execution_records_the_same_step(self):
        from tripleoplanclient import protocol
        plan, mine = ('lib%s-%s' % (who, uuid.uuid4().hex[:8])
                      for who in ('wf', 'cli'))
        registry = os.path.join(self.templates,
                                'overcloud-resource-registry-puppet.yaml')
        for name in (plan, mine):
            self.openstack('overcloud', 'plan', 'create', name,
                           '--templates', self.templates, '-e', registry,
                           '--no-render')
            self.addCleanup(self.openstack, 'overcloud', 'plan', 'delete',
                            '-y', name)
        request = protocol.request('parameters_set', container=plan,
                                   assignments=['Needed=gui'])
        _, shown = self.gui_workflow('parameters_set', request, timeout=120)
        self.assertEqual('SUCCESS', shown['State'])
        self.openstack('overcloud', 'plan', 'parameters', 'set', mine,
                       'Needed=gui')
        gui = self.plan_record(plan)
        cli = self.plan_record(mine)
        self.assertEqual(
            ('parameters', 'SUCCESS', 'mistral action '
             'tripleoplan.parameters_set'),
            (gui['history'][-1]['action'],
             gui['history'][-1]['outcome']['status'],
             gui['history'][-1]['command']))
        self.assertEqual(self.swift.get(plan, 'plan-parameters.yaml'),
                         self.swift.get(mine, 'plan-parameters.yaml'))
        self.assertEqual(gui['environments'], cli['environments'])
        self.assertEqual(gui['history'][-1]['user'],
                         cli['history'][-1]['user'])
