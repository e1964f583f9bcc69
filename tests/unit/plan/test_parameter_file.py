"""The parameters file as the record's replay says it (issue 27)."""

import unittest

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import parameter_file
from tripleoplanclient.record import log


def _step(state, base, values, given):
    """A parameters step built on ``state``, reading file ``base``."""
    data = parameter_file.dump(values)
    change = {'tree': {parameter_file.PATH: content.md5(data)},
              parameter_file.KEY: parameter_file.change(
                  state, base and content.md5(base), data, given)}
    return data, {'action': 'parameters', 'change': change,
                  'outcome': {'status': 'SUCCESS'}}


class ReplayTest(unittest.TestCase):

    def setUp(self):
        self.files = {}
        self.state = log.new_state()
        self.state['tree'] = {'base': None, 'changes': {}}

    def write(self, state, base, values, given):
        data, step = _step(state, base, values, given)
        self.files[content.md5(data)] = data
        return data, step

    def derived(self, state):
        data = parameter_file.derive(
            state[parameter_file.KEY]['names'], self.files.get, 'p')
        return parameter_file.load(data, 'derived')

    def test_two_writers_on_one_file_both_count(self):
        first, step = self.write(self.state, None, {'A': 1, 'B': 2},
                                 {'A': 1, 'B': 2})
        state = log.apply(self.state, step)
        self.assertFalse(state[parameter_file.KEY]['stale'])
        # both read ``first``: C set, B taken out
        _, one = self.write(state, first, {'A': 1, 'B': 2, 'C': 'secret'},
                            {'C': 'secret'})
        _, two = self.write(state, first, {'A': 1}, {'B': None})
        after = log.apply(log.apply(state, one), two)
        self.assertTrue(after[parameter_file.KEY]['stale'])
        self.assertEqual({'A': 1, 'C': 'secret'}, self.derived(after))
        # no value in the state, only the files' MD5s
        self.assertNotIn('secret', str(after))

    def test_a_plan_without_names_has_them_from_its_file(self):
        legacy = b'parameter_defaults:\n  Old: x\n'
        self.files[content.md5(legacy)] = legacy
        _, step = self.write(self.state, legacy, {'Old': 'x', 'New': 'y'},
                             {'New': 'y'})
        state = log.apply(self.state, step)
        self.assertEqual({'Old': 'x', 'New': 'y'}, self.derived(state))

    def test_a_restore_makes_its_file_the_truth_again(self):
        _, step = self.write(self.state, None, {'A': 1}, {'A': 1})
        state = log.apply(self.state, step)
        state = log.apply(state, {'action': 'restore', 'change': {
            'tree_base': 'f' * 32}, 'outcome': {'status': 'SUCCESS'}})
        self.assertNotIn(parameter_file.KEY, state)

    def test_a_missing_copy_is_a_clear_error(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'kept/0{32} of plan p is missing'):
            parameter_file.derive({'A': '0' * 32}, self.files.get, 'p')
