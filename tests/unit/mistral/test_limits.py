"""The bounds of one render as mistral.conf sets them, applied by the
render action (Swift faked over HTTP)."""

from oslo_config import cfg

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import limits
from tripleoplanclient.mistral import objects
from tripleoplanclient.mistral import render
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import rendering

URL = fakes.SWIFT
ROLES = b'- name: Controller\n'


class TestRenderLimits(fakes.HttpTestCase):

    def configure(self, **options):
        limits.render_limits()      # registers the options
        for name, value in options.items():
            cfg.CONF.set_override(name, value, group='tripleoplan')
            self.addCleanup(cfg.CONF.clear_override, name,
                            group='tripleoplan')

    def test_defaults(self):
        self.assertEqual(rendering.LIMITS, limits.render_limits())
        self.assertEqual((64 * 1024 * 1024, 120, 1024 * 1024 * 1024),
                         tuple(rendering.LIMITS))

    def test_options_set_the_bounds(self):
        self.configure(render_max_output_mb=2, render_timeout=5,
                       render_max_memory_mb=300)
        self.assertEqual(rendering.Limits(2 * 1024 * 1024, 5,
                                          300 * 1024 * 1024),
                         limits.render_limits())

    def test_the_render_action_is_bounded_and_the_next_plan_renders(self):
        self.configure(render_timeout=1, render_max_output_mb=1)
        self.swift_plan({
            'roles_data.yaml': ROLES,
            'h.j2.yaml': b"{% include 'loop.j2' %}",
            'loop.j2': b"{% set s = 'x' * 100000 %}{% for a in s %}"
                       b"{% for b in s %}{% endfor %}{% endfor %}"}, plan='p')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Template h.yaml ran past 1 s of wall '
                                    'time'):
            render.render_plan(fakes.plan_store(), 'p',
                               cache=objects.ContentCache())
        self.swift_plan({'roles_data.yaml': ROLES,
                         'big.j2.yaml': b"{{ 'x' * 2000000 }}"}, plan='o')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Template big.yaml takes the render past '
                                    '1 MiB of output'):
            render.render_plan(fakes.plan_store(), 'o',
                               cache=objects.ContentCache())
        self.swift_plan({'roles_data.yaml': ROLES,
                         'a.j2.yaml': b'{{ roles[0].name }}'}, plan='q')
        put = self.m.put(URL + '/q/a.yaml', status_code=201)
        self.m.put(URL + '/q/' + layout.RENDER_MANIFEST, status_code=201)
        summary = render.render_plan(fakes.plan_store(), 'q',
                                     cache=objects.ContentCache())
        self.assertEqual(['a.yaml'], summary['written'])
        self.assertEqual(b'Controller', put.last_request.body)
