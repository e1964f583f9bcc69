"""Object names that a request would resolve out of plan ``p`` (issue 26,
finding 4), and a test case holding plan ``p`` created by the client with
a container ``victim`` beside it, on a stateful fake Swift that records
every request.
"""

from urllib import parse

from tests.unit import fakes
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.record import steps

ACCOUNT = parse.urlsplit(fakes.SWIFT).path
SWIFT_HOST = fakes.SWIFT[:-len(ACCOUNT)]
# Names Swift stores as they are (one PUT with the dots percent-encoded)
# that a request would resolve out of the plan, or into its record.
HOSTILE = [
    'user-environments/../../victim/db.yaml',
    'a/../../victim/db.yaml',
    '../victim/db.yaml',
    'a/%2e%2e/%2E%2E/victim/db.yaml',
    'a/%252e%252E/%252e%252e/victim/db.yaml',
    'a%2f..%2f..%2fvictim/db.yaml',
    './x.yaml',
    'a/./x.yaml',
    '/victim/db.yaml',
    'a//x.yaml',
    'x/',
]
VICTIM = {'db.yaml': b'precious: 1\n', 'x.yaml': b'other: 2\n'}


def dot_segment(path):
    """True when ``path`` holds a dot or empty segment, decoded or not."""
    for _ in range(3):
        if {'.', '..'} & set(path.split('/')):
            return True
        path = parse.unquote(path)
    return False


class NamesTestCase(fakes.PlanTestCase):
    """Plan p created by the client, and container victim beside it."""

    def setUp(self):
        super().setUp()
        self.victim = fakes.FakeSwift(self.m, plan='victim')
        self.victim.objects.update(
            (n, (d, 'then')) for n, d in VICTIM.items())
        self.lines = []
        self.store = fakes.plan_store(progress=self.lines.append)
        tht = self.write('tht/overcloud.yaml', b'heat: 1\n')
        self.write('tht/roles_data.yaml', b'- name: Controller\n')
        files = files_mod.PlanFiles(tht.rsplit('/', 1)[0])
        files.add_templates()
        files.add_environment(self.write('env.yaml', b'parameters: {}\n'))
        steps.create(self.store, 'p', files, fakes.Recorder(self.store),
                     render=False)
        self.m.reset_mock()

    def assertStayedInPlan(self):
        """No request left plan p, none carried a dot segment, and the
        victim container is as it was."""
        outside = []
        for req in self.m.request_history:
            if not req.url.startswith(SWIFT_HOST):
                continue        # Heat
            path = parse.urlsplit(req.url).path
            if path == '/info' or (path.rstrip('/') == ACCOUNT and
                                   req.method == 'POST'):
                lines = (req.body or b'').decode().split('\n') \
                    if req.method == 'POST' else []
                outside += [(req.method, line) for line in lines if line and (
                    not parse.unquote(line).startswith('/p/')
                    or dot_segment(line))]
                continue
            if not (path == ACCOUNT + '/p' or path.startswith(
                    ACCOUNT + '/p/')) or dot_segment(path):
                outside.append((req.method, req.url))
        self.assertEqual([], outside)
        self.assertEqual(VICTIM, {n: d for n, (d, _) in
                                  self.victim.objects.items()})

    def requests(self):
        return len(self.m.request_history)
