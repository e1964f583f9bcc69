"""The library's reads inside Mistral: a plan made by the real create
command in a stateful fake Swift, Heat's validation over requests-mock.
"""

import json
import re

from tests.unit import fakes
from tests.unit.mistral import library_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import deploy
from tripleoplanclient.mistral import library
from tripleoplanclient.osc import plan as plan_cmd
from tripleoplanclient import protocol

HEAT = fakes.HEAT


class LibraryTest(library_base.LibraryTestCase):

    def test_capabilities_say_what_the_record_enabled(self):
        caps = library.capabilities(self.plan())
        envs = {e['file']: e for t in caps['topics'] for g in t['groups']
                for e in g['environments']}
        self.assertTrue(envs['environments/mode-b.yaml']['enabled'])
        self.assertFalse(envs['environments/mode-c.yaml']['enabled'])
        self.assertEqual(['environments/mode-c.yaml'], [
            e['file'] for e in envs['environments/mode-b.yaml']['excludes']])

    def test_roles_count_from_the_plans_values(self):
        self.write('count.yaml', 'parameter_defaults: {ControllerCount: 3}\n')
        self.cmd(plan_cmd.AmendPlan, 'p', '-e', self.dir + '/count.yaml',
                 '--no-render')
        rows = {r['name']: r for r in library.roles(self.plan())['roles']}
        self.assertEqual((3, 'parameter'), (rows['Controller']['count'],
                                            rows['Controller']['count_from']))
        self.assertIsNone(rows['Compute']['count'])
        self.assertEqual('Compute', library.roles(
            self.plan(), 'Compute')['role']['name'])

    def test_parameters_masked_and_kept_by_digest(self):
        req = self.req('parameters')
        first = library.parameters(self.plan(), fakes.heat_client(), req,
                                   validations=self.validations)
        rows = {r['name']: r for r in first['parameters']}
        self.assertEqual('b', rows['Mode']['value'])
        self.assertEqual(['controller.yaml'], rows['Extra']['templates'])
        self.assertNotIn('secret-password', json.dumps(first))
        self.assertFalse(first['cached'])
        # Heat got the plan's environments in the recorded order
        body = self.validate.last_request.json()
        self.assertEqual(['true'], self.validate.last_request.qs[
            'show_nested'])
        self.assertEqual([self.base + p for p in (
            'plan-environment.yaml', 'registry.yaml',
            'environments/mode-b.yaml')], body['environment_files'])
        again = library.parameters(self.plan(), fakes.heat_client(), req,
                                   validations=self.validations)
        self.assertTrue(again['cached'])
        self.assertEqual(first['parameters'], again['parameters'])
        self.assertEqual(1, self.validate.call_count)
        # a change to the plan: a new digest, Heat asked again
        self.cmd(plan_cmd.AmendPlan, 'p', '-e',
                 self.templates + '/environments/mode-c.yaml', '--no-render')
        third = library.parameters(self.plan(), fakes.heat_client(), req,
                                   validations=self.validations)
        self.assertFalse(third['cached'])
        self.assertNotEqual(first['digest'], third['digest'])
        self.assertEqual(2, self.validate.call_count)

    def test_another_container_never_shares_a_validation(self):
        plan = self.plan()
        library.validation(plan, fakes.heat_client(), self.req('parameters'),
                           validations=self.validations)
        other = self.req('parameters')
        other['swift_url'] = 'http://other.test/v1/AUTH_x'
        self.m.post(HEAT + '/validate', headers=fakes.JSON,
                    json=library_base.validation(other['swift_url'] + '/p/'))
        _, cached = library.validation(plan, fakes.heat_client(), other,
                                       validations=self.validations)
        self.assertFalse(cached)

    def test_validate_lists_every_problem(self):
        # mode-c after mode-b: a capability conflict
        self.cmd(plan_cmd.AmendPlan, 'p', '-e',
                 self.templates + '/environments/mode-c.yaml', '--no-render')
        result = library.validate(self.plan(), fakes.heat_client(),
                                  self.req('validate'),
                                  validations=self.validations)
        kinds = {p['kind']: p for p in result['problems']}
        self.assertFalse(result['valid'])
        self.assertIn('capabilities', kinds)
        self.assertIn('environments/mode-c.yaml',
                      kinds['capabilities']['problem'])
        self.assertEqual('Needed', kinds['parameter']['what'])

    def test_an_override_is_a_warning_not_a_problem(self):
        # mode-d after mode-b sets Mode again: the later file overrides.
        self.cmd(plan_cmd.AmendPlan, 'p', '-e',
                 self.templates + '/environments/mode-d.yaml', '--no-render')
        result = library.validate(self.plan(), fakes.heat_client(),
                                  self.req('validate'),
                                  validations=self.validations)
        self.assertNotIn('capabilities',
                         [p['kind'] for p in result['problems']])
        self.assertEqual(
            ['later file overrides earlier: environments/mode-d.yaml '
             'overrides environments/mode-b.yaml (both set parameter Mode '
             'differently)'], result['warnings'])

    def test_a_missing_reference_is_named_before_heat_is_asked(self):
        self.write('broken.yaml', 'resource_registry:\n'
                                  '  OS::X: gone.yaml\n')
        self.write('gone.yaml', 'heat_template_version: rocky\n')
        self.cmd(plan_cmd.AmendPlan, 'p', '-e', self.dir + '/broken.yaml',
                 '--no-render')
        self.swift.objects.pop(next(
            n for n in self.swift.objects if n.endswith('/gone.yaml')),
            None)
        result = library.validate(self.plan(), fakes.heat_client(),
                                  self.req('validate'),
                                  validations=self.validations)
        self.assertEqual(['environment'],
                         [p['kind'] for p in result['problems']])
        self.assertEqual(0, self.validate.call_count)

    def test_heats_refusal_is_a_problem_and_an_error(self):
        self.m.post(HEAT + '/validate', status_code=400, headers=fakes.JSON,
                    json={'error': {'message': 'Bad template'}})
        result = library.validate(self.plan(), fakes.heat_client(),
                                  self.req('validate'),
                                  validations=self.validations)
        self.assertEqual([('heat', 'Bad template')], [
            (p['kind'], p['problem']) for p in result['problems']])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Heat refused the templates of plan p: '
                                    'Bad template'):
            library.parameters(self.plan(), fakes.heat_client(),
                               self.req('parameters'),
                               validations=self.validations)

    def test_heats_refusal_quotes_no_hidden_value(self):
        # Heat quotes the value it refuses, a hidden one too.
        from tripleoplanclient.plan import layout
        import yaml
        generated = yaml.safe_load(self.swift.objects[
            layout.PLAN_ENVIRONMENT][0])['passwords']['AdminPassword']
        self.write('short.yaml', 'parameter_defaults: {AdminPassword: ab}\n')
        for value, env in ((generated, None), ('ab', 'short.yaml')):
            if env:
                self.cmd(plan_cmd.AmendPlan, 'p', '-e', self.dir + '/' + env,
                         '--no-render')
            self.m.post(HEAT + '/validate', status_code=400,
                        headers=fakes.JSON, json={'error': {'message': (
                            'Parameter \'AdminPassword\' is invalid: "%s" '
                            'does not match pattern "[a-z]+-[0-9]+"'
                            % value)}})
            result = library.validate(self.plan(), fakes.heat_client(),
                                      self.req('validate'),
                                      validations=library.Validations())
            problem = result['problems'][0]['problem']
            self.assertNotIn('"%s"' % value, problem)
            self.assertIn('is invalid: "***" does not match pattern '
                          '"[a-z]+-[0-9]+"', problem)

    def test_heats_refusal_of_a_stack_quotes_no_hidden_value(self):
        from tripleoplanclient.plan import layout
        import yaml
        generated = yaml.safe_load(self.swift.objects[
            layout.PLAN_ENVIRONMENT][0])['passwords']['AdminPassword']
        fakes.stack_is(self.m, None)
        self.m.post(HEAT + '/stacks', status_code=400, headers=fakes.JSON,
                    json={'error': {'message': (
                        'Parameter \'AdminPassword\' is invalid: "%s" is '
                        'not a multiple of 3' % generated)}})
        plan = self.plan()
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=plan.environments,
            swift_url=fakes.SWIFT, heat_url=HEAT, tree=plan.state['tree'],
            validate=False))
        with self.assertRaises(exceptions.CommandError) as caught:
            deploy.deploy(self.store, fakes.heat_client(), req)
        self.assertNotIn(generated, str(caught.exception))
        self.assertIn('Heat refused the stack create: Parameter '
                      '\'AdminPassword\' is invalid: "***"',
                      str(caught.exception))

    def test_an_unknown_plan(self):
        self.m.get(re.compile(re.escape(fakes.SWIFT + '/nosuch')),
                   status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan nosuch does not exist'):
            library.Plan(self.store, {'container': 'nosuch'})

    def test_the_deploy_refuses_what_validate_finds_unless_told_not_to(self):
        fakes.stack_is(self.m, None)
        create = self.m.post(HEAT + '/stacks', status_code=201,
                             headers=fakes.JSON, json={'stack': {'id': 's'}})
        plan = self.plan()
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=plan.environments,
            swift_url=fakes.SWIFT, heat_url=HEAT,
            tree=plan.state['tree']))
        with self.assertRaisesRegex(
                exceptions.CommandError,
                r'Plan p is not ready to deploy \(1 problems\): parameter '
                r'Needed: required.*--no-validate'):
            deploy.deploy(self.store, fakes.heat_client(), req)
        self.assertEqual(0, create.call_count)
        self.assertEqual(['true'], self.validate.last_request.qs[
            'show_nested'])
        req['validate'] = False
        self.assertEqual('CREATE', deploy.deploy(
            self.store, fakes.heat_client(), req)['operation'])
        self.assertEqual(1, create.call_count)
        self.assertNotIn('show_nested', self.validate.last_request.qs)

    def test_the_deploy_tells_the_overrides_it_lets_through(self):
        fakes.stack_is(self.m, None)
        self.m.post(HEAT + '/stacks', status_code=201, headers=fakes.JSON,
                    json={'stack': {'id': 's'}})
        answer = library_base.validation(self.base)
        answer['Environment']['parameter_defaults']['Needed'] = 'x'
        self.m.post(HEAT + '/validate', headers=fakes.JSON, json=answer)
        self.cmd(plan_cmd.AmendPlan, 'p', '-e',
                 self.templates + '/environments/mode-d.yaml', '--no-render')
        plan = self.plan()
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=plan.environments,
            swift_url=fakes.SWIFT, heat_url=HEAT,
            tree=plan.state['tree']))
        summary = deploy.deploy(self.store, fakes.heat_client(), req)
        self.assertEqual('CREATE', summary['operation'])
        self.assertEqual(
            ['later file overrides earlier: environments/mode-d.yaml '
             'overrides environments/mode-b.yaml (both set parameter Mode '
             'differently)'], summary['warnings'])

    def test_the_deploy_check_reads_no_environment_left_out(self):
        fakes.stack_is(self.m, None)
        plan = self.plan()
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=plan.environments,
            swift_url=fakes.SWIFT, heat_url=HEAT,
            tree=plan.state['tree']))
        self.m.reset_mock()
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'not ready to deploy'):
            deploy.deploy(self.store, fakes.heat_client(), req)
        read = [r.path for r in self.m.request_history if r.method == 'GET']
        self.assertIn('/v1/auth_t/p/environments/mode-b.yaml', read)
        self.assertNotIn('/v1/auth_t/p/environments/mode-c.yaml', read)

    def test_a_caller_heat_refuses_is_told_why_and_nothing_is_kept(self):
        self.m.post(HEAT + '/validate', status_code=403, headers=fakes.JSON,
                    json={'error': {'message': 'You are not authorized'}})
        for _ in range(2):
            with self.assertRaisesRegex(
                    exceptions.CommandError,
                    'does not let this user validate templates.*member'):
                library.parameters(self.plan(), fakes.heat_client(),
                                   self.req('parameters'),
                                   validations=self.validations)
        self.assertIsNone(self.validations.get(
            (fakes.SWIFT + '/p/', self.plan().digest)))
