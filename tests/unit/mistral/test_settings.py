"""The library's writes inside Mistral: capabilities set and parameters
set, each a recorded step of its own (a plan made by the real create
command in a stateful fake Swift, Heat's validation over requests-mock).
"""

import json

import yaml

from tests.unit import fakes
from tests.unit.mistral import library_base
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import assembly
from tripleoplanclient.mistral import deploy
from tripleoplanclient.mistral import library
from tripleoplanclient.mistral import objects
from tripleoplanclient.mistral import settings
from tripleoplanclient.osc import plan as plan_cmd
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree
from tripleoplanclient import protocol
from tripleoplanclient.record import log

HEAT = fakes.HEAT


class SettingsTestCase(library_base.LibraryTestCase):

    def history(self):
        return self.store.reader.history('p')[0]

    def set_capabilities(self, enable=(), disable=(), command=None):
        req = protocol.read('capabilities_set', protocol.request(
            'capabilities_set', container='p', swift_url=fakes.SWIFT,
            enable=list(enable), disable=list(disable), command=command))
        return settings.set_capabilities(self.store, self.plan(), req)

    def set_parameters(self, *assignments, values=None, command=None,
                       staged=None, execution=None):
        req = self.req('parameters_set', assignments=list(assignments),
                       values=values, command=command, staged=staged)
        return settings.set_parameters(self.store, self.plan(),
                                       fakes.heat_client(), req,
                                       execution=execution)


class SettingsTest(SettingsTestCase):

    # -- capabilities set --------------------------------------------

    def test_an_override_is_enabled_with_a_warning(self):
        result = self.set_capabilities(enable=['environments/mode-d.yaml'])
        self.assertEqual(['registry.yaml', 'environments/mode-b.yaml',
                          'environments/mode-d.yaml'], result['environments'])
        self.assertEqual(
            ['later file overrides earlier: environments/mode-d.yaml '
             'overrides environments/mode-b.yaml (both set parameter Mode '
             'differently)'], result['warnings'])

    def test_a_capability_choice_is_a_step_of_its_own(self):
        result = self.set_capabilities(disable=['environments/mode-b.yaml'],
                                       command=['overcloud', 'x'])
        self.assertEqual(('SUCCESS', 'capabilities'),
                         (result['status'], result['action']))
        self.assertEqual(['registry.yaml'], result['environments'])
        rows = self.history()
        self.assertEqual('capabilities', rows[-1]['action'])
        self.assertEqual(['registry.yaml'], rows[-1]['environments'])
        result = self.set_capabilities(enable=['environments/mode-c.yaml'])
        self.assertEqual(['registry.yaml', 'environments/mode-c.yaml'],
                         result['environments'])
        self.assertEqual('mistral action tripleoplan.capabilities_set',
                         self.history()[-1]['command'])

    def test_a_choice_that_breaks_a_constraint_is_refused(self):
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'mode-b.yaml.*mode-c.yaml|'
                                    'mode-c.yaml.*mode-b.yaml'):
            self.set_capabilities(enable=['environments/mode-c.yaml'])
        with self.assertRaisesRegex(exceptions.CommandError, 'nosuch'):
            self.set_capabilities(enable=['environments/nosuch.yaml'])
        self.assertEqual(before, self.swift.objects)

    def test_nothing_to_change_writes_nothing(self):
        before = dict(self.swift.objects)
        result = self.set_capabilities(enable=['environments/mode-b.yaml'])
        self.assertEqual(('UNCHANGED', None), (result['status'],
                                               result['id']))
        self.assertEqual(before, self.swift.objects)

    # -- parameters set ----------------------------------------------

    def test_parameters_set_writes_the_plans_parameters_file(self):
        result = self.set_parameters(
            'Needed=3', 'AdminPassword=new-secret', command=[
                'overcloud', 'plan', 'parameters', 'set', 'p', 'Needed=3',
                'AdminPassword=new-secret'])
        self.assertEqual(('parameters', 'SUCCESS', 1),
                         (result['action'], result['status'],
                          result['added']))
        stored = yaml.safe_load(self.swift.objects[layout.PLAN_PARAMETERS][0])
        # a String keeps the text as typed
        self.assertEqual({'Needed': '3', 'AdminPassword': 'new-secret'},
                         stored['parameter_defaults'])
        step = self.history()[-1]
        self.assertEqual('parameters', step['action'])
        self.assertIn('Needed=3', step['command'])
        self.assertNotIn('new-secret', json.dumps(step))
        # an empty value takes it out again; the old content is kept
        old_md5 = self.swift.objects[layout.PLAN_PARAMETERS]
        self.set_parameters('AdminPassword=')
        stored = yaml.safe_load(self.swift.objects[layout.PLAN_PARAMETERS][0])
        self.assertEqual({'Needed': '3'}, stored['parameter_defaults'])
        from tripleoplanclient.common import content
        self.assertIn('user-environments/kept/' + content.md5(old_md5[0]),
                      self.swift.objects)

    def test_bad_values_are_refused_and_nothing_is_stored(self):
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'Nosuch.*|.*Nosuch'):
            self.set_parameters('Nosuch=1')
        with self.assertRaisesRegex(exceptions.CommandError, 'Extra'):
            self.set_parameters('Extra=[not, a, mapping')
        self.assertEqual(before, self.swift.objects)

    def test_the_deploy_merges_the_parameters_last_and_keeps_them_out_of_the_stack(self):  # noqa
        self.set_parameters('Mode=z')
        plan = self.plan()
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=plan.environments,
            swift_url=fakes.SWIFT, heat_url=HEAT, tree=plan.state['tree']))
        fields, _ = assembly.prepare(plan.objects, req)
        self.assertEqual(self.base + layout.PLAN_PARAMETERS,
                         fields['environment_files'][-1])
        stack = deploy.merged(fakes.heat_client(), HEAT, fields, 'create')
        self.assertNotIn(self.base + layout.PLAN_PARAMETERS, stack['files'])
        self.assertNotIn(self.base + layout.PLAN_ENVIRONMENT,
                         stack['files'])

    def test_roles_see_the_parameters_set(self):
        self.m.post(HEAT + '/validate', headers=fakes.JSON, json=dict(
            library_base.validation(self.base), Parameters=dict(
                library_base.validation(self.base)['Parameters'],
                ControllerCount={'Type': 'Number', 'NoEcho': 'false',
                                 'Description': '', 'Label': 'C',
                                 'Default': 1})))
        self.set_parameters('ControllerCount=4')
        rows = {r['name']: r for r in library.roles(self.plan())['roles']}
        self.assertEqual(4, rows['Controller']['count'])

    def test_no_value_at_all_is_refused(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'at least one NAME=VALUE'):
            self.set_parameters()

    def test_the_workflow_exists_for_each_write(self):
        book = yaml.safe_load(protocol.workbook())
        for name in ('capabilities_set', 'parameters_set'):
            self.assertEqual(
                'tripleoplan.' + name,
                book['workflows'][name]['tasks'][name]['action'])


class ConcurrentTest(SettingsTestCase):
    """Writers that read the plan at the same time (as Mistral's
    executors do) lose nothing (issue 27): the record names the file of
    each value; whoever finds the file behind derives and mends it."""

    def side_by_side(self, *assignments):
        plans = [self.plan() for _ in assignments]     # the same head
        for plan, given in zip(plans, assignments):
            req = self.req('parameters_set', assignments=list(given))
            settings.set_parameters(self.store, plan, fakes.heat_client(),
                                    req)

    def stored(self):
        return yaml.safe_load(self.swift.objects[layout.PLAN_PARAMETERS][0])[
            'parameter_defaults']

    def test_values_set_side_by_side_are_all_in_the_file(self):
        self.set_parameters('Mode=c', 'AdminPassword=first')
        self.side_by_side(['Needed=a'], ['Mode=b'], ['AdminPassword='])
        self.assertEqual({'Needed': 'a', 'Mode': 'b'}, self.stored())
        # the record names that file, and readers read it
        state = self.store.reader.history('p')[1].state
        self.assertEqual(content.md5(self.swift.objects[
            layout.PLAN_PARAMETERS][0]), state['tree']['changes'][
            layout.PLAN_PARAMETERS])
        self.assertFalse(state['parameter_values']['stale'])
        self.assertEqual(self.swift.objects[layout.PLAN_PARAMETERS][0],
                         self.plan().read(layout.PLAN_PARAMETERS))
        self.assertEqual(['parameters'] * 4,
                         [r['action'] for r in self.history()[1:]])

    def test_a_look_that_misses_the_step_itself_does_not_count(self):
        # Two writers on the same head, each with a store of its own (two
        # processes); the second commits after the first settled. A
        # container replica that missed both steps answers the second's
        # first two looks: without its own step, a look cannot end it.
        self.set_parameters('Mode=c')
        stores = [fakes.plan_store(), fakes.plan_store()]
        plans = [library.Plan(store, {'container': 'p'},
                              objects.ContentCache()) for store in stores]
        for store, plan, given in zip(stores, plans, ('Needed=a', 'Mode=b')):
            req = self.req('parameters_set', assignments=[given])
            settings.set_parameters(store, plan, fakes.heat_client(), req)
            self.swift.lag = (log.LOG_PREFIX, 2)
        self.assertEqual({'Needed': 'a', 'Mode': 'b'}, self.stored())

    def test_a_step_one_look_saw_stays_in_the_view(self):
        self.set_parameters('Mode=c')
        # Without the index (which names the steps: record.test_plan_store),
        # only the listing tells.
        del self.swift.objects[log.PATH]
        head = self.store.reader.history('p')[1]
        del self.swift.objects[log.PATH]
        last = max(n for n in self.swift.objects
                   if n.startswith(log.LOG_PREFIX))
        self.swift.lagging = {last: 1}
        self.assertEqual(head.count, self.store.reader.history('p')[1].count)
        del self.swift.objects[log.PATH]
        # Another process, whose first look the lagging replica answers:
        self.swift.lagging = {last: 1}
        self.assertEqual(head.count - 1,
                         fakes.plan_store().reader.history('p')[1].count)


class ConcurrentCapabilitiesTest(SettingsTestCase):

    def test_the_root_environment_enabled_beside_another_loses_none(self):
        root = 'overcloud-resource-registry-puppet.yaml'
        self.write('t/' + root, 'resource_registry: {}\n')
        self.cmd(plan_cmd.AmendPlan, 'p', '--no-render', '--upload-file',
                 '%s/%s=%s' % (self.templates, root, root))
        plans = [self.plan(), self.plan()]     # the same head
        # the later step, in the record's order, is the root's
        for plan, path in zip(plans, ['environments/mode-c.yaml', root]):
            req = protocol.read('capabilities_set', protocol.request(
                'capabilities_set', container='p', swift_url=fakes.SWIFT,
                enable=[path], disable=['environments/mode-b.yaml']
                if path != root else []))
            settings.set_capabilities(self.store, plan, req)
        self.assertEqual([root, 'registry.yaml', 'environments/mode-c.yaml'],
                         self.store.reader.history('p')[1].state[
                             'environments'])


class HiddenTest(SettingsTestCase):
    """A GUI's parameters_set workflow: Mistral keeps its input, so hidden
    values come in an object the client staged in the plan."""

    STAGED = layout.STAGED_PARAMETERS + 'gui-1.yaml'

    def setUp(self):
        super().setUp()
        answer = library_base.validation(self.base)
        # hidden, with a name that says nothing secret
        answer['Parameters']['HashSuffix'] = {
            'Type': 'String', 'NoEcho': 'true', 'Description': '',
            'Label': 'HashSuffix'}
        self.m.post(HEAT + '/validate', headers=fakes.JSON, json=answer)

    def stage(self, text):
        self.swift.store(self.STAGED, text.encode())

    def everything_but_the_parameters_file(self):
        # (and its copies under their MD5, which the record names as the
        # home of each value: plan.parameter_file)
        names = self.store.reader.history('p')[1].state[
            'parameter_values']['names']
        copies = {tree.kept_name(m) for m in names.values()}
        return json.dumps({n: d.decode('utf-8', 'replace') for n, (d, _) in
                           self.swift.objects.items()
                           if n != layout.PLAN_PARAMETERS and
                           n not in copies})

    def test_a_workflow_sets_hidden_values_from_a_staged_object(self):
        self.stage('HashSuffix: staged-suffix-1\nNeeded: x\n')
        result = self.set_parameters(
            'Mode=c', staged=self.STAGED, execution='wf-1',
            command=['overcloud', 'parameters', 'set', 'p', '--file', 'f'])
        self.assertEqual('SUCCESS', result['status'])
        stored = yaml.safe_load(self.swift.objects[layout.PLAN_PARAMETERS][0])
        self.assertEqual({'HashSuffix': 'staged-suffix-1', 'Needed': 'x',
                          'Mode': 'c'}, stored['parameter_defaults'])
        # read once, then gone; in no answer, step or other object
        self.assertNotIn(self.STAGED, self.swift.objects)
        self.assertNotIn('staged-suffix-1', json.dumps(result))
        self.assertNotIn('staged-suffix-1',
                         self.everything_but_the_parameters_file())
        self.assertEqual('parameters', self.history()[-1]['action'])

    def test_a_workflow_refuses_hidden_values_in_its_request(self):
        before = dict(self.swift.objects)
        for kwargs in ({'assignments': ['HashSuffix=inline-1']},
                       {'values': {'HashSuffix': 'inline-1'}},
                       {'assignments': ['AdminPassword=inline-1']},
                       {'assignments': ['Needed=1'], 'command': [
                           'parameters', 'set', 'p', 'HashSuffix=inline-1']}):
            with self.assertRaises(exceptions.CommandError) as caught:
                self.set_parameters(*kwargs.get('assignments', ()),
                                    values=kwargs.get('values'),
                                    command=kwargs.get('command'),
                                    execution='wf-1')
            self.assertIn('staged', str(caught.exception))
            self.assertIn(layout.STAGED_PARAMETERS, str(caught.exception))
            self.assertNotIn('inline-1', str(caught.exception))
            self.assertEqual(before, self.swift.objects)
        # a value nothing hides may come inline; a masked one is no value
        result = self.set_parameters('Needed=1', execution='wf-1', command=[
            'parameters', 'set', 'p', 'Needed=1', 'HashSuffix=***'])
        self.assertEqual('SUCCESS', result['status'])
        # run on its own (the CLI: nothing saved in Mistral), inline is fine
        self.set_parameters('HashSuffix=inline-2')
        self.assertNotIn('inline-2', self.everything_but_the_parameters_file())

    def test_a_staged_object_is_removed_even_when_refused(self):
        before = dict(self.swift.objects)
        for text in ('HashSuffix: s-1\nNosuch: 1\n', 'parameter_defaults: [',
                     'resource_registry: {}\nHashSuffix: s-1\n'):
            self.stage(text)
            with self.assertRaises(exceptions.CommandError) as caught:
                self.set_parameters(staged=self.STAGED, execution='wf-1')
            self.assertNotIn('s-1', str(caught.exception))
            self.assertEqual(before, self.swift.objects)

    def test_a_staged_name_must_be_a_staged_object(self):
        before = dict(self.swift.objects)
        for name in (layout.PLAN_ENVIRONMENT, layout.STAGED_PARAMETERS +
                     '../plan-environment.yaml', layout.STAGED_PARAMETERS +
                     'nosuch.yaml', 3):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'Nothing was set'):
                self.set_parameters(staged=name, execution='wf-1')
        self.assertEqual(before, self.swift.objects)
        self.assertIn(layout.STAGED_PARAMETERS, layout.path_problem(
            layout.STAGED_PARAMETERS + 'x.yaml', 'user'))

    def test_the_recorded_command_line_hides_whatever_a_client_sent(self):
        self.set_parameters(
            'Needed=2', 'HashSuffix=cmd-suffix-1', command=[
                '--os-passw', 'pw-abbrev-1', '--os-tok=tok-abbrev-1',
                'overcloud', 'parameters', 'set', 'p', 'Needed=2',
                'HashSuffix=cmd-suffix-1'])
        command = self.history()[-1]['command']
        for value in ('pw-abbrev-1', 'tok-abbrev-1', 'cmd-suffix-1'):
            self.assertNotIn(value, command)
        self.assertIn('--os-passw *** --os-tok=***', command)
        self.assertIn('Needed=2 HashSuffix=***', command)

    def test_a_capabilities_step_records_no_parameter_value(self):
        # No templates' declarations at hand: any NAME=VALUE is hidden.
        self.set_capabilities(disable=['environments/mode-b.yaml'], command=[
            'x', 'HashSuffix=cap-suffix-1', '--os-tok', 'tok-2'])
        command = self.history()[-1]['command']
        self.assertNotIn('cap-suffix-1', command)
        self.assertNotIn('tok-2', command)

    def test_parameters_show_masks_what_any_template_hides(self):
        self.set_parameters('HashSuffix=show-suffix-1')
        answer = library_base.validation(self.base)
        answer['Parameters']['HashSuffix'] = {
            'Type': 'String', 'NoEcho': 'true', 'Description': '',
            'Label': 'HashSuffix', 'Value': 'show-suffix-1'}
        answer['Environment']['parameter_defaults'][
            'HashSuffix'] = 'show-suffix-1'
        self.m.post(HEAT + '/validate', headers=fakes.JSON, json=answer)
        shown = library.parameters(self.plan(), fakes.heat_client(),
                                   self.req('parameters'),
                                   validations=library.Validations())
        self.assertNotIn('show-suffix-1', json.dumps(shown))
