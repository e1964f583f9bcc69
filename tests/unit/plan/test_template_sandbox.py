"""The sandbox templates render in: no str.format, bounded growth."""

import configparser
import os
import re
import sys
import types
import unittest

import yaml

from tripleoplanclient.plan import rendering
from tripleoplanclient.plan import template_sandbox

SECRET = 'tpc-sandbox-test-secret'
# CVE-2025-27516 as issue 26 found it (Jinja2 3.1.5 rendered Mistral's
# service password with it), and the same path to a secret of ours.
CVE = ("{{ ('{0.__init__.__globals__[os].sys.modules[oslo_config.cfg]"
       ".CONF.keystone_authtoken.password}'|attr('format'))(cycler) }}")
TO_SECRET = ("{{ ('{0.__init__.__globals__[os].sys.modules[%s].SECRET}'"
             "|attr('%s'))(%s) }}")


def render(source):
    files = {'roles_data.yaml': yaml.safe_dump([{'name': 'Controller'}]),
             'network_data.yaml': '[]', 'x.j2.yaml': source}
    files = {k: v.encode() for k, v in files.items()}
    return rendering.render(files, files.__getitem__)['x.yaml'].decode()


class TestNoStrFormat(unittest.TestCase):

    def setUp(self):
        module = types.ModuleType('tpc_sandbox_secret')
        module.SECRET = SECRET
        sys.modules[module.__name__] = module
        self.addCleanup(sys.modules.pop, module.__name__)

    def test_the_cve_2025_27516_payload_is_refused(self):
        sources = [CVE,
                   TO_SECRET % ('tpc_sandbox_secret', 'format', 'cycler'),
                   TO_SECRET % ('tpc_sandbox_secret', 'format_map',
                                '{"0": cycler}')]
        for source in sources:
            with self.assertRaisesRegex(
                    rendering.RenderError,
                    r"Error rendering template x.yaml: SecurityError: "
                    r"(access to attribute 'format(_map)?' of 'str' object "
                    r"is unsafe|.* is not safely callable)") as caught:
                render(source)
            self.assertNotIn(SECRET, str(caught.exception))

    def test_str_format_is_refused_however_reached(self):
        for source in ("{{ '{0}'.format(1) }}", "{{ '{x}'.format_map({}) }}",
                       "{{ '{0}'['format'](1) }}",
                       "{% set f = '{0}'|attr('format') %}{{ f(1) }}",
                       "{{ (['{0}']|map(attribute='format')|first)(1) }}"):
            with self.assertRaisesRegex(rendering.RenderError,
                                        "'format(_map)?' of 'str' object",
                                        msg=source):
                render(source)

    def test_a_bound_format_method_is_not_callable(self):
        env = template_sandbox.PlanEnvironment(frozenset())
        self.assertFalse(env.is_safe_callable('{0}'.format))
        self.assertFalse(env.is_safe_callable('{0}'.format_map))
        self.assertTrue(env.is_safe_callable('a'.upper))

    def test_jinja2_past_the_cve_is_required(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))))
        with open(os.path.join(root, 'requirements.txt')) as f:
            pins = [line for line in f if line.lower().startswith('jinja2')]
        setup = configparser.ConfigParser()
        setup.read(os.path.join(root, 'setup.cfg'))
        pins += [line for line in setup['extras']['mistral'].splitlines()
                 if line.lower().startswith('jinja2')]
        self.assertEqual(2, len(pins))
        for pin in pins:
            self.assertRegex(pin.strip(), re.compile(r'^jinja2>=3\.1\.6$',
                                                     re.I))

    def test_the_format_filter_still_works(self):
        self.assertEqual('a=1', render("{{ '%s=%s'|format('a', 1) }}"))


class TestGrowth(unittest.TestCase):

    def test_growing_filters_are_refused_before_they_build(self):
        big = "{% set a = 'x' * 4000000 %}"
        for source, name in (
                (big + "{{ a|replace('x', 'xxxxx') }}", 'replace'),
                (big + "{{ a|replace('', 'xxxxx') }}", 'replace'),
                ("{{ 'x'|center(100000000) }}", 'center'),
                (big + "{{ [a, a, a, a, a]|join }}", 'join'),
                (big + "{{ [a, a, a, a, a]|map('string')|join('-') }}",
                 'join'),
                ("{{ '%100000000s'|format('x') }}", 'format'),
                ("{{ '%.100000000f'|format(1) }}", 'format'),
                (big + "{{ a|wordwrap(1, wrapstring='-----') }}", 'wordwrap'),
                (big + "{{ a|wordwrap(1000, wrapstring='-' * 5000) }}",
                 'wordwrap'),
                ("{{ 'a\nb'|indent(100000000) }}", 'indent'),
                ("{{ ('x\n' * 2000000)|indent(10) }}", 'indent')):
            with self.assertRaisesRegex(
                    rendering.RenderError,
                    'SecurityError: the "%s" filter would build more than'
                    % name, msg=source):
                render(source)

    def test_plus_is_bounded(self):
        with self.assertRaisesRegex(rendering.RenderError,
                                    'a "\\+" would build more than'):
            render("{% set a = 'x' * 10000000 %}{{ a + a }}")

    def test_filters_within_the_bound_give_jinjas_result(self):
        self.assertEqual(
            'a_b|  x  |1,2|a=1|ab\ncd|a\n  b|[1, 2]|ab',
            render("{{ 'a-b'|replace('-', '_') }}|{{ 'x'|center(5) }}|"
                   "{{ [1, 2]|join(',') }}|{{ '%s=%s'|format('a', 1) }}|"
                   "{{ 'ab cd'|wordwrap(2) }}|{{ 'a\nb'|indent(2) }}|"
                   "{{ [1] + [2] }}|{{ 'a' + 'b' }}"))
        self.assertEqual('Controller,x', render(
            "{{ (roles + [{'name': 'x'}])|map(attribute='name')|join(',') }}"
        ))
