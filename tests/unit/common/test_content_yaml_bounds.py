"""Alias bombs ("billion laughs") fed to every loader of YAML someone
else wrote (issue 37): each refuses them, naming why; plan content reads
aliases only while they add at most 100,000 nodes (CAP).

The bombs' sizes are drawn so that reading one without a bound would
build (or a walk of it would visit) more than CAP nodes: the assertions
are on the refusal itself, never on time.
"""

import os
import tempfile
import unittest

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from tripleoplanclient.common import content
from tripleoplanclient.mistral import render
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient.osc import node_provision
from tripleoplanclient.plan import layout
from tripleoplanclient.record import log
from tripleoplanclient.validations import metadata

ANCHOR = 'YAML anchor'
# what plan content's aliases may add (issue 37: a million cost a YAML dump
# of the value 8 s and 369 MB; tools/bench/yaml_bounds.py)
CAP = 100000
EXPANDS = 'aliases expand to more than'


def bomb(width, depth, name='b'):
    """``(flow YAML, nodes its aliases add)``: a list of ``depth + 1``
    levels, each level ``width`` aliases of the one before."""
    items = ['&%s0 lol' % name]
    size, added = 1, 0
    for level in range(1, depth + 1):
        items.append('&%s%d [%s]' % (name, level, ', '.join(
            ['*%s%d' % (name, level - 1)] * width)))
        added += width * size
        size = 1 + width * size
    return '[%s]' % ', '.join(items), added


def _depth_for(width, low):
    """The fewest levels whose aliases add more than ``low`` nodes."""
    depth = 1
    while bomb(width, depth)[1] <= low:
        depth += 1
    return depth


@st.composite
def big_bombs(draw):
    """A bomb adding more than CAP nodes (and at most 40 times that: a
    loader without a bound still ends, and fails)."""
    width = draw(st.integers(min_value=2, max_value=12))
    depth = _depth_for(width, CAP)
    text, added = bomb(width, depth, draw(st.sampled_from('abxyz')))
    hypothesis.assume(added <= 40 * CAP)
    return text


@st.composite
def any_bombs(draw):
    """``(text, added)``: a bomb around the plan cap: two levels either
    side of the first that adds more."""
    width = draw(st.integers(min_value=2, max_value=12))
    first = _depth_for(width, CAP)
    return bomb(width, draw(st.integers(min_value=max(1, first - 2),
                                        max_value=first + 2)))


def _playbook(where, value):
    meta = {'name': 'n', 'description': 'd', 'groups': '[prep]',
            'requires': '[]'}
    play = {'vars': '{}', 'tasks': '[]'}
    if where in meta:
        meta[where] = value
    elif where == 'vars':
        play['vars'] = '{x: %s}' % value
    else:
        play['tasks'] = '[{debug: {msg: %s}}]' % value
    return ('- hosts: all\n  vars:\n    extra: %s\n    metadata: {%s}\n'
            '  tasks: %s\n' % (
                play['vars'], ', '.join('%s: %s' % kv for kv in meta.items()),
                play['tasks'])).encode()


class _Container:
    """Only what ``render._last_render`` reads of a plan's container."""

    def __init__(self, data):
        self.data = data

    def get(self, plan, name):
        return self.data


class _Store:
    """A plan store holding only that container."""

    def __init__(self, data):
        self.container = _Container(data)


SETTINGS = hypothesis.settings(max_examples=25, deadline=None)


class TestEveryLoaderRefusesBombs(unittest.TestCase):

    @SETTINGS
    @hypothesis.given(big_bombs(), st.sampled_from(
        ['requires', 'groups', 'name', 'vars', 'tasks']))
    def test_validation_playbooks(self, text, where):
        problem = metadata.read('v', _playbook(where, text),
                                {'prep': 'x'})['problem']
        self.assertIn(ANCHOR, problem or '')

    @SETTINGS
    @hypothesis.given(big_bombs(), st.booleans())
    def test_groups_file(self, text, in_entry):
        data = ('prep: [{description: d, x: %s}]\n' % text if in_entry
                else 'prep: [{description: d}]\nmore: %s\n' % text)
        with self.assertRaises(ValueError) as caught:
            metadata.read_groups(data.encode())
        self.assertIn(ANCHOR, str(caught.exception))

    @SETTINGS
    @hypothesis.given(big_bombs(), st.sampled_from(
        ['capabilities', 'ports', 'mac', 'root_device', 'name', 'cpu']),
        st.integers(min_value=0, max_value=3))
    def test_node_files(self, text, field, index):
        nodes = ['{pm_type: ipmi, pm_addr: 192.0.2.%d}' % i
                 for i in range(4)]
        nodes[index] = '{pm_type: ipmi, %s: %s}' % (field, text)
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            nodes_json.load('{nodes: [%s]}' % ', '.join(nodes), 'f')
        self.assertIn(ANCHOR, str(caught.exception))

    @SETTINGS
    @hypothesis.given(big_bombs(), st.sampled_from(
        ['roles', 'defaults', 'instance']))
    def test_baremetal_deployment_files(self, text, where):
        role = {'roles': '- name: C\n  count: 1\n  x: %s\n' % text,
                'defaults': '- name: C\n  defaults: {capabilities: %s}\n'
                            % text,
                'instance': '- name: C\n  instances: [{hostname: h, '
                            'networks: %s}]\n' % text}[where]
        with tempfile.NamedTemporaryFile(suffix='.yaml') as f:
            f.write(role.encode())
            f.flush()
            with self.assertRaises(exceptions.CommandError) as caught:
                node_provision._ProvisionCommand.read_roles(None, f.name)
        self.assertIn(ANCHOR, str(caught.exception))

    @SETTINGS
    @hypothesis.given(big_bombs(), st.sampled_from(
        ['state', 'change', 'command', 'outcome', 'extra']))
    def test_record_objects(self, text, where):
        step = {'version': '2', 'id': 'i', 'action': 'amend',
                'state': '{environments: []}'}
        step[where] = '{x: %s}' % text if where == 'state' else text
        data = ''.join('%s: %s\n' % kv for kv in step.items()).encode()
        with self.assertRaises(exceptions.CommandError) as caught:
            log.load_step(data, 'p', 'n')
        self.assertIn(EXPANDS, str(caught.exception))
        with self.assertRaises(exceptions.CommandError) as caught:
            log.load_outcome(b'outcome: ' + text.encode(), 'o', 'p')
        self.assertIn(EXPANDS, str(caught.exception))

    @SETTINGS
    @hypothesis.given(big_bombs(), st.booleans())
    def test_render_manifest(self, text, in_inputs):
        data = ('inputs: %s\noutputs: {}\n' % text if in_inputs else
                'inputs: {}\noutputs: {a.yaml: %s}\n' % text)
        with self.assertLogs(render.LOG, 'WARNING'):
            last, ignored = render._last_render(
                _Store(data.encode()), 'p', {layout.RENDER_MANIFEST: {}})
        self.assertEqual({}, last)
        self.assertIn(EXPANDS, ignored[0])

    @SETTINGS
    @hypothesis.given(any_bombs(), st.sampled_from(
        ['default', 'resources', 'outputs']))
    def test_plan_content_within_the_cap_only(self, bomb_added, where):
        text, added = bomb_added
        data = {'default': 'parameters: {p: {type: json, default: %s}}',
                'resources': 'resources: {r: {type: OS::Heat::None, '
                             'properties: {x: %s}}}',
                'outputs': 'outputs: {o: {value: %s}}'}[where] % text
        data = ('heat_template_version: rocky\n' + data).encode()
        if added <= CAP:
            self.assertIsInstance(
                content.load_yaml(data, 't.yaml'), dict)
            return
        with self.assertRaises(exceptions.CommandError) as caught:
            content.load_yaml(data, 't.yaml')
        self.assertIn(EXPANDS, str(caught.exception))


class TestSizes(unittest.TestCase):
    """Bytes beyond a format's cap are refused unread."""

    def test_each_format_has_its_cap(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            log.load_outcome(b'{}' + b' ' * content.MAX_STORED_BYTES,
                             'o', 'p')
        self.assertIn('bytes, more than', str(caught.exception))
        big = b'# ' + b'x' * content.MAX_PLAYBOOK_BYTES + b'\n'
        self.assertIn('bytes, more than', metadata.read('v', big)['problem'])
        with self.assertRaises(ValueError):
            metadata.read_groups(big)
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            nodes_json.load(b' ' * (content.MAX_NODE_FILE_BYTES + 1), 'f')
        self.assertIn('bytes, more than', str(caught.exception))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'b.yaml')
            with open(path, 'wb') as f:
                f.truncate(content.MAX_BAREMETAL_FILE_BYTES + 1)
            with self.assertRaises(exceptions.CommandError) as caught:
                node_provision._ProvisionCommand.read_roles(None, path)
        self.assertIn('bytes, more than', str(caught.exception))
