"""Plan ``p`` of three steps on a stateful fake Swift (created, then two
amends), made by the client's step functions, and what an export of a
step holds.
"""

import io
import os
import tarfile

from tests.unit import fakes
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.record import past
from tripleoplanclient.record import steps


class PastTestCase(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.templates = self.write('tht/overcloud.yaml', b'heat: 1\n')
        self.write('tht/roles_data.yaml', b'- name: Controller\n')
        self.templates = os.path.dirname(self.templates)

    def create(self):
        files = files_mod.PlanFiles(self.templates)
        files.add_templates()
        files.add_environment(self.write('env.yaml', b'parameters: {a: 1}\n'))
        return steps.create(self.store, 'p', files, fakes.Recorder(self.store),
                            render=False)

    def amend(self, envs=(), uploads=(), remove=()):
        head = self.store.reader.head('p')
        files = files_mod.PlanFiles(head.state['templates'])
        for path in envs:
            files.add_environment(path)
        for spec in uploads:
            files.add_upload(spec)
        remove = steps.resolve_removals(files, head.state['environments'],
                                        remove)
        return steps.amend(self.store, 'p', head, files, remove,
                           fakes.Recorder(self.store), no_render=True)

    def story(self):
        """create; amend env.yaml v2 (step 2); amend overcloud.yaml by
        upload and add b.yaml (step 3)."""
        self.create()
        env = self.write('env.yaml', b'parameters: {a: 2}\n')
        self.amend([env])
        self.amend([self.write('b.yaml', b'{}\n')],
                   [self.write('new-oc.yaml', b'heat: 2\n')
                    + '=overcloud.yaml'])

    def exported(self, which):
        out = io.BytesIO()
        past.export(self.store, past.at(self.store, 'p', which), out)
        return out.getvalue()

    @staticmethod
    def members(data):
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar}
