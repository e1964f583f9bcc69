"""Every [tripleoplan] option in mistral/config.py, as OpenStack projects
expose them: list_opts under the oslo.config.opts entry point, and no
option read anywhere that it does not list."""

import ast
import configparser
import glob
import importlib
import os
import re

import testtools

from tests.unit.mistral import mistral_conf
from tripleoplanclient.mistral import config
from tripleoplanclient.plan import rendering
from tripleoplanclient.validations import inventory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PACKAGE = os.path.join(ROOT, 'tripleoplanclient')
GENERATOR = os.path.join(ROOT, 'etc', 'oslo-config-generator',
                         'tripleoplanclient.conf')


def names():
    return [o.name for _, opts in config.list_opts() for o in opts]


def package_files(pattern='*.py'):
    return sorted(glob.glob(os.path.join(PACKAGE, '**', pattern),
                            recursive=True))


def read(path):
    with open(path) as f:
        return f.read()


def options_read(text):
    """The attributes read of ``config.options()`` in a module's source:
    directly, or of a name it was assigned to."""
    def is_options_call(node):
        return isinstance(node, ast.Call) and \
            isinstance(node.func, ast.Attribute) and \
            node.func.attr == 'options' and \
            isinstance(node.func.value, ast.Name) and \
            node.func.value.id == 'config'

    tree = ast.parse(text)
    holders = {t.id for node in ast.walk(tree)
               if isinstance(node, ast.Assign) and is_options_call(node.value)
               for t in node.targets if isinstance(t, ast.Name)}
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and (
                is_options_call(node.value) or (
                    isinstance(node.value, ast.Name) and
                    node.value.id in holders))}


class TestListOpts(testtools.TestCase):

    def test_one_group_every_option_once(self):
        (group, opts), = config.list_opts()
        self.assertEqual('tripleoplan', group)
        self.assertEqual(len(opts), len(set(names())))
        self.assertIn('validation_hidden_paths', names())
        for opt in opts:
            self.assertTrue(opt.help.endswith('.'), opt.name)

    def test_the_entry_point_is_list_opts(self):
        setup = configparser.ConfigParser()
        setup.read(os.path.join(ROOT, 'setup.cfg'))
        lines = setup['entry_points']['oslo.config.opts'].strip().splitlines()
        self.assertEqual(
            ['tripleoplanclient = tripleoplanclient.mistral.config:'
             'list_opts'], [' '.join(line.split()) for line in lines])
        module, function = lines[0].split('=')[1].strip().split(':')
        self.assertIs(config.list_opts,
                      getattr(importlib.import_module(module), function))

    def test_the_generator_reads_that_namespace(self):
        generator = configparser.ConfigParser()
        generator.read(GENERATOR)
        self.assertEqual('tripleoplanclient',
                         generator['DEFAULT']['namespace'])

    def test_defaults_come_from_where_the_code_keeps_them(self):
        conf = config.options(mistral_conf.parsed(''))
        mib = 1024 * 1024
        self.assertEqual(rendering.LIMITS, (
            conf.render_max_output_mb * mib, conf.render_timeout,
            conf.render_max_memory_mb * mib))
        self.assertEqual(
            (inventory.SSH['user'], inventory.SSH['key'],
             inventory.SSH['port'], inventory.SSH['timeout']),
            (conf.validation_ssh_user, conf.validation_ssh_key,
             conf.validation_ssh_port, conf.validation_ssh_timeout))


class TestRegistration(testtools.TestCase):

    def test_options_registered_after_parsing_find_the_files_values(self):
        conf = mistral_conf.parsed(
            '[tripleoplan]\nrender_timeout = 7\n'
            'validation_hidden_paths = /srv/a,/srv/b\n')
        self.assertEqual(7, config.options(conf).render_timeout)
        # again: registering the same options is harmless
        self.assertEqual(['/srv/a', '/srv/b'],
                         config.options(conf).validation_hidden_paths)

    def test_only_config_registers_options(self):
        found = [os.path.relpath(p, ROOT) for p in package_files()
                 if re.search(r'register_opts?\(|cfg\.\w+Opt\(', read(p))]
        self.assertEqual(['tripleoplanclient/mistral/config.py'], found)


class TestEveryOptionReadIsListed(testtools.TestCase):
    """What the code and tools name: the options it reads
    (``options().name``), those its messages tell to set
    (``[tripleoplan] name``), those the loopback writes into Mistral's
    configuration."""

    def test_the_package_reads_the_listed_options(self):
        read_here, told = set(), set()
        for path in package_files():
            text = read(path)
            read_here.update(options_read(text))
            told.update(re.findall(r'\[tripleoplan\]\s+(\w+)', text))
        read_here.update(config.ENDPOINT_OPTIONS.values())
        # and every option listed is read somewhere
        self.assertEqual(set(names()), read_here)
        self.assertEqual(set(), told - set(names()))

    def test_the_loopback_writes_only_listed_options(self):
        template = read(os.path.join(ROOT, 'tools', 'loopback', 'templates',
                                     'mistral', 'mistral.conf'))
        section = template.split('[tripleoplan]\n', 1)[1]
        written = set(re.findall(r'^(\w+) = ', section, re.M))
        sshd = read(os.path.join(ROOT, 'tools', 'loopback', 'sshd.py'))
        written.update(re.findall(r'(validation_\w+) = ', sshd))
        self.assertIn('validation_hidden_paths', written)
        self.assertEqual(set(), written - set(names()))


class TestNoHarnessVariable(testtools.TestCase):

    def test_the_package_reads_no_test_harness_variable(self):
        # the loopback's (tools/loopback) variables configure the test
        # services; the product learns what it needs from Mistral's
        # configuration
        found = []
        for path in package_files('*'):
            if os.path.isfile(path) and '__pycache__' not in path:
                with open(path, 'rb') as f:
                    if b'LOOPBACK' in f.read():
                        found.append(os.path.relpath(path, ROOT))
        self.assertEqual([], found)
