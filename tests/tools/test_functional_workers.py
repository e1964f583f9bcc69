"""tools/functional_workers.py: the functional classes shared out among
stestr's workers by their measured seconds, each class on exactly one
worker, and the worker file stestr reads."""

import io
import os
import re
import sys
import tempfile

import testtools
import yaml


import functional_workers as fw

# tests listed in name order, as stestr deals them out without history
IDS = ['t.a.A.test_1', 't.a.A.test_2', 't.b.B.test_1', 't.c.C.test_1',
       't.d.D.test_1', 't.e.New.test_1']
SECONDS = {'t.a.A': 300.0, 't.b.B': 10.0, 't.c.C': 290.0, 't.d.D': 20.0,
           't.gone.Gone': 999.0}


class TestShare(testtools.TestCase):

    def test_longest_first_to_the_least_loaded(self):
        # in turn (stestr without history): A+C+New 650 s vs B+D 30 s;
        # here 330 vs 350 (New counts as the default 60 s)
        shares = fw.share(IDS, 2, SECONDS, default=60.0)
        self.assertEqual([['t.a.A', 't.b.B', 't.d.D'],
                          ['t.c.C', 't.e.New']], shares)

    def test_every_class_once_whatever_the_workers(self):
        for workers in (1, 2, 3, 7):
            shares = fw.share(IDS, workers, SECONDS)
            every = [name for names in shares for name in names]
            self.assertEqual(sorted(set(map(fw.class_of, IDS))),
                             sorted(every))
            self.assertEqual(workers, len(shares))

    def test_the_worker_file_runs_every_test_once(self):
        text = fw.worker_file(fw.share(IDS, 3, SECONDS))
        workers = yaml.safe_load(text)
        # stestr keeps a test for a worker when one of its regexes matches
        # (re.search)
        ran = [test for worker in workers for test in IDS
               if any(re.search(r, test) for r in worker['worker'])]
        self.assertEqual(sorted(IDS), sorted(ran))

    def test_a_class_is_not_a_prefix_of_another(self):
        text = fw.worker_file([['t.a.A'], ['t.a.AB']])
        first = yaml.safe_load(text)[0]['worker']
        self.assertFalse(any(re.search(r, 't.a.AB.test_1') for r in first))

    def test_main_writes_the_file_and_the_loads(self):
        fd, path = tempfile.mkstemp()
        self.addCleanup(os.unlink, path)
        with os.fdopen(fd, 'w') as f:
            f.write('300 t.a.A\n# a comment\n290 t.c.C\n')
        out, err = io.StringIO(), io.StringIO()
        self.patch(sys, 'stdin', io.StringIO('\n'.join(IDS) + '\n'))
        self.patch(sys, 'stdout', out)
        self.patch(sys, 'stderr', err)
        self.assertEqual(0, fw.main(['2', '--seconds', path]))
        self.assertEqual(2, len(yaml.safe_load(out.getvalue())))
        self.assertIn('worker 0: ', err.getvalue())

    def test_the_committed_seconds_parse(self):
        seconds = fw.read_seconds()
        self.assertTrue(all(name.startswith('tests.functional.')
                            for name in seconds))
        self.assertTrue(all(value > 0 for value in seconds.values()))
