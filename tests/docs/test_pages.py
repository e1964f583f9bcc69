"""The hand-written docs against the code, without a docs build: the
command reference covers every command, the synopses use only options the
parser has and show all of them, and the lists of actions, workflows and
columns are the code's."""

import argparse
import configparser
import fnmatch
import glob
import importlib
import os
import re
from unittest import mock

import testtools

from tripleoplanclient.osc import credentials
from tripleoplanclient.osc import deploy
from tripleoplanclient.osc import library
from tripleoplanclient.osc import node_delete
from tripleoplanclient.osc import node_discover
from tripleoplanclient.osc import node_import
from tripleoplanclient.osc import node_provision
from tripleoplanclient.osc import node_states
from tripleoplanclient.osc import overcloud_delete
from tripleoplanclient.osc import plan
from tripleoplanclient.osc import plan_step
from tripleoplanclient.osc import profiles
from tripleoplanclient.osc import validation
from tripleoplanclient.osc import validation_details
from tripleoplanclient.osc import validation_install
from tripleoplanclient.osc import validation_parameters
from tripleoplanclient import protocol
from tripleoplanclient.stack import preview

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DOC = os.path.join(ROOT, 'doc', 'source')


def entry_points(group):
    """{name: 'module:Class'} of a group in setup.cfg."""
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, 'setup.cfg'))
    lines = cfg['entry_points'][group].strip().splitlines()
    return dict(tuple(p.strip() for p in line.split('=', 1))
                for line in lines)


def commands():
    """{'overcloud plan create': command class} of the plugin's group."""
    found = {}
    for name, target in entry_points('openstack.tripleoplan.v1').items():
        module, cls = target.split(':')
        found[name.replace('_', ' ')] = getattr(
            importlib.import_module(module), cls)
    return found


def doc_files():
    return [os.path.join(ROOT, 'README.rst')] + sorted(
        glob.glob(os.path.join(DOC, '**', '*.rst'), recursive=True))


def read(path):
    with open(path) as f:
        return f.read()


def invocations(text):
    """The text after each ``openstack `` up to the end of its command
    line: a shell line (backslash continuations joined) or an inline
    literal."""
    text = text.replace('\\\n', ' ')
    for m in re.finditer(r'openstack ([^\n`|>;&]*)', text):
        yield m.group(1)


def synopses(text):
    """Each inline literal ``openstack COMMAND ...`` with a placeholder
    (``<plan>``) or an optional part (``[...]``), whitespace folded: the
    docs' synopses. They may span lines and hold ``<`` or ``|``, which
    end an invocation."""
    for m in re.finditer(r'``openstack\s((?:[^`]|`(?!`))+)``', text):
        synopsis = ' '.join(m.group(1).split())
        if re.search(r'[<\[]', synopsis):
            yield synopsis


def synopsis_commands(synopsis, names):
    """The registered commands a synopsis shows and the text after them:
    ``overcloud update|upgrade [prepare|converge] ...`` shows four."""
    words = synopsis.split()
    lead = []
    while words and re.match(r'[a-z][-a-z|]*$', words[0]):
        lead.append(words.pop(0).split('|'))
    choices = [[]]
    for alternatives in lead:
        choices = [c + [a] for c in choices for a in alternatives]
    if words and re.match(r'\[[a-z][-a-z|]*\]$', words[0]):
        optional = words.pop(0).strip('[]').split('|')
        choices += [c + [o] for c in choices for o in optional]
    found = set()
    for choice in choices:
        name = max((n for n in names
                    if choice[:len(n.split())] == n.split()),
                   key=len, default=None)
        if name is not None:
            found.add(name)
    return sorted(found), ' '.join(words)


def options_in(text):
    """The option strings a synopsis names (``[--wait | --no-wait]``,
    ``(--stack S | --config C)``, ``-e ENV``...)."""
    return set(re.findall(r'(?<![\w-])(--?[A-Za-z][-\w]*)', text))


def documented_options(parser):
    """The parser's options a synopsis should show, each as the tuple of
    its spellings: all but help, hidden ones and cliff's output options
    (common to every command, documented once in cli/index.rst)."""
    for group in parser._action_groups:
        if 'formatter' in (group.title or '').lower():
            continue
        for action in group._group_actions:
            if (action.option_strings and action.help != argparse.SUPPRESS
                    and '--help' not in action.option_strings):
                yield tuple(action.option_strings)


def parser_of(cmds, name):
    return cmds[name](mock.Mock(), None).get_parser('openstack ' + name)


class TestCommandReference(testtools.TestCase):

    def test_every_command_in_the_generated_reference(self):
        patterns = re.findall(
            r'autoprogram-cliff:: openstack\.tripleoplan\.v1\n'
            r'\s+:command: ([^\n]+)', read(os.path.join(DOC, 'cli',
                                                        'index.rst')))
        missing = [name for name in commands()
                   if not any(fnmatch.fnmatch(name, p) for p in patterns)]
        self.assertEqual([], missing)

    def test_synopses_use_only_the_parsers_options(self):
        cmds = commands()
        options = {}
        stale = []
        for path in doc_files():
            for line in invocations(read(path)):
                words = line.split()
                # the longest registered command the words start with
                name = max((n for n in cmds
                            if words[:len(n.split())] == n.split()),
                           key=len, default=None)
                if name is None:
                    continue
                if name not in options:
                    parser = cmds[name](mock.Mock(), None).get_parser(
                        'openstack ' + name)
                    options[name] = set(parser._option_string_actions)
                for word in words[len(name.split()):]:
                    if not re.match(r'--?[A-Za-z]', word):
                        continue
                    option = re.match(r'[-\w]+', word).group(0)
                    if option not in options[name]:
                        stale.append('%s: openstack %s %s' % (
                            os.path.relpath(path, ROOT), name, option))
        # and every option of a full synopsis
        for path in doc_files():
            for synopsis in synopses(read(path)):
                names, rest = synopsis_commands(synopsis, cmds)
                for name in names:
                    known = set(parser_of(cmds, name)._option_string_actions)
                    stale.extend('%s: openstack %s %s' % (
                        os.path.relpath(path, ROOT), name, option)
                        for option in sorted(options_in(rest) - known))
        self.assertEqual([], stale)

    def test_synopses_show_every_option_of_the_parser(self):
        # What --help shows, a synopsis shows too (cliff's output
        # options aside): a bare mention is not a synopsis, a literal
        # with <placeholders> or [optional] parts is.
        cmds = commands()
        lacking = []
        count = 0
        for path in doc_files():
            for synopsis in synopses(read(path)):
                names, rest = synopsis_commands(synopsis, cmds)
                given = options_in(rest)
                for name in names:
                    count += 1
                    lacking.extend('%s: openstack %s lacks %s' % (
                        os.path.relpath(path, ROOT), name, spellings[-1])
                        for spellings in documented_options(
                            parser_of(cmds, name))
                        if not given & set(spellings))
        self.assertEqual([], lacking)
        self.assertGreater(count, 10)


class TestMistralNames(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.registered = set(entry_points('mistral.actions'))

    def test_protocol_names_are_registered(self):
        used = ({a for a, _, _ in protocol.WORKFLOWS.values()} |
                {a for a, _, _ in protocol.ACTIONS.values()} |
                {a for _, a in protocol.FOLLOW.values()} |
                {a for _, a in protocol.AFTER_FOLLOW.values()} |
                {protocol.VERSION_ACTION})
        self.assertEqual(self.registered, used)

    def test_docs_name_only_registered_actions(self):
        unknown = set()
        for path in doc_files():
            for name in re.findall(r'``(tripleoplan\.\w+)``', read(path)):
                if name != protocol.WORKBOOK and name not in self.registered:
                    unknown.add((os.path.relpath(path, ROOT), name))
        self.assertEqual(set(), unknown)

    def test_lists_of_registered_actions_are_complete(self):
        lists = 0
        for path in doc_files():
            text = read(path)
            for m in re.finditer(r'registers the actions (.*?)\(entry point',
                                 text, re.S):
                lists += 1
                self.assertEqual(
                    sorted(self.registered),
                    sorted(re.findall(r'``(tripleoplan\.\w+)``', m.group(1))),
                    os.path.relpath(path, ROOT))
        self.assertGreater(lists, 0)

    def test_lists_of_workflows_are_complete(self):
        lists = 0
        for path in doc_files():
            for m in re.finditer(r'workbook\s+\(its\s(.*?)\sworkflows\)',
                                 read(path), re.S):
                lists += 1
                self.assertEqual(sorted(protocol.WORKFLOWS),
                                 sorted(re.findall(r'``(\w+)``', m.group(1))),
                                 os.path.relpath(path, ROOT))
        self.assertGreater(lists, 0)


class TestDocumentedColumns(testtools.TestCase):

    # the row of guide/scripting.rst's table (its label's start) and the
    # columns of the command it documents
    ROWS = {
        '``plan create``': plan.STEP_COLUMNS,
        '``plan show-history`` (a row per step)': plan.HISTORY_COLUMNS,
        '``plan show-step``': plan_step.COLUMNS,
        '``plan export``': plan.EXPORT_COLUMNS,
        '``plan capabilities``': library.CAPABILITY_COLUMNS,
        '``plan roles list``': library.ROLE_COLUMNS,
        '``plan parameters show``': library.PARAMETER_COLUMNS,
        '``plan validate``': library.PROBLEM_COLUMNS,
        '``deploy``, ``update``, ``upgrade``': deploy.RESULT_COLUMNS,
        '``deploy preview``': deploy.PREVIEW_COLUMNS + preview.COLUMNS,
        '``node introspect``': node_states.INTROSPECT_COLUMNS,
        '``node provide``': node_states.COLUMNS,
        '``node configure``': node_states.CONFIGURE_COLUMNS,
        '``node tag``': node_states.TAG_COLUMNS,
        '``profiles list``': profiles.COLUMNS,
        '``credentials``': credentials.COLUMNS,
        '``node manage``, ``node clean``': node_states.COLUMNS,
        '``node discover``': node_discover.COLUMNS,
        '``node delete``': node_delete.COLUMNS,
        '``overcloud delete``': overcloud_delete.COLUMNS,
        '``node import``': node_import.COLUMNS,
        '``node provision``, ``node unprovision``': node_provision.COLUMNS,
        '``validation install``': validation_install.INSTALL_COLUMNS,
        '``validation list``': validation.LIST_COLUMNS,
        '``validation run``, ``validation stop``': validation.RUN_COLUMNS,
        '``validation show`` (a run)': validation.SHOW_RUN_COLUMNS,
        '``validation show`` (a validation)':
            validation_parameters.SHOW_COLUMNS,
        '``validation show parameter``': validation_details.PARAMETER_COLUMNS,
        '``validation group list``': validation_details.GROUP_COLUMNS,
        '``validation results``': validation.RESULT_COLUMNS,
    }
    # printing nothing on stdout, as the page says
    SILENT = ('plan delete',)

    def test_every_command_has_its_row(self):
        # each registered command is in the table (a stage, prepare or
        # converge, under its command's label) or said to print nothing
        text = read(os.path.join(DOC, 'guide', 'scripting.rst'))
        documented = set(self.SILENT)
        for label in re.findall(r'\n   \* - (.+)\n     - ', text):
            before = ''
            for name in re.findall(r'``([a-z][a-z |-]*)``',
                                   label.split(' (')[0]):
                for part in name.split('|'):
                    part = part.strip()
                    if ' ' not in part and ' ' in before:
                        part = before.rsplit(' ', 1)[0] + ' ' + part
                    documented.add(part)
                    before = part
        for silent in self.SILENT:
            self.assertIn('``%s`` prints nothing on stdout' % silent, text)
        missing = []
        for name in commands():
            short = re.sub(' (prepare|converge)$', '', name)
            if short not in documented and \
                    short.replace('overcloud ', '', 1) not in documented:
                missing.append(name)
        self.assertEqual([], sorted(missing))

    def test_scripting_table_matches_the_commands(self):
        text = read(os.path.join(DOC, 'guide', 'scripting.rst'))
        table = dict(re.findall(r'\n   \* - (.+)\n     - (.+)', text))
        for label, columns in self.ROWS.items():
            rows = [cols for row, cols in table.items()
                    if row.startswith(label)]
            self.assertEqual([' '.join(columns)], rows, label)


class TestPrompts(testtools.TestCase):

    def test_every_command_that_may_ask_is_named(self):
        # the commands with -y/--yes; a stage (prepare, converge) is its
        # command's; deploy takes -y and never asks (said so)
        text = read(os.path.join(DOC, 'guide', 'scripting.rst'))
        section = ' '.join(text.split('No prompts\n')[1].split(
            '\n\n')[1].split())
        asks, named = section.split(' Without a terminal')[0], set()
        for name in re.findall(r'``([a-z -]+)``', asks):
            named.add(name if name.startswith('overcloud ')
                      else 'overcloud ' + name)
        yes = set()
        for name, cls in commands().items():
            options = {o for a in cls(None, None).get_parser(name)._actions
                       for o in a.option_strings}
            if '--yes' in options:
                yes.add(re.sub(' (prepare|converge)$', '', name))
        self.assertIn('``overcloud deploy`` accepts ``-y`` too and never '
                      'asks', section)
        self.assertEqual(sorted(yes - {'overcloud deploy'}), sorted(named))
