"""Every step reproducible: show-history --step, export --step, restore,
against the real Swift, Mistral and Heat (small templates)."""

import hashlib
import json
import os
import tarfile
import time

from tests.functional import base
from tests.functional import deploy_base

# A jinja source too, so that a roles change replaces rendered output.
TEMPLATES = dict(deploy_base.TEMPLATES, **{
    'roles.j2.yaml': '{% for role in roles %}- {{role.name}}\n{% endfor %}',
})


def md5(data):
    return hashlib.md5(data).hexdigest()


def members(path):
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}


class TestPastSteps(deploy_base.DeployTest):

    TEMPLATES = TEMPLATES

    def export(self, step, name):
        path = os.path.join(self.tmp, self.plan, name)
        result = self.openstack_json('overcloud', 'plan', 'export',
                                     self.plan, '--step', step,
                                     '--output-file', path)
        self.assertEqual(path, result['file'])
        with open(path, 'rb') as f:
            return f.read(), result

    def files(self, step):
        return {r['path']: r for r in self.openstack_json(
            'overcloud', 'plan', 'show-step', self.plan, step)}

    def test_show_export_restore_a_past_step(self):
        self.first_deploy()                         # steps 1 (create), 2
        self.history(2)
        mine = 'user-files' + self.mine
        right_after, result = self.export('2', 'right-after.tar.gz')
        self.assertEqual(2, result['step'])
        shown = self.files('2')
        self.assertEqual(md5(b'parameter_defaults:\n  Message: mine\n'),
                         shown[mine]['md5'])
        self.assertEqual(2, shown[mine]['environment'])
        self.assertEqual(self.mine, shown[mine]['source'])
        self.assertEqual(md5(b'- Controller\n'), shown['roles.yaml']['md5'])

        # Later steps replace the user file and the rendered output.
        self.write('%s/mine.yaml' % self.plan,
                   'parameter_defaults:\n  Message: later\n')
        roles = self.write('%s/roles.yaml' % self.plan,
                           '- name: Controller\n- name: Compute\n')
        steps = len(self.record()['history'])
        self.openstack('overcloud', 'plan', 'amend', self.plan, '-e',
                       self.mine, '-r', roles)
        self.history(steps + 1)
        self.assertEqual('SUCCESS', self.deploy()['status'])
        self.assertEqual('later/', self.outputs()['value'])
        self.assertEqual(b'- Controller\n- Compute\n',
                         self.swift.get(self.plan, 'roles.yaml'))

        # Step 2 is the same file, byte for byte, and lists the same.
        today, _ = self.export('2', 'today.tar.gz')
        self.assertEqual(right_after, today)
        # but for its source, which reads otherwise now
        later = self.files('2')
        self.assertEqual(('present', 'changed'), (
            shown[mine].pop('source_state'), later[mine].pop('source_state')))
        self.assertEqual(shown, later)
        content = members(os.path.join(self.tmp, self.plan, 'today.tar.gz'))
        self.assertEqual(b'parameter_defaults:\n  Message: mine\n',
                         content[mine])
        self.assertEqual(b'- Controller\n', content['roles.yaml'])

        # Restore: a new step; Swift holds step 2's files again, and the
        # next deploy applies them.
        before = self.record()['history']
        restored = self.openstack_json('overcloud', 'plan', 'restore',
                                       self.plan, '--step', '2')
        self.assertEqual('SUCCESS', restored['status'])
        rows = self.history(len(before) + 1)
        self.assertEqual(('restore', restored['id']),
                         (rows[-1]['action'], rows[-1]['id']))
        self.assertEqual(b'parameter_defaults:\n  Message: mine\n',
                         self.swift.get(self.plan, mine))
        self.assertEqual(b'- Controller\n',
                         self.swift.get(self.plan, 'roles.yaml'))
        redeployed = self.deploy()
        self.assertEqual(('SUCCESS', 'UPDATE'), (
            redeployed['status'], redeployed['operation']), redeployed)
        self.assertEqual('mine/', self.outputs()['value'], redeployed)
        latest = self.files(str(len(rows) + 1))
        self.assertEqual({p: r['md5'] for p, r in shown.items()},
                         {p: r['md5'] for p, r in latest.items()})

    def history(self, count, timeout=60):
        """The history once it shows ``count`` steps in five reads in a row:
        a container replica's listing may lag a write just made (with an
        object server down, until Swift's updater runs), and the proxy
        asks a replica at random. A command that reads a lagging replica
        works from the step before (a known limit of the record on a
        degraded Swift: it acts as a concurrent writer would)."""
        deadline = time.monotonic() + timeout
        agreed = 0
        while True:
            rows = self.record()['history']
            agreed = agreed + 1 if len(rows) >= count else 0
            if agreed >= 5 or time.monotonic() > deadline:
                self.assertEqual(count, len(rows))
                return rows
            time.sleep(1)

    def snapshot_with(self, step_id, final, timeout=60):
        """The plan's objects once a listing shows step ``step_id`` and
        its outcome object: a replica's listing may lag a write just
        made."""
        from tripleoplanclient.record import log
        deadline = time.monotonic() + timeout
        while True:
            found = self.snapshot(self.plan)
            if (log.outcome_path(step_id, final) in found and any(
                    n.startswith(log.LOG_PREFIX) and
                    n.endswith('-%s.yaml' % step_id) for n in found)) or \
                    time.monotonic() > deadline:
                return found
            time.sleep(1)

    def unhook(self):
        """Clear the breakpoint on resource "one"; Heat's HTTP status."""
        stack = self.stack()
        if stack is None:
            return None
        status, _, _ = self.heat_http.request(
            'POST', 'stacks/%s/%s/resources/one/signal' % (
                self.plan, stack['id']),
            data=json.dumps({'unset_hook': 'pre-update'}).encode(),
            headers={'Content-Type': 'application/json'})
        return status

    def followed(self, timeout=60):
        """Wait until the newest deploy workflow has ended: its follow task
        may still record the outcome the client recorded too."""
        mistral = base.Swift(self.env['LOOPBACK_MISTRAL_URL'], self.session)
        stack = [r for r in self.record()['history'] if r.get('stack')][-1]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, _, body = mistral.request(
                'GET', 'executions/%s' % stack['stack']['execution'])
            if json.loads(body)['state'] not in ('RUNNING', 'IDLE'):
                return
            time.sleep(1)
        self.fail('deploy workflow still running after %d s' % timeout)

    def test_bad_steps_and_a_busy_stack_change_nothing(self):
        deployed = self.first_deploy()
        self.history(2)
        self.followed()
        before = self.snapshot_with(deployed['id'], final=True)
        for step, pattern in (('0', 'has no step 0: its history has steps '
                                    '1 to 2'),
                              ('3', 'has no step 3'),
                              ('feedc0ffee00', "no step with id "
                                               "'feedc0ffee00'")):
            self.fail_with(pattern, 'overcloud', 'plan', 'restore',
                           self.plan, '--step', step)
            self.fail_with(pattern, 'overcloud', 'plan', 'export',
                           self.plan, '--step', step, '--output-file',
                           os.path.join(self.tmp, 'bad.tar.gz'))
            self.fail_with(pattern, 'overcloud', 'plan', 'show-step',
                           self.plan, step)
        self.assertFalse(os.path.exists(os.path.join(self.tmp,
                                                     'bad.tar.gz')))
        self.assertEqual(before, self.snapshot(self.plan))

        # A breakpoint (Heat's pre-update hook on resource "one") keeps the
        # update in progress until the test clears it, however slow the
        # machine is.
        hooked = self.write('%s/hooked.yaml' % self.plan,
                            'resource_registry:\n  resources:\n    one:\n'
                            '      hooks: pre-update\n'
                            'parameter_defaults:\n  Extra: hooked\n')
        hooked = self.deploy('-e', hooked, '--no-wait')
        self.addCleanup(self.unhook)        # also when an assertion fails
        before = self.snapshot_with(hooked['id'], final=False)
        self.fail_with(r'Stack operation in progress \(step 3, deploy',
                       'overcloud', 'plan', 'restore', self.plan, '--step',
                       '1')
        self.assertEqual(before, self.snapshot(self.plan))
        self.assertEqual(200, self.unhook())
        self.assertEqual('UPDATE_COMPLETE', self.wait_stack()['stack_status'])
