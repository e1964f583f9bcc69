"""Hostile environment files thrown at the reference walker (Hypothesis):
whatever a file holds, the result is the file stored with its references
made plan paths, or a CommandError naming the file; never a traceback."""

import os
import tempfile
import unittest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import heat_environment

TMP = tempfile.TemporaryDirectory()
ROOT = TMP.name
USER = os.path.join(ROOT, 'home')
os.makedirs(os.path.join(USER, 'envs'))

# Text YAML can hold (junk comes as bytes, below).
CHARS = st.characters(blacklist_categories=('Cs', 'Cc', 'Co', 'Cn'))
KEYS = st.one_of(st.text(CHARS, max_size=6), st.integers(), st.none(),
                 st.booleans(), st.floats(allow_nan=False),
                 st.sampled_from(['type', 'get_file', 'resource_registry',
                                  'base_url', 'hooks']))
REFS = st.sampled_from([
    'tpl.yaml', '../envs/tpl.yaml', os.path.join(USER, 'envs', 'tpl.yaml'),
    'file://' + os.path.join(USER, 'envs', 'tpl.yaml'), 'missing.yaml',
    'script.sh', 'http://example.com/t.yaml', 'OS::Heat::None',
    'dir/', '', 'a b.yaml', "it's.yaml", '#x.yaml', 'tpl.yaml # no'])
SCALARS = st.one_of(REFS, st.text(CHARS, max_size=10), st.integers(),
                    st.none(), st.booleans(), st.floats())
TREES = st.recursive(
    SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(KEYS, inner, max_size=4)), max_leaves=20)
ENVIRONMENTS = st.one_of(
    TREES,
    st.fixed_dictionaries({'resource_registry': st.dictionaries(
        st.sampled_from(['OS::A', 'OS::B', 'base_url', 'hooks']), REFS,
        min_size=1, max_size=4)}),
    st.fixed_dictionaries({}, optional={
        'resource_registry': st.dictionaries(
            KEYS,
            st.one_of(REFS, st.dictionaries(KEYS, REFS, max_size=3)),
            max_size=5),
        'parameter_defaults': st.dictionaries(KEYS, TREES, max_size=3),
        'bogus': TREES}))
TEMPLATES = st.one_of(TREES, st.fixed_dictionaries({
    'heat_template_version': st.just('rocky'),
    'resources': st.dictionaries(st.sampled_from('abcd'), st.one_of(
        st.fixed_dictionaries({'type': REFS}),
        st.fixed_dictionaries({'properties': st.fixed_dictionaries(
            {'config': st.fixed_dictionaries({'get_file': REFS})})})),
        max_size=4)}))
# Hand-made YAML that a dump never produces.
SNIPPETS = st.sampled_from([
    b'resource_registry: &a [*a]\n', b'resource_registry: &a {x: *a}\n',
    b'resource_registry:\n  A: tpl.yaml\n  A: tpl.yaml\n',
    b'resource_registry: {A: &r tpl.yaml, B: *r}\n',
    b'x: &a [a, a, a, a, a, a, a, a]\ny: &b [*a, *a, *a, *a, *a, *a, *a]\n'
    b'z: &c [*b, *b, *b, *b, *b, *b, *b]\nw: [*c, *c, *c, *c, *c, *c]\n',
    b'parameter_defaults: {<<: {a: 1}, a: 2}\n', b'a: 2001-13-45\n',
    b'[' * 5000 + b']' * 5000, b'? [a]\n: b\n', b'!!python/object:os.system\n',
    b'resource_registry: !!binary "not base64"\n', b'--- a\n--- b\n',
    b'\xff\xfe\x00', b'a: *undefined\n', b'resource_registry:\n\tA: b\n',
    b'a: !!int abc\n', b'a: !!bool maybe\n', b'a: !!timestamp x\n',
    b'a: !!float y\n', b'a: !!int 1e999999\n', b'a: !!set {b, c}\n',
    b'? !!python/tuple [a]\n: b\n', b'resource_registry: !!omap [a: b]\n',
    b'resource_registry:\n  <<: {A: tpl.yaml}\n  A: tpl.yaml\n',
    b'resource_registry: &r {A: tpl.yaml}\nparameter_defaults: {<<: *r}\n'])
ENCODINGS = st.sampled_from(['utf-8', 'utf-8', 'utf-8', 'utf-8-sig',
                             'utf-16', 'utf-16-le', 'utf-32', 'latin-1'])


def dump(tree):
    try:
        return yaml.safe_dump(tree, sort_keys=False, allow_unicode=True)
    except yaml.YAMLError:
        return yaml.safe_dump(repr(tree))


@st.composite
def files(draw):
    """Bytes of an environment file and of the template it references."""
    def one(trees):
        kind = draw(st.sampled_from(['tree'] * 4 + ['snippet', 'bytes']))
        if kind == 'snippet':
            return draw(SNIPPETS)
        if kind == 'bytes':
            return draw(st.binary(max_size=64))
        text = dump(draw(trees))
        encoding = draw(ENCODINGS)
        return text.encode(encoding, 'replace')
    env = one(ENVIRONMENTS)
    if draw(st.integers(0, 3)) == 3:    # a stray byte somewhere
        at = draw(st.integers(min_value=0, max_value=len(env)))
        env = env[:at] + draw(st.binary(min_size=1, max_size=2)) + env[at:]
    return env, one(TEMPLATES)


def write(name, data):
    with open(os.path.join(USER, 'envs', name), 'wb') as f:
        f.write(data)


def references(files, stored, plan_path):
    """The template references of a stored environment, as plan paths."""
    registry = stored.get('resource_registry') if isinstance(
        stored, dict) else None
    found = []
    files_mod._walk_registry(registry, lambda kind, ref: found.append(ref))
    base = os.path.dirname(plan_path)
    return [os.path.normpath(os.path.join(base, r)) for r in found
            if not heat_environment.URL.match(r)]


class TestWalkerProperties(unittest.TestCase):

    @settings(max_examples=1500, deadline=None)
    @given(files())
    def test_stored_with_plan_references_or_a_command_error(self, pair):
        env, template = pair
        write('env.yaml', env)
        write('tpl.yaml', template)
        write('script.sh', b'echo\n')
        path = os.path.join(USER, 'envs', 'env.yaml')
        plan = files_mod.PlanFiles(None)
        try:
            plan_path = plan.add_environment(path)
        except exceptions.CommandError as exc:
            self.assertIn(ROOT, str(exc))     # names a file
            return
        stored = content.load_yaml(plan.objects[plan_path], 'stored')
        for ref in references(plan, stored, plan_path):
            self.assertIn(ref, plan.objects)
