"""Issue 26 (finding 4): no object name leaves its plan, on real Swift.

Plan P holds objects whose names resolve, in a URL, to objects of a canary
container beside it (Swift stores them as they are when the dots come
percent-encoded); its render manifest names them as stale outputs, and a
crafted step names a tree base in the canary. Render, deploy --dry-run,
deploy, restore, show-history, diff, export and delete of P leave the
canary untouched: the same objects with the same content, and no request
of the client or of Mistral's actions in Swift's access log names it.
"""

import os
import re
import time
import urllib.parse
import uuid

import yaml

from tests.functional import deploy_base


def _container_head(line, container):
    """Whether an access log line is a HEAD of ``container`` itself (the
    proxy logs the query quoted into the path)."""
    words = line.split()
    if 'HEAD' not in words or words.index('HEAD') + 1 >= len(words):
        return False
    path = urllib.parse.unquote(words[words.index('HEAD') + 1])
    return path.partition('?')[0].rstrip('/').endswith('/' + container)


def encoded(name):
    """``name`` as a URL path Swift stores literally: every dot of a dot
    segment and every ``%`` percent-encoded."""
    parts = name.replace('%', '%25').split('/')
    return '/'.join(p.replace('.', '%2E') if p in ('.', '..') else p
                    for p in parts)


class TestHardeningNames(deploy_base.DeployTest):

    TEMPLATES = dict(deploy_base.TEMPLATES, **{
        'x/a.role.j2.yaml': 'heat_template_version: rocky\n'
                            'description: {{role.name}}\n'})

    def setUp(self):
        super().setUp()
        self.canary = 'canary-%s' % uuid.uuid4().hex[:8]
        self.canary_objects = {'db.yaml': b'precious: 1\n',
                               'x.yaml': b'other: 2\n',
                               'sub/y.yaml': b'deeper: 3\n'}
        status, _, _ = self.swift.request('PUT', self.canary)
        self.assertIn(status, (201, 202))
        self.addCleanup(self.remove_canary)
        for name, data in self.canary_objects.items():
            status, _, _ = self.swift.request(
                'PUT', '%s/%s' % (self.canary, name), data=data)
            self.assertEqual(201, status)
        self.canary_before = self.swift.listing(self.canary)
        self.log_start = self.access_log_size()
        # Names that a request resolving dot segments sends to the canary.
        self.hostile = [
            'user-environments/../../%s/db.yaml' % self.canary,
            'a/../../%s/x.yaml' % self.canary,
            'a/%%2e%%2e/%%2E%%2E/%s/sub/y.yaml' % self.canary,
        ]

    # -- helpers ---------------------------------------------------------

    def access_log_size(self):
        path = self.env.get('LOOPBACK_SWIFT_ACCESS_LOG')
        return os.path.getsize(path) if path and os.path.exists(path) else 0

    def canary_requests(self):
        """Access log lines since setUp naming the canary, but the test's
        own (urllib's) requests."""
        path = self.env.get('LOOPBACK_SWIFT_ACCESS_LOG')
        if not path or not os.path.exists(path):
            return []
        with open(path, 'rb') as f:
            f.seek(self.log_start)
            lines = f.read().decode('utf-8', 'replace').splitlines()
        # A HEAD of the canary container itself is plan list reading the
        # metadata of every container of the account (another test may
        # list plans meanwhile): it reaches no object.
        return [line for line in lines
                if '/%s' % self.canary in line and 'Python-urllib' not in line
                and not _container_head(line, self.canary)]

    def assertCanaryUntouched(self):
        self.assertEqual(self.canary_before, self.swift.listing(self.canary))
        for name, data in self.canary_objects.items():
            self.assertEqual(data, self.swift.get(self.canary, name))
        self.assertEqual([], self.canary_requests())

    def put_hostile(self):
        for name in self.hostile:
            status, _, _ = self.swift.request(
                'PUT', '%s/%s' % (self.plan, encoded(name)), data=b'evil')
            self.assertEqual(201, status, name)
        stored = self.swift.listing(self.plan)
        # Swift stored each name as it is, not resolved.
        self.assertEqual([], [n for n in self.hostile if n not in stored])
        self.addCleanup(self.remove_hostile)

    def remove_hostile(self):
        for name in self.hostile:
            self.swift.request('DELETE', '%s/%s' % (self.plan, encoded(name)))

    def remove_canary(self):
        for name in self.canary_objects:
            self.swift.request('DELETE', '%s/%s' % (self.canary, name))
        for _ in range(5):
            status, _, _ = self.swift.request('DELETE', self.canary)
            if status in (204, 404):
                return
            time.sleep(1)

    def manifest_naming_them(self):
        """The render manifest, with the hostile names and the passwords
        file as outputs of the last render, and inputs that changed."""
        name = 'user-environments/rendered.yaml'
        manifest = yaml.safe_load(self.swift.get(self.plan, name))
        listing = self.swift.listing(self.plan)
        manifest['outputs'].update((n, listing[n]) for n in self.hostile + [
            'plan-environment.yaml'])
        manifest['inputs'] = {}
        status, _, _ = self.swift.request(
            'PUT', '%s/%s' % (self.plan, name),
            data=yaml.safe_dump(manifest).encode())
        self.assertEqual(201, status)

    def crafted_step(self):
        """A step object whose tree base names a canary object; its name."""
        listing = self.swift.listing(self.plan, 'user-environments/log/')
        newest = sorted(listing)[-1]
        step = yaml.safe_load(self.swift.get(self.plan, newest))
        base_name = '../../../%s/db' % self.canary
        step['state']['tree'] = {'base': base_name, 'changes': {}}
        step['change']['tree_base'] = base_name
        step['id'] = uuid.uuid4().hex[:12]
        name = 'user-environments/log/%s-%s.yaml' % (
            time.strftime('%Y%m%dT%H%M%S000000Z', time.gmtime()),
            step['id'])
        status, _, _ = self.swift.request(
            'PUT', '%s/%s' % (self.plan, name),
            data=yaml.safe_dump(step).encode())
        self.assertEqual(201, status)
        return name

    # -- the story -------------------------------------------------------

    def test_render_deploy_restore_export_delete_leave_the_canary(self):
        figures = {}
        self.first_deploy()
        self.put_hostile()

        # The render of an amend, its manifest naming them as stale.
        self.manifest_naming_them()
        source = self.write('%s/a.role.j2.yaml' % self.plan,
                            'heat_template_version: rocky\n'
                            'description: {{role.name}} v2\n')
        started = time.monotonic()
        _, err = self.openstack('overcloud', 'plan', 'amend', self.plan,
                                '--upload-file',
                                '%s=x/a.role.j2.yaml' % source)
        figures['amend'] = time.monotonic() - started
        for name in self.hostile:
            self.assertIn(repr(name), err)
        self.assertIn('Render: ', err)
        self.assertIn('plan-environment.yaml', err)
        stored = self.swift.listing(self.plan)
        for name in self.hostile + ['plan-environment.yaml']:
            self.assertIn(name, stored)
        self.assertCanaryUntouched()

        # deploy --dry-run, then a deploy (stack update) that renders.
        self.manifest_naming_them()
        self.openstack_json('overcloud', 'deploy', '--stack', self.plan,
                            '--dry-run')
        self.assertCanaryUntouched()
        started = time.monotonic()
        deployed = self.deploy('-e', self.write(
            '%s/more.yaml' % self.plan,
            'parameter_defaults:\n  Message: more\n'))
        figures['deploy'] = time.monotonic() - started
        self.assertEqual('SUCCESS', deployed['status'])
        self.assertCanaryUntouched()

        # restore, show-history, diff, export.
        self.openstack('overcloud', 'plan', 'restore', self.plan,
                       '--step', '1')
        self.assertCanaryUntouched()
        self.openstack_json('overcloud', 'plan', 'show-history', self.plan)
        out = os.path.join(self.tmp, '%s.tar.gz' % self.plan)
        self.fail_with("cannot be exported: object '[^']*%s" % self.canary,
                       'overcloud', 'plan', 'export', self.plan,
                       '--output-file', out)
        self.assertFalse(os.path.exists(out))
        self.assertCanaryUntouched()

        # A step whose tree base is a canary object: a clear error naming
        # the step, nothing read outside the plan.
        crafted = self.crafted_step()
        for args in (('plan', 'show-history', self.plan),
                     ('plan', 'diff', self.plan),
                     ('plan', 'restore', self.plan, '--step', '1'),
                     ('plan', 'export', self.plan, '--step', '1',
                      '--output-file', out)):
            self.fail_with(re.escape(crafted), 'overcloud', *args)
        self.swift.request('DELETE', '%s/%s' % (self.plan, crafted))
        self.assertCanaryUntouched()

        # delete: refused while the names are there, nothing deleted.
        stack = self.wait_stack()
        self.heat('DELETE', 'stacks/%s/%s' % (self.plan, stack['id']))
        deadline = time.monotonic() + 120
        while self.stack() is not None and time.monotonic() < deadline:
            time.sleep(1)
        before = self.swift.listing(self.plan)
        self.fail_with('Nothing was deleted', 'overcloud', 'plan', 'delete',
                       '-y', self.plan)
        self.assertEqual(before, self.swift.listing(self.plan))
        self.assertCanaryUntouched()
        # Once they are gone, the plan goes as before.
        self.remove_hostile()
        self.openstack('overcloud', 'plan', 'delete', '-y', self.plan)
        self.assertIsNone(self.swift.listing(self.plan))
        self.assertCanaryUntouched()
        print('figures (s): %s' % ', '.join(
            '%s %.1f' % item for item in sorted(figures.items())))
