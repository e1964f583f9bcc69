"""A render in a child process, bounded as a whole; small bounds keep the
tests quick."""

import os
import unittest
from unittest import mock

import jinja2
import yaml

from tripleoplanclient.plan import render_process
from tripleoplanclient.plan import rendering

MIB = 1024 * 1024
SMALL = rendering.Limits(output=64 * 1024, seconds=1, memory=64 * MIB)
FILES = {'roles_data.yaml': yaml.safe_dump([{'name': 'Controller'},
                                            {'name': 'Compute'}]),
         'network_data.yaml': '[]',
         'x/a.role.j2.yaml': "{{role}} {% include 'inc.j2' %}",
         'x/inc.j2': 'included',
         'b.j2.yaml': '{{ roles|length }}'}
EXPECTED = {'x/controller-a.yaml': b'Controller included',
            'x/compute-a.yaml': b'Compute included', 'b.yaml': b'2'}


def files(**more):
    out = dict(FILES, **more)
    return {k: v.encode() for k, v in out.items()}


class TestConfined(unittest.TestCase):

    def render(self, objects, limits=SMALL):
        return render_process.render(objects, objects.__getitem__,
                                     limits=limits)

    def refused(self, source, why, limits=SMALL):
        with self.assertRaisesRegex(rendering.RenderError, why) as caught:
            self.render(files(**{'h/hostile.j2.yaml': source}), limits)
        self.assertIn('h/hostile.yaml', str(caught.exception))
        # The executor renders the next plan as usual.
        self.assertEqual(EXPECTED, self.render(files()))

    def test_the_same_outputs_as_in_process(self):
        objects = files()
        self.assertEqual(
            rendering.render(objects, objects.__getitem__), EXPECTED)
        self.assertEqual(EXPECTED, self.render(objects))

    def test_output_built_by_chained_filters_is_bounded(self):
        chain = ("{% set a = 'x' * 1000 %}{% set b = a|replace('x', 'yy') %}"
                 "{% set c = b|center(30000) %}{{ [c, c, c]|join('-') }}")
        self.refused(chain, 'past 64 KiB|past 65536 bytes of output')
        # Across templates: together past the bound, each one under it.
        many = {'m/%d.j2.yaml' % i: "{{ 'x' * 20000 }}" for i in range(4)}
        with self.assertRaisesRegex(rendering.RenderError,
                                    'Template m/3.yaml takes the render '
                                    'past 65536 bytes of output'):
            self.render(files(**many))

    def test_a_loop_past_the_wall_time_is_stopped(self):
        self.refused("{% set s = 'x' * 100000 %}{% for a in s %}"
                     "{% for b in s %}{% endfor %}{% endfor %}",
                     'ran past 1 s of wall time, the bound of one render')

    def test_memory_past_the_bound_is_refused(self):
        self.refused("{% set l = [] %}{% for i in range(1000) %}"
                     "{% set _ = l.append('x' * 1000000 ~ i) %}{% endfor %}",
                     'needs more than 64 MiB of memory, the bound of one '
                     'render')

    def test_template_errors_come_back_as_they_are(self):
        self.refused("{{ 1 / 0 }}", 'Error rendering template h/hostile.yaml:'
                     ' ZeroDivisionError')
        self.refused("{% include 'missing.j2' %}", 'TemplateNotFound')

    def test_a_failed_read_is_the_callers_error(self):
        objects = files()

        def read(path):
            if path == 'x/inc.j2':
                raise RuntimeError('Swift is down')
            return objects[path]
        with self.assertRaisesRegex(RuntimeError, 'Swift is down'):
            render_process.render(objects, read, limits=SMALL)

    def test_templates_compiled_in_the_child_stay_compiled(self):
        objects = files(**{'c/unique.j2.yaml': '{{ "compiled once" }}'})
        self.assertEqual(b'compiled once',
                         self.render(objects)['c/unique.yaml'])
        original = jinja2.Environment.compile
        with mock.patch.object(jinja2.Environment, 'compile', autospec=True,
                               side_effect=original) as compile_:
            rendering.render(objects, objects.__getitem__)
        self.assertEqual(0, compile_.call_count)

    def test_no_process_to_spare_is_a_clear_error_and_leaks_nothing(self):
        fds = len(os.listdir('/proc/self/fd'))
        with mock.patch.object(os, 'fork', autospec=True,
                               side_effect=OSError(12, 'Cannot allocate '
                                                   'memory')):
            with self.assertRaisesRegex(rendering.RenderError,
                                        'Could not start the process of the '
                                        'render .*Cannot allocate memory'):
                self.render(files())
        self.assertEqual(fds, len(os.listdir('/proc/self/fd')))
