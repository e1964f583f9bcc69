"""Issue 26 (findings 2 and 6): a hostile template in the real Mistral.

Each plan holds one template past a bound of the render (the output of one
render, the memory it may add, both at mistral.conf's defaults) or the
CVE-2025-27516 payload; its render fails naming the template, nothing of
it is written, and the executor renders the next plan as usual. (Wall time
is bounded too, at 120 s by default: the unit tests cover it with a small
bound.)
"""

import os
import subprocess
import time
import uuid

from tests.functional import base

ROLES = '- name: Controller\n- name: Compute\n'
GOOD = {'roles_data.yaml': ROLES,
        'puppet/role.role.j2.yaml': 'role: {{role.name}}\n'}
HOSTILE = {
    'big': ("{% for i in range(100) %}{{ 'x' * 1000000 }}{% endfor %}",
            'Template big.yaml takes the render past 64 MiB of output'),
    'hog': ("{% set l = [] %}{% for i in range(3000) %}"
            "{% set _ = l.append('x' * 1000000 ~ i) %}{% endfor %}",
            'Template hog.yaml needs more than 1024 MiB of memory'),
    'cve': ("{{ ('{0.__init__.__globals__[os].sys.modules[oslo_config.cfg]"
            ".CONF.keystone_authtoken.password}'|attr('format'))(cycler) }}",
            "cve.yaml: SecurityError: access to attribute 'format' of 'str'"),
}


class TestHardeningRender(base.FunctionalTest):

    def create(self, plan, files, fail=False):
        templates = base.write_tree(os.path.join(self.tmp, plan), files)
        self.addCleanup(subprocess.run, ['openstack', 'overcloud', 'plan',
                                         'delete', '-y', plan],
                        env=self.env, capture_output=True)
        start = time.monotonic()
        out, err = self.openstack('overcloud', 'plan', 'create', plan,
                                  '--templates', templates, fail=fail)
        return err, time.monotonic() - start

    def test_a_template_past_a_bound_is_refused_the_next_plan_renders(self):
        for name, (source, message) in sorted(HOSTILE.items()):
            plan = 'bound-%s-%s' % (name, uuid.uuid4().hex[:6])
            err, took = self.create(plan, dict(
                GOOD, **{'%s.j2.yaml' % name: source}), fail=True)
            self.assertIn(message, err)
            listing = self.swift.listing(plan)
            # Nothing of the failed render was written.
            self.assertNotIn('%s.yaml' % name, listing)
            self.assertNotIn('puppet/compute-role.yaml', listing)
            print('%s: refused in %.1f s' % (name, took))
            good = 'bound-next-%s' % uuid.uuid4().hex[:6]
            err, took = self.create(good, GOOD)
            self.assertEqual(b'role: Compute', self.swift.get(
                good, 'puppet/compute-role.yaml'))
            print('next plan rendered in %.1f s' % took)
