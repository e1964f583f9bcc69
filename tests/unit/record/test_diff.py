"""Two steps of a plan compared, on a stateful fake Swift."""

import difflib
import json
import os

import yaml

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.mistral import builder
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import hidden_parameters
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree
from tripleoplanclient.record import diff
from tripleoplanclient.record import log
from tripleoplanclient.record import steps

TEMPLATE = (b'heat_template_version: rocky\n'
            b'parameters:\n'
            b'  AdminPassword: {type: string, hidden: true}\n'
            b'  NtpServer: {type: string}\n')
WRITES = ('PUT', 'COPY', 'DELETE', 'ARCHIVE')


class DiffTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.templates = os.path.dirname(
            self.write('tht/overcloud.yaml', TEMPLATE))
        self.write('tht/roles_data.yaml', b'- name: Controller\n')
        self.lines = []

    def path(self, name):
        return 'user-files' + os.path.join(self.dir, name)

    def create(self, *envs):
        files = files_mod.PlanFiles(self.templates)
        files.add_templates()
        for env in envs:
            files.add_environment(env)
        return steps.create(self.store, 'p', files,
                            fakes.Recorder(self.store), render=False)

    def amend(self, envs=(), uploads=(), remove=(), inputs=()):
        head = self.store.reader.head('p')
        files = files_mod.PlanFiles(head.state['templates'])
        for path in envs:
            files.add_environment(path)
        for spec in uploads:
            files.add_upload(spec)
        for kind, path in inputs:
            files.add_input(kind, path, kind)
        remove = steps.resolve_removals(files, head.state['environments'],
                                        remove)
        return steps.amend(self.store, 'p', head, files, remove,
                           fakes.Recorder(self.store), no_render=True)

    def deployed(self, status='SUCCESS'):
        """A deploy step as the deploy command records it, its stack
        operation ended with ``status`` (no Heat here)."""
        head = self.store.reader.head('p')
        change = steps.Change(head.state, files_mod.PlanFiles(
            head.state['templates']), view=self.store.container.view(
                'p', head.state['tree']))
        step = builder.step(change, 'deploy', argv=[])
        step['stack'] = {'operation': 'CREATE',
                         'environments': change.environments}
        step['outcome']['status'] = status
        return self.store.writer.write_step('p', step, head)

    def story(self):
        """1 create -e a.yaml; 2 deploy; 3 amend a.yaml (changed), -e
        b.yaml, overcloud.yaml uploaded anew; 4 the settings file taken
        out and given again (now after b.yaml)."""
        self.create(self.write('a.yaml', b'parameter_defaults:\n'
                               b'  NtpServer: a.example\n'
                               b'  NeutronPassword: first-secret-1\n'))
        self.deployed()
        self.amend([self.write('a.yaml', b'parameter_defaults:\n'
                               b'  NtpServer: b.example\n'
                               b'  NeutronPassword: second-secret-2\n'),
                    self.write('b.yaml', b'parameter_defaults:\n'
                               b'  Debug: true\n')],
                   [self.write('oc2.yaml', TEMPLATE + b'# two\n')
                    + '=overcloud.yaml'])
        self.amend(remove=[self.path('a.yaml')])
        self.amend([os.path.join(self.dir, 'a.yaml')])

    def compare(self, *args, **kwargs):
        return diff.compare(fakes.plan_store(read_only=True), 'p', *args,
                            progress=self.lines.append, **kwargs)

    def generated(self):
        data = self.swift.objects[layout.PLAN_ENVIRONMENT][0]
        return yaml.safe_load(data)['passwords']['AdminPassword']


class TestCompare(DiffTestCase):

    def test_from_the_last_deploy_to_now(self):
        self.story()
        result = self.compare()
        self.assertEqual((2, 'deploy'), (result['from']['step'],
                                         result['from']['action']))
        self.assertEqual(5, result['to']['step'])
        self.assertIn('comparing from step 2 (deploy', self.lines[0])
        self.assertEqual([self.path('b.yaml')],
                         result['environments_added'])
        self.assertEqual([], result['environments_removed'])
        self.assertFalse(result['environments_reordered'])
        self.assertEqual([self.path('b.yaml')], result['files_added'])
        self.assertEqual(['overcloud.yaml', self.path('a.yaml')],
                         result['files_changed'])
        self.assertEqual({
            'Debug': {'change': 'added', 'new': True},
            'NeutronPassword': {'change': 'changed', 'old': '***',
                                'new': '***'},
            'NtpServer': {'change': 'changed', 'old': 'a.example',
                          'new': 'b.example'}},
            result['parameters_changed'])
        text = result['diff']
        self.assertIn('--- a/%s\n+++ b/%s\n@@ -1,3 +1,3 @@\n'
                      ' parameter_defaults:\n'
                      '-  NtpServer: a.example\n'
                      '-  NeutronPassword: ***\n'
                      '+  NtpServer: b.example\n'
                      '+  NeutronPassword: ***\n' % (
                          self.path('a.yaml'), self.path('a.yaml')), text)
        self.assertIn('--- /dev/null\n+++ b/%s\n@@ -0,0 +1,2 @@\n'
                      '+parameter_defaults:\n+  Debug: true\n'
                      % self.path('b.yaml'), text)
        self.assertIn('--- a/overcloud.yaml\n+++ b/overcloud.yaml\n'
                      '@@ -2,3 +2,4 @@\n', text)
        self.assertIn('\n+# two\n', text)
        for secret in ('first-secret-1', 'second-secret-2',
                       self.generated()):
            self.assertNotIn(secret, json.dumps(result))

    def test_the_list_reordered_and_files_removed(self):
        self.story()
        result = self.compare('3', '4')
        self.assertEqual([self.path('a.yaml')],
                         result['environments_removed'])
        self.assertEqual({'NeutronPassword', 'NtpServer'},
                         set(result['parameters_changed']))
        self.assertEqual({'change': 'removed', 'old': 'b.example'},
                         result['parameters_changed']['NtpServer'])
        # The file stays in the plan: only the list changed.
        self.assertEqual([], result['files_removed'] +
                         result['files_changed'] + result['files_added'])
        self.assertEqual('', result['diff'])
        reordered = self.compare('3', '5')
        self.assertTrue(reordered['environments_reordered'])
        self.assertEqual([], reordered['environments_added'])
        self.assertEqual({}, reordered['parameters_changed'])

    def test_a_reversed_range_shows_what_going_back_changes(self):
        self.story()
        back = self.compare('5', '1')
        self.assertIn('Step 5 comes after step 1', self.lines[0])
        self.assertEqual([self.path('b.yaml')], back['files_removed'])
        self.assertEqual({'change': 'changed', 'old': 'b.example',
                          'new': 'a.example'},
                         back['parameters_changed']['NtpServer'])
        # What a restore of step 1 then does is exactly that.
        fakes.stack_is(self.m, None)
        fakes.restore(self.store, '1')
        done = self.compare('5', '6')
        for column in ('files_added', 'files_removed', 'files_changed',
                       'environments_added', 'environments_removed',
                       'parameters_changed', 'diff'):
            self.assertEqual(back[column], done[column], column)

    def test_never_deployed_compares_from_the_create(self):
        self.create(self.write('a.yaml', b'parameter_defaults: {X: 1}\n'))
        self.deployed(status='FAILED')
        self.amend([self.write('a.yaml', b'parameter_defaults: {X: 2}\n')])
        result = self.compare()
        self.assertEqual(1, result['from']['step'])
        self.assertIn('never deployed', self.lines[0])
        self.assertIn('comparing from step 1 (create)', self.lines[0])
        self.assertEqual({'X': {'change': 'changed', 'old': 1, 'new': 2}},
                         result['parameters_changed'])

    def test_values_json_cannot_hold_are_shown_as_text(self):
        self.create(self.write('a.yaml', b'parameter_defaults: {}\n'))
        self.amend([self.write('a.yaml', b'parameter_defaults:\n'
                               b'  When: 2026-11-23\n'
                               b'  Blob: !!binary aGk=\n'
                               b'  Names: !!set {a, b}\n'
                               b'  1: one\n')])
        changed = json.loads(json.dumps(self.compare()))[
            'parameters_changed']
        self.assertEqual('2026-11-23', changed['When']['new'])
        self.assertEqual("b'hi'", changed['Blob']['new'])
        self.assertEqual(['a', 'b'], changed['Names']['new'])
        self.assertEqual('one', changed['1']['new'])

    def test_steps_by_id_and_the_same_step_twice(self):
        self.story()
        rows, _ = self.store.reader.history('p')
        by_id = self.compare(rows[1]['id'], rows[2]['id'])
        self.assertEqual(self.compare('2', '3'), by_id)
        same = self.compare('3', '3')
        self.assertEqual(([], {}, ''), (
            same['files_changed'], same['parameters_changed'],
            same['diff']))


class TestSecrets(DiffTestCase):

    def hidden_story(self, hidden_in, shown_in):
        """1 create with ``hidden_in`` (a template declaring HashSuffix
        hidden) at overcloud.yaml and a.yaml setting it; 2 a.yaml sets it
        anew and overcloud.yaml becomes ``shown_in``."""
        self.write('tht/overcloud.yaml', hidden_in)
        self.create(self.write('a.yaml', b'parameter_defaults:\n'
                               b'  HashSuffix: first-suffix-1\n'
                               b'  Plain: one\n'))
        self.amend([self.write('a.yaml', b'parameter_defaults:\n'
                               b'  HashSuffix: second-suffix-2\n'
                               b'  Plain: two\n')],
                   [self.write('oc2.yaml', shown_in) + '=overcloud.yaml'])

    def assert_hidden(self, result, hidden='HashSuffix', back=False):
        self.assertEqual({'change': 'changed', 'old': '***', 'new': '***'},
                         result['parameters_changed'][hidden])
        self.assertEqual({'change': 'changed', 'old': 'two' if back else
                          'one', 'new': 'one' if back else 'two'},
                         result['parameters_changed']['Plain'])
        text = json.dumps(result)
        for value in ('first-suffix-1', 'second-suffix-2'):
            self.assertNotIn(value, text)
        self.assertIn('-  %s: ***\n' % hidden, result['diff'])

    def test_a_parameter_a_template_declares_hidden_shows_masked(self):
        # Its name says nothing secret, and with a default no password is
        # generated for it: the templates of either step say it.
        declared = (b'heat_template_version: rocky\nparameters:\n'
                    b'  HashSuffix:\n    type: string\n    hidden: true\n'
                    b'    default: unset\n')
        plain = b'heat_template_version: rocky\nparameters: {}\n'
        self.hidden_story(declared, plain)
        self.assert_hidden(self.compare('1', '2'))
        self.assert_hidden(self.compare('2', '1'), back=True)

    def test_hidden_in_a_cfn_template_or_a_jinja2_source(self):
        for template in (
                b'{"AWSTemplateFormatVersion": "2010-09-09", "Parameters": '
                b'{"HashSuffix": {"Type": "String", "NoEcho": "true"}}}',
                b'heat_template_version: rocky\nparameters:\n'
                b'{% for role in roles %}\n  {{role.name}}Count: 1\n'
                b'{% endfor %}\n  HashSuffix: {type: string, '
                b'hidden: true}\n',
                b'heat_template_version: rocky\nparameters:\n'
                b'{% if x %}\n  HashSuffix:\n    type: string\n'
                b'    hidden: yes\n{% endif %}\n'):
            self.setUp()
            self.hidden_story(template, TEMPLATE)
            self.assert_hidden(self.compare('1', '2'))

    def test_a_template_that_cannot_be_read_hides_every_value(self):
        declared = (b'heat_template_version: rocky\nparameters:\n'
                    b'  HashSuffix: {type: json, hidden: true}\n')
        self.hidden_story(declared, declared + b'# two\n')
        # changed outside any step: step 1's content is nowhere now
        self.swift.store('overcloud.yaml', b'# by hand\n')
        result = self.compare('1', '2', with_diff=False)
        self.assertEqual({'change': 'changed', 'old': '***', 'new': '***'},
                         result['parameters_changed']['Plain'])
        self.assertNotIn('suffix-', json.dumps(result))
        self.assertIn('every parameter value is masked', self.lines[-1])

    def test_a_generated_password_overridden_shows_masked(self):
        self.create(self.write('a.yaml', b'parameter_defaults: {}\n'))
        generated = self.generated()
        self.amend([self.write('a.yaml', b'parameter_defaults:\n'
                               b'  AdminPassword: my-own-password\n'
                               b'  Plain: value\n')])
        result = self.compare()
        self.assertEqual({'change': 'changed', 'old': '***', 'new': '***'},
                         result['parameters_changed']['AdminPassword'])
        text = json.dumps(result)
        self.assertNotIn(generated, text)
        self.assertNotIn('my-own-password', text)
        self.assertIn('+  AdminPassword: ***\n', result['diff'])
        self.assertIn('+  Plain: value\n', result['diff'])

    def test_a_plan_environment_shows_no_password(self):
        self.create()
        generated = self.generated()
        penv = self.write('penv.yaml', (
            'passwords:\n'
            '  RabbitCookie: COOKIEVALUEXYZ\n'
            '  MigrationSshKey:\n'
            '    private_key: |\n'
            '      -----BEGIN RSA PRIVATE KEY-----\n'
            '      MIIEpAIBAAKCAQEAsecretsecret\n'
            'parameter_defaults:\n'
            '  RabbitCookie: COOKIEVALUEXYZ\n'
            '  Tuning: {nova::db::password: dbpass12345, workers: 4}\n'
            '  Copy: has %s inside\n' % generated).encode())
        self.amend(inputs=[('plan_environment', penv)])
        result = self.compare()
        self.assertEqual([self.path('penv.yaml')], result['files_added'])
        text = json.dumps(result)
        for secret in (generated, 'COOKIEVALUEXYZ', 'secretsecret',
                       'dbpass12345'):
            self.assertNotIn(secret, text)
        self.assertIn('+passwords:\n+  ***\n+  ***\n+    ***\n+      ***\n',
                      result['diff'])
        changed = result['parameters_changed']
        # A name the plan keeps under passwords: is secret by that alone.
        self.assertEqual({'change': 'added', 'new': '***'},
                         changed['RabbitCookie'])
        self.assertEqual({'nova::db::password': '***', 'workers': 4},
                         changed['Tuning']['new'])
        self.assertEqual('***', changed['Copy']['new'])
        self.assertEqual('***', changed['MigrationSshKey']['new'])


class TestRequests(DiffTestCase):

    def requests(self, *args, **kwargs):
        self.swift.requests.clear()
        self.compare(*args, **kwargs)
        return list(self.swift.requests)

    def test_a_diff_reads_the_record_and_only_what_differs(self):
        self.story()
        self.store.reader.history('p')         # show-history mends the cache
        # From step 3 to 5: the files are the same (only the list
        # changed): one listing, the cache, the two step objects, one
        # snapshot (the trees share it), the plan environment, the
        # two environment files (one content each) and the files that
        # may be templates (which parameters are hidden).
        made = self.requests('3', '5')
        step = [e['name'] for e in log.ordered(
            self.store.container.listing('p')[1].values())]
        self.assertEqual(('LIST', ''), made[0])
        self.assertEqual(sorted([
            ('GET', log.PATH), ('GET', step[2]), ('GET', step[4]),
            ('GET', tree.snapshot_name(self.store.reader.head(
                'p').state['tree']['base']))]), sorted(made[1:5]))
        self.assertEqual(sorted([('GET', layout.PLAN_ENVIRONMENT),
                                 ('GET', self.path('a.yaml')),
                                 ('GET', self.path('b.yaml')),
                                 ('GET', 'overcloud.yaml'),
                                 ('GET', 'roles_data.yaml')]),
                         sorted(made[5:]))
        # From step 2: and the content of each changed file on both
        # sides (the old one from its kept copy), of each added file.
        made = self.requests('2', '5')
        kept = tree.kept_name(content.md5(
            b'parameter_defaults:\n  NtpServer: a.example\n'
            b'  NeutronPassword: first-secret-1\n'))
        self.assertEqual(sorted(
            [('GET', n) for n in (
                layout.PLAN_ENVIRONMENT, kept, self.path('a.yaml'),
                self.path('b.yaml'), 'overcloud.yaml', 'roles_data.yaml',
                tree.kept_name(content.md5(TEMPLATE)))]),
            sorted(made[5:]))
        self.assertEqual(12, len(made))
        # --no-diff: the files that give parameters (and templates) only.
        made = self.requests('2', '5', with_diff=False)
        self.assertEqual(12, len(made))

    def test_what_templates_hide_is_read_once_per_content(self):
        self.story()
        path = os.path.join(self.dir, 'cache', 'hidden.json')
        first = self.requests('2', '5', known=hidden_parameters.Known(path))
        self.assertIn(('GET', 'roles_data.yaml'), first)
        with open(path) as f:
            self.assertEqual(['AdminPassword'], json.load(f)[content.md5(
                TEMPLATE)])
        # Another run: only what differs is read (for the diff itself).
        again = self.requests('2', '5', known=hidden_parameters.Known(path))
        self.assertNotIn(('GET', 'roles_data.yaml'), again)
        self.assertEqual(len(first) - 1, len(again))
        # A cache that is no cache is ignored.
        with open(path, 'w') as f:
            f.write('[not, a, mapping')
        self.assertEqual({}, hidden_parameters.Known(path).entries)
        self.assertEqual(sorted(first), sorted(self.requests(
            '2', '5', known=hidden_parameters.Known(path))))

    def test_nothing_is_written_not_even_the_cache(self):
        self.story()
        before = dict(self.swift.objects)
        made = self.requests()
        self.assertEqual([], [r for r in made if r[0] in WRITES])
        self.assertEqual(before, self.swift.objects)
        # Without a cache, every step object is read once.
        self.assertEqual(5, len([r for r in made if r[1].startswith(
            log.LOG_PREFIX)]))


class TestBadInput(DiffTestCase):

    def assert_refused(self, message, *args):
        self.swift.requests.clear()
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError, message):
            self.compare(*args)
        self.assertEqual(before, self.swift.objects)
        self.assertEqual([], [r for r in self.swift.requests
                              if r[0] in WRITES])

    def test_unknown_steps_and_plans(self):
        self.story()
        self.assert_refused('Plan p has no step 99: its history has steps 1 '
                            'to 5', '99')
        self.assert_refused('Plan p has no step 0', '1', '0')
        self.assert_refused("no step with id 'nope'", None, 'nope')
        self.m.get(fakes.SWIFT + '/q', status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan q does not exist'):
            diff.compare(fakes.plan_store(read_only=True), 'q')

    def test_a_damaged_record_is_named(self):
        self.story()
        entries = log.ordered(self.store.container.listing('p')[1].values())
        self.swift.store(entries[2]['name'], b'- not a step\n')
        self.assert_refused('Step object %s of plan p is damaged'
                            % entries[2]['name'])

    def test_content_that_was_not_kept_is_named(self):
        self.story()
        self.swift.objects.pop(tree.kept_name(content.md5(TEMPLATE)))
        self.assert_refused(r'content of 1 file\(s\) as of step 2 was not '
                            r'kept \(overcloud.yaml\)', '2')

    def test_a_broken_environment_file_is_named(self):
        self.create(self.write('a.yaml', b'parameter_defaults: {X: 1}\n'))
        self.amend([self.write('a.yaml', b'parameter_defaults: [1]\n')])
        self.assert_refused(r'parameter_defaults" in %s as of step 2 is '
                            r'not a mapping' % self.path('a.yaml'))


class TestUnified(DiffTestCase):

    def same_as_difflib(self, old, new):
        ours = diff.unified('f', old, new, lambda lines: lines)
        theirs = list(difflib.unified_diff(
            old.decode().splitlines(), new.decode().splitlines(),
            'a/f', 'b/f', lineterm=''))
        self.assertEqual(theirs, ours)

    def test_hunks_are_those_of_diff_u(self):
        old = ''.join('line %d\n' % i for i in range(40)).encode()
        new = old.replace(b'line 3\n', b'').replace(
            b'line 20\n', b'line 20\nnew\n').replace(b'line 39', b'last')
        self.same_as_difflib(old, new)
        self.same_as_difflib(b'', b'a\n')
        self.same_as_difflib(b'a\nb\n', b'')

    def test_a_missing_last_line_end_is_said(self):
        self.assertEqual(['--- a/f', '+++ b/f', '@@ -1 +1 @@', '-x',
                          '\\ No newline at end of file', '+x'],
                         diff.unified('f', b'x', b'x\n', lambda x: x))

    def test_binary_content_is_one_line_with_its_md5s(self):
        old, new = b'\x00\x01', b'\xff\xfe\x00'
        self.assertEqual(['Binary files a/f and b/f differ (MD5 %s -> %s)'
                          % (content.md5(old), content.md5(new))],
                         diff.unified('f', old, new, lambda x: x))
        self.assertEqual(['Binary files /dev/null and b/f differ (MD5 none '
                          '-> %s)' % content.md5(b'\xff')],
                         diff.unified('f', None, b'\xff', lambda x: x))

    def test_a_line_masked_on_one_side_stays_masked_as_context(self):
        old = b'x:\n  a: 1\n  b: 2\n'
        new = b'passwords:\n  a: 1\n  b: 2\n'
        lines = diff.unified('f', old, new, masking.mask_lines)
        self.assertEqual(['--- a/f', '+++ b/f', '@@ -1,3 +1,3 @@', '-x:',
                          '+passwords:', '   ***', '   ***'], lines)

    def test_a_binary_upload_in_a_plan(self):
        self.create()
        self.amend(uploads=[self.write('blob', b'\x00old') + '=blob'])
        self.amend(uploads=[self.write('blob', b'\x00new') + '=blob'])
        result = self.compare('2', '3')
        self.assertEqual(['blob'], result['files_changed'])
        self.assertEqual('Binary files a/blob and b/blob differ (MD5 %s -> '
                         '%s)\n' % (content.md5(b'\x00old'),
                                    content.md5(b'\x00new')),
                         result['diff'])
