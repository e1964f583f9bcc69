"""Record objects are untrusted input (Hypothesis), end to end.

Anyone with the account can PUT any bytes into a plan's record. Each
property here writes one hostile object (arbitrary YAML, bytes that are
no YAML, or the real object damaged in a few places) into one kind of
record object of an otherwise valid plan in the fake Swift, then runs
show-history, show-step, diff, the render action, deploy
--dry-run and restore as the commands do (the cliff command classes; the
actions' bodies behind the fake Mistral). Each must succeed, or end in a
CommandError naming the object (any CommandError when the record's own
loader takes the object: the record then says something else); any other
exception fails. A refusal writes nothing but the record's cache and kept
copies.
"""

import datetime
import io
import json
import os
import tempfile

import hypothesis
from hypothesis import strategies as st
import yaml

from tests.unit import fakes
from tests.unit.record import hostile_values
from tripleoplanclient.common import exceptions
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_step as plan_step_commands
from tripleoplanclient.plan import copies
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree
from tripleoplanclient import protocol
from tripleoplanclient.record import index
from tripleoplanclient.record import log

# The same examples each run (derandomize), few enough that the module
# takes ~40 s; each example runs every operation that reads its object.
SETTINGS = hypothesis.settings(
    max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.too_slow,
                           hypothesis.HealthCheck.data_too_large])

TMP = tempfile.TemporaryDirectory()
DIR = TMP.name
STACK_ID = fakes.STACK_ID
# The operations that read the history (the render action does not).
HISTORY = ('show-history', 'show-step', 'diff', 'deploy --dry-run',
           'restore')
ENDPOINTS = fakes.ENDPOINTS

# Every type YAML gives (dates, binary, sets, huge numbers) and names a
# record holds.
NAMES = st.sampled_from([
    '../x', '/abs', 'a/./b', 'SUCCESS', 'IN_PROGRESS', 'overcloud.yaml',
    'roles_data.yaml', 'user-environments/environments.yaml', '',
    'd41d8cd98f00b204e9800998ecf8427e', '../../victim/x.json', 'x' * 300])
LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.just(10 ** 400),
    st.floats(), st.text(max_size=12), st.binary(max_size=8), NAMES,
    st.dates(), st.datetimes(), st.datetimes(
        timezones=st.just(datetime.timezone.utc)))
KEYS = st.one_of(st.text(max_size=8), NAMES, st.integers(), st.none(),
                 st.booleans(), st.dates(), st.floats(allow_nan=False))
VALUE = st.recursive(LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.sets(st.text(max_size=4), max_size=3),
    st.dictionaries(KEYS, inner, max_size=4)), max_leaves=16)
# Hand-made YAML no dump gives.
SNIPPETS = st.sampled_from([
    b'[' * 3000 + b']' * 3000, b'{a: ' * 2000 + b'1' + b'}' * 2000,
    b'&a [*a]', b'a: &a {b: *a}', b'a: *nowhere', b'- 1', b'- [1]',
    b'outputs: [[1]]', b'inputs: 1\noutputs: {a: [1]}',
    b'x: &a [a, a, a, a, a, a, a, a]\ny: &b [*a, *a, *a, *a, *a, *a, *a]\n'
    b'z: &c [*b, *b, *b, *b, *b, *b, *b]\nw: [*c, *c, *c, *c, *c, *c]\n',
    b'!!python/object/apply:os.system [true]', b'a: !!binary "no"',
    b'a: !!int 1e9999', b'a: !!timestamp x', b'--- a\n--- b\n',
    b'%YAML 9.9\n--- a', b'a:\n\tb: c', b'? [a]\n: b', b'a: 1\na: 2',
    b'{<<: [1]}', b'{<<: {a: 1}, a: 2}', b'!!set {a, b}', b'\xff\xfe\x00',
    b'', b'null', b'~', b'{}', b'[]', b'0', b'"text"', b'\x00'])


def dumped(value):
    """YAML of ``value`` (or of what it becomes when YAML cannot say it)."""
    try:
        return yaml.safe_dump(value, allow_unicode=True).encode()
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return yaml.safe_dump(repr(value)).encode()


def as_json(value):
    try:
        return json.dumps(value).encode()
    except (ValueError, TypeError, RecursionError):
        return dumped(value)


def hostile_bytes(original):
    """Bytes for an object that held ``original``: anything, or that
    object damaged (in YAML, and as JSON, which the cache and the trees
    are)."""
    try:
        parsed = yaml.safe_load(original)
    except yaml.YAMLError:
        parsed = None
    out = [VALUE.map(dumped), SNIPPETS, st.binary(max_size=120),
           st.text(max_size=120).map(str.encode)]
    if isinstance(parsed, (dict, list)):
        damaged = hostile_values.mutated(parsed, values=VALUE)
        out += [damaged.map(dumped), damaged.map(dumped),
                damaged.map(as_json)]
    return st.one_of(out)


def accepted(name, data):
    """Whether the record's own loader takes ``data`` as object ``name``
    (a step, an outcome, the cache of another shape than the one made):
    then the record says something else, and a command may refuse what it
    says (a step with no tree cannot be shown) without naming it."""
    try:
        if name.startswith(log.LOG_PREFIX):
            log.load_step(data, 'p', name)
        elif name.startswith(log.OUTCOME_PREFIX):
            log.load_outcome(data, name, 'p')
        elif name == log.PATH:
            index.load_cache(data, 'p')
        else:
            return False    # content-addressed, or read by no loader here
    except exceptions.CommandError:
        return False
    return True


def write(path, text):
    return fakes.write_file(os.path.join(DIR, path), text)


TEMPLATES = {
    'overcloud.yaml': 'heat_template_version: rocky\nparameters:\n'
    '  AdminPassword: {type: string, hidden: true}\n'
    '  NtpServer: {type: string, default: x}\n'
    'resources:\n  R:\n    type: roles/controller-role.yaml\n',
    'roles_data.yaml': '- name: Controller\n',
    'roles/role.role.j2.yaml':
        'heat_template_version: rocky\n# {{role.name}}\nresources: {}\n'}


class RecordTestCase(fakes.HttpTestCase):
    """A plan p made by the commands: create (rendered), amend, deploy
    (its final outcome written by the follow task), over a Heat whose
    stack p is complete."""

    # {name: (bytes, Swift's time)} of the plan once made; made once.
    built = None

    def setUp(self):
        super().setUp()
        self.deploy_services()
        if RecordTestCase.built is None:
            fakes.stack_is(self.m, None)
            self.make()
            RecordTestCase.built = dict(self.swift.objects)
        # Heat's stack ended after the deploy step was recorded.
        fakes.stack_is(self.m, {'stack': {
            'id': STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': 'done',
            'creation_time': datetime.datetime.now(datetime.timezone.utc)
            .strftime('%Y-%m-%dT%H:%M:%SZ')}}, STACK_ID)
        self.swift.objects = dict(self.built)
        self.roles = write('roles2.yaml', '- name: Controller\n'
                           '- name: Compute\n')

    def make(self):
        for path, text in TEMPLATES.items():
            write('tht/' + path, text)
        env = write('env1.yaml', 'parameter_defaults: {NtpServer: a}\n')
        self.run_command(plan_commands.CreatePlan, 'p', '--templates',
                         os.path.join(DIR, 'tht'), '-e', env)
        write('env1.yaml', 'parameter_defaults: {NtpServer: b}\n')
        self.run_command(plan_commands.AmendPlan, 'p', '-e', env, '-e',
                         write('env2.yaml', 'parameter_defaults: '
                               '{AdminPassword: Mine1}\n'))
        self.run_command(deploy_commands.Deploy, '--stack', 'p',
                         '--no-wait')
        step = log.id_of(max(self.names(log.LOG_PREFIX)))
        fakes.plan_store().writer.write_outcome('p', step, {
            'status': 'SUCCESS', 'stack_status': 'CREATE_COMPLETE'},
            {'updated': '2026-11-23T11:00:00Z'})

    def names(self, prefix):
        return sorted(n for n in self.built or self.swift.objects
                      if n.startswith(prefix))

    def run_command(self, cls, *argv):
        app = fakes.make_app(ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        parsed = cmd.get_parser('openstack').parse_args(list(argv))
        code = cmd.run(parsed)
        if code == exit_status.REFUSED:
            # A refusal prints its row and exits 3, the message on stderr.
            self.assertIn('REFUSED', app.stdout.getvalue())
            raise exceptions.CommandError(app.stderr.getvalue())
        self.assertEqual(0, code)
        return app.stdout.getvalue()

    def render(self):
        """The render action's body, asked as a step asks it."""
        head = fakes.plan_store().reader.head('p')
        fakes.run_ours(fakes.plan_store(), protocol.request(
            'render', container='p', swift_url=fakes.SWIFT,
            roles_data=head.state['inputs'].get('roles_data'),
            tree=head.state.get('tree')), protocol.action('render'))

    def operations(self, names=None):
        """``[(name, run it)]`` of the operations named (default: all)."""
        every = [
            ('show-history', lambda: self.run_command(
                plan_commands.ShowPlanHistory, 'p')),
            ('show-step', lambda: self.run_command(
                plan_step_commands.ShowPlanStep, 'p', '1')),
            ('diff', lambda: self.run_command(
                plan_commands.DiffPlan, 'p', '--from', '1')),
            ('render', self.render),
            ('deploy --dry-run', lambda: self.run_command(
                deploy_commands.Deploy, '--stack', 'p', '--dry-run',
                '-r', self.roles)),
            ('restore', lambda: self.run_command(
                plan_commands.RestorePlan, 'p', '--step', '1')),
        ]
        return [(n, op) for n, op in every if names is None or n in names]

    def check(self, name, data, operations=None):
        """The ``operations`` (default: all) on the plan with ``data`` as
        object ``name``."""
        for what, operation in self.operations(operations):
            self.damage(name, data)
            before = dict(self.swift.objects)
            try:
                operation()
            except exceptions.CommandError as exc:
                if not accepted(name, data):
                    self.assertIn(name, str(exc), '%s: %s' % (what, exc))
                self.assertEqual(self.kept(before),
                                 self.kept(self.swift.objects), what)

    def damage(self, name, data):
        """The plan as made, but ``data`` in object ``name`` (in place:
        Swift's order of the steps stays)."""
        self.swift.objects = dict(self.built)
        self.swift.objects[name] = (data, self.built[name][1])

    def expect_refusal(self, name, operation, *argv):
        with self.assertRaises(exceptions.CommandError) as caught:
            self.run_command(operation, 'p', *argv)
        self.assertIn(name, str(caught.exception))
        return str(caught.exception)

    @staticmethod
    def kept(objects):
        """What a refusal must leave: all but the cache (mended by any
        reader) and content kept meanwhile (a copy, adding to nothing)."""
        return {n: v for n, v in objects.items() if n != log.PATH and
                not n.startswith(tree.KEPT_PREFIX)}

    def one_of(self, data, prefix):
        """The name of one object under ``prefix``, and bytes for it."""
        name = data.draw(st.sampled_from(self.names(prefix)), 'name')
        return name, data.draw(hostile_bytes(self.built[name][0]), 'data')


class TestRecordObjects(RecordTestCase):

    def test_the_plan_is_whole_without_damage(self):
        self.assertEqual(3, len(self.names(log.LOG_PREFIX)))
        for kind in (log.OUTCOME_PREFIX, tree.SNAPSHOT_PREFIX,
                     tree.KEPT_PREFIX, log.PATH, layout.RENDER_MANIFEST,
                     layout.PLAN_ENVIRONMENT):
            self.assertTrue(self.names(kind), kind)
        for what, operation in self.operations():
            self.swift.objects = dict(self.built)
            operation()

    @SETTINGS
    @hypothesis.given(st.data())
    def test_step_objects(self, data):
        self.check(*self.one_of(data, log.LOG_PREFIX))

    @SETTINGS
    @hypothesis.given(st.data())
    def test_outcome_objects(self, data):
        self.check(*self.one_of(data, log.OUTCOME_PREFIX),
                   operations=HISTORY)

    @SETTINGS
    @hypothesis.given(st.data())
    def test_tree_snapshots(self, data):
        self.check(*self.one_of(data, tree.SNAPSHOT_PREFIX), operations=(
            'show-step', 'diff', 'render', 'deploy --dry-run',
            'restore'))

    @SETTINGS
    @hypothesis.given(st.data())
    def test_kept_content(self, data):
        self.check(*self.one_of(data, tree.KEPT_PREFIX),
                   operations=('diff', 'restore'))

    @SETTINGS
    @hypothesis.given(st.data())
    def test_the_cache(self, data):
        self.check(*self.one_of(data, log.PATH), operations=HISTORY)

    @SETTINGS
    @hypothesis.given(st.data())
    def test_the_render_manifest(self, data):
        self.check(*self.one_of(data, layout.RENDER_MANIFEST),
                   operations=('render', 'deploy --dry-run'))

    @SETTINGS
    @hypothesis.given(st.data())
    def test_the_plan_environment(self, data):
        self.check(*self.one_of(data, layout.PLAN_ENVIRONMENT),
                   operations=('diff', 'deploy --dry-run', 'restore'))


class TestFound(RecordTestCase):
    """What the properties found, one example each."""

    def test_a_snapshot_is_its_md5_or_damaged(self):
        name = self.names(tree.SNAPSHOT_PREFIX)[0]
        snapshot = json.loads(self.built[name][0])
        del snapshot['overcloud.yaml']
        # A tree of the right shape, not the one named: no plan "without
        # overcloud.yaml" is shown, diffed, restored or sent to Heat.
        self.damage(name, json.dumps(snapshot).encode())
        self.expect_refusal(name, plan_step_commands.ShowPlanStep, '1')
        self.expect_refusal(name, plan_commands.DiffPlan, '--from', '1')
        self.expect_refusal(name, plan_commands.RestorePlan, '--step', '1')

    def test_a_kept_copy_that_is_not_its_md5_is_named(self):
        name = self.names(tree.KEPT_PREFIX)[0]
        self.damage(name, b'parameter_defaults: {NtpServer: c}\n')
        # Refused before any write, by its listing (not half restored).
        self.swift.requests.clear()
        self.expect_refusal(name, plan_commands.RestorePlan, '--step', '1')
        self.assertEqual([], [r for r in self.swift.requests if r[0] not in (
            'LIST', 'GET', 'HEAD') and r[1] != log.PATH])
        self.expect_refusal(name, plan_commands.DiffPlan, '--from', '1')
        # Damaged after the listing: Swift refuses the copy (If-Match).
        md5 = name.rsplit('/', 1)[1]
        with self.assertRaisesRegex(exceptions.CommandError,
                                    '%s does not hold MD5 %s' % (name, md5)):
            copies.copy_objects(fakes.plan_store().container, 'p',
                                {'a.yaml': name}, {'a.yaml': md5})

    def test_rows_without_time_or_user_are_damaged(self):
        cache = json.loads(self.built[log.PATH][0])
        for field in ('time', 'user'):
            rows = json.loads(json.dumps(cache))
            del rows['history'][0][field]
            # The cache is only a cache: the steps tell the history.
            self.damage(log.PATH, json.dumps(rows).encode())
            self.assertIn('| deploy', self.run_command(
                plan_commands.ShowPlanHistory, 'p'))
            step = self.names(log.LOG_PREFIX)[0]
            data = yaml.safe_load(self.built[step][0])
            del data[field]
            self.damage(step, dumped(data))
            del self.swift.objects[log.PATH]    # else read from there
            self.expect_refusal(step, plan_commands.ShowPlanHistory)

    def test_a_manifest_libyaml_cannot_construct_is_no_manifest(self):
        self.damage(layout.RENDER_MANIFEST, b'a: !!timestamp x')
        self.render()
        self.assertNotEqual(b'a: !!timestamp x', self.swift.objects[
            layout.RENDER_MANIFEST][0])
