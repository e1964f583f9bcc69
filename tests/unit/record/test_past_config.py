"""A past stack step's export holds the configuration it kept
(``record.past.export``), and only its own."""

import io
import tarfile

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tripleoplanclient.mistral import configure
from tripleoplanclient.record import configs
from tripleoplanclient.record import past

FILES = {'deploy_steps_playbook.yaml': (b'- hosts: all\n', 0o644)}


class TestExportWithConfig(stack_step_base.StackStepTestCase):

    def members(self, which):
        out = io.BytesIO()
        past.export(self.store, past.at(self.store, 'p', which), out)
        with tarfile.open(fileobj=io.BytesIO(out.getvalue())) as tar:
            return tar.getnames()

    def test_the_step_s_archive_and_no_other(self):
        fakes.stack_is(self.m, None)
        step = self.ask('deploy', container='p')['step']
        name = configs.archive_path(step['id'])
        configure.store_archive(self.store, 'p', name, FILES)
        # another step's archive (a later one's, say) stays out
        other = configs.archive_path('0123456789ab')
        configure.store_archive(self.store, 'p', other, FILES)
        names = self.members(2)
        self.assertIn(name, names)
        self.assertNotIn(other, names)
        self.assertNotIn(name, self.members(1))
