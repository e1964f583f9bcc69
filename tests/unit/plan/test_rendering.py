"""The renderer on small trees; THT 18.0.0 itself is in the functional
tests, byte for byte against THT's own process-templates.py."""

import unittest
from unittest import mock

import jinja2
import yaml

from tripleoplanclient.plan import rendering

ROLES = yaml.safe_dump([{'name': 'Controller', 'tags': ['primary']},
                        {'name': 'ComputeSpecial'}])
NETWORKS = yaml.safe_dump([{'name': 'InternalApi'},
                           {'name': 'Storage', 'name_lower': 'store'},
                           {'name': 'Tenant', 'enabled': False}])


def render(files, **kw):
    files = {k: v.encode() for k, v in files.items()}
    files.setdefault('roles_data.yaml', ROLES.encode())
    files.setdefault('network_data.yaml', NETWORKS.encode())
    return {k: v.decode() for k, v in rendering.render(
        files, files.__getitem__, **kw).items()}


class TestRender(unittest.TestCase):

    def test_role_templates_once_per_role(self):
        out = render({'puppet/role.role.j2.yaml':
                      '{{role.name}}:{{role.tags|join(",")}}\n'})
        self.assertEqual({'puppet/controller-role.yaml':
                          'Controller:primary',
                          'puppet/computespecial-role.yaml':
                          'ComputeSpecial:compute'}, out)

    def test_bare_role_name_when_the_source_does_not_use_role_name(self):
        out = render({'a/x.role.j2.yaml': '{{role}} {{networks|length}}'})
        self.assertEqual('Controller 3', out['a/controller-x.yaml'])

    def test_nic_configs_are_named_after_the_role(self):
        out = render({'network/config/bond/role.role.j2.yaml': '{{role}}'})
        self.assertEqual({'network/config/bond/controller.yaml',
                          'network/config/bond/computespecial.yaml'},
                         set(out))

    def test_network_templates_for_enabled_networks_only(self):
        out = render({
            'network/network.network.j2.yaml':
                '{{network.name}} {{network.idx}}',
            'network/ports/port_v6.network.j2.yaml':
                '{{network.name_lower}}'})
        self.assertEqual({'network/internalapi.yaml': 'InternalApi 0',
                          'network/store.yaml': 'Storage 1',
                          'network/ports/internalapi_v6.yaml': 'internalapi',
                          'network/ports/store_v6.yaml': 'store'}, out)

    def test_plain_templates_see_every_role_and_network(self):
        out = render({'overcloud.j2.yaml':
                      '{% for r in roles %}{{r.name}} {% endfor %}'
                      '{% for n in networks %}{{n.name_lower}} {% endfor %}'
                      '\n'})
        # Disabled networks keep no name_lower; jinja2 drops one trailing
        # newline, as in THT.
        self.assertEqual('Controller ComputeSpecial internalapi store  ',
                         out['overcloud.yaml'])

    def test_excludes_apply_to_role_and_network_outputs(self):
        out = render({
            'j2_excludes.yaml': 'name:\n  - puppet/controller-role.yaml\n'
                                '  - network/store.yaml\n',
            'puppet/role.role.j2.yaml': 'x',
            'network/network.network.j2.yaml': 'y'})
        self.assertEqual({'puppet/computespecial-role.yaml',
                          'network/internalapi.yaml'}, set(out))

    def test_includes_beside_the_template_then_at_the_root(self):
        out = render({
            'common/steps.j2': 'root',
            'deploy/steps.j2': 'beside',
            'deploy/a.j2.yaml': "{% include 'steps.j2' %}",
            'b.j2.yaml': "{% include 'common/steps.j2' %}",
            'other/c.j2.yaml': "{% include 'common/steps.j2' %}"})
        self.assertEqual({'deploy/a.yaml': 'beside', 'b.yaml': 'root',
                          'other/c.yaml': 'root'}, out)

    def test_hidden_directories_are_not_rendered(self):
        out = render({'.git/x.j2.yaml': 'x', 'a/.b/y.j2.yaml': 'y'})
        self.assertEqual({}, out)

    def test_errors_name_the_output(self):
        with self.assertRaisesRegex(rendering.RenderError,
                                    'Error rendering template bad.yaml'):
            render({'bad.j2.yaml': '{% for %}'})
        with self.assertRaisesRegex(rendering.RenderError, 'list of roles'):
            render({'roles_data.yaml': 'name: Controller\n'})
        with self.assertRaisesRegex(rendering.RenderError, 'not valid YAML'):
            render({'roles_data.yaml': '- [\n'})

    def test_python_internals_are_out_of_reach(self):
        # The attack of issue 13: a function's globals reach os.popen.
        for source in (
                "{{ cycler.__init__.__globals__.os.popen('id -un').read() }}",
                "{{ range.__self__.globals }}", "{{ ''.__class__.__mro__ }}",
                "{{ lipsum.__globals__['os'] }}"):
            with self.assertRaisesRegex(rendering.RenderError,
                                        'Error rendering template x.yaml'):
                render({'x.j2.yaml': source})

    def test_data_handed_in_is_immutable(self):
        for source in ("{% set _ = roles.append({'name': 'Evil'}) %}",
                       "{% set _ = roles[0].update({'name': 'Evil'}) %}",
                       "{% set _ = roles[0]['tags'].append('x') %}",
                       "{% set _ = networks.pop() %}"):
            with self.assertRaisesRegex(rendering.RenderError,
                                        'SecurityError'):
                render({'x.j2.yaml': source})

    def test_containers_the_template_builds_stay_mutable(self):
        # THT's own overcloud-resource-registry-puppet.j2.yaml does this.
        out = render({'x.j2.yaml':
                      "{% set d = {} %}{% set l = [] %}"
                      "{% for r in roles %}{% set _ = d.update({r.name: 1})"
                      " %}{% set _ = l.append(r.name) %}{% endfor %}"
                      "{{ d|dictsort }} {{ l }}"})
        self.assertEqual("[('ComputeSpecial', 1), ('Controller', 1)] "
                         "['Controller', 'ComputeSpecial']", out['x.yaml'])

    def test_bounds_on_what_a_render_builds(self):
        for source, why in (
                ("{{ 'a' * 100000000 }}", 'would build'),
                ("{{ [1] * 100000000 }}", 'would build'),
                ("{{ 2 ** 100000000 }}", 'would build'),
                ("{% set n = 10 ** 10 %}{{ n ** n }}", 'would build'),
                ("{% for i in range(100000) %}{% for j in range(100000) %}"
                 "{% endfor %}{% endfor %}", 'range'),
                ("{{ 1 / 0 }}", 'ZeroDivisionError')):
            with self.assertRaisesRegex(rendering.RenderError, why):
                render({'x.j2.yaml': source})
        self.assertEqual('aaa 8', render({'x.j2.yaml':
                                          "{{ 'a' * 3 }} {{ 2 ** 3 }}"})[
                                              'x.yaml'])

    def test_names_that_would_leave_the_plan_are_refused(self):
        hostile = ['../user-environments/log/x', '/etc/x', 'a/b', '..',
                   'a\\b', '.']
        for name in hostile:
            roles = yaml.safe_dump([{'name': name}])
            with self.assertRaisesRegex(rendering.RenderError,
                                        'roles_data.yaml'):
                render({'roles_data.yaml': roles,
                        'p/r.role.j2.yaml': '{{role}}'})
            networks = yaml.safe_dump([{'name': 'Ok', 'name_lower': name}])
            with self.assertRaisesRegex(rendering.RenderError,
                                        'network_data.yaml'):
                render({'network_data.yaml': networks,
                        'network/ports/port.network.j2.yaml': 'x'})
        with self.assertRaisesRegex(rendering.RenderError, 'name'):
            render({'roles_data.yaml': yaml.safe_dump([{'name': 5}])})

    def test_no_output_over_what_the_tooling_keeps(self):
        with self.assertRaisesRegex(rendering.RenderError, 'passwords'):
            render({'plan-environment.j2.yaml': 'passwords: {}'})
        with self.assertRaisesRegex(rendering.RenderError, 'record'):
            render({'user-environments/x.j2.yaml': 'x'})

    def test_compiled_once_across_outputs_and_renders(self):
        # The same source for every role is compiled once; a later render of
        # the same text reuses the compiled code (jinja2's compile counted).
        original = jinja2.Environment.compile
        with mock.patch.object(jinja2.Environment, 'compile', autospec=True,
                               side_effect=original) as compile_:
            render({'x/a.role.j2.yaml': '{{role}} once'})
            self.assertEqual(1, compile_.call_count)
            render({'x/a.role.j2.yaml': '{{role}} once'})
            self.assertEqual(1, compile_.call_count)
            render({'x/a.role.j2.yaml': '{{role}} changed'})
            self.assertEqual(2, compile_.call_count)

    def test_input_paths(self):
        chosen = {'roles_data': 'roles.yaml', 'network_data': 'nets.yaml'}
        for path in ('a.j2.yaml', 'x/deploy-steps.j2', 'j2_excludes.yaml',
                     'roles.yaml', 'nets.yaml'):
            self.assertTrue(rendering.is_input(path, chosen), path)
        for path in ('a.yaml', 'user-files/e.yaml', 'roles_data.yaml'):
            self.assertFalse(rendering.is_input(path, chosen), path)
        # Without -r / -n: the templates' own data files.
        for path in ('roles_data.yaml', 'network_data.yaml',
                     'network_data_default.yaml'):
            self.assertTrue(rendering.is_input(path, {}), path)

    def test_data_paths(self):
        self.assertEqual(('roles_data.yaml', ('network_data_default.yaml',)),
                         rendering.data_paths({}, ['network_data_default.yaml',
                                                   'x.yaml']))
        self.assertEqual(('r.yaml', ('n.yaml',)), rendering.data_paths(
            {'roles_data': 'r.yaml', 'network_data': 'n.yaml'}, []))
