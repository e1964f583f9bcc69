"""overcloud delete as cliff runs it (``delete_mistral``): the export
written first, Heat's failure exit 1 with the plan untouched, an existing
export file refused before anything."""

import os
import tarfile

from tests.unit import fakes
from tests.unit.osc import delete_mistral
from tripleoplanclient.osc import overcloud_delete


class OvercloudDeleteCommandTest(delete_mistral.DeleteMistral,
                                 fakes.PlanTestCase):

    def test_overcloud_delete_exports_first_heat_failure_exit_1(self):
        self.m.delete(fakes.HEAT + '/stacks/' + fakes.STACK_ID,
                      status_code=204)
        self.heat_end = 'DELETE_FAILED'
        target = os.path.join(self.dir, 'p.tar.gz')
        code, row, err = self.run_command(
            overcloud_delete.DeleteOvercloud, 'p', '-y', '--export-file',
            target)
        self.assertEqual((1, 'FAILED', 'untouched', target), (
            code, row['status'], row['plan_status'], row['export_file']),
            err)
        self.assertIn('Heat says DELETE_FAILED', err)
        self.assertEqual('Heat says DELETE_FAILED', row['reason'])
        with tarfile.open(target) as tar:
            self.assertIn('plan-environment.yaml', tar.getnames())
        self.assertTrue(self.swift.objects)
        # an existing export file: refused before anything
        code, row, err = self.run_command(
            overcloud_delete.DeleteOvercloud, 'p', '-y', '--export-file',
            target)
        self.assertEqual((3, 'REFUSED'), (code, row['status']))
        self.assertIn('exists', err)
        self.assertIn('Export file %s exists' % target, row['reason'])
        self.assertEqual(1, len(self.executions))
