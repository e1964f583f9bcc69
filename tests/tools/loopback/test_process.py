"""tools/loopback/process.py: stopping a service ends every process of
its group, a worker busy in an action (deaf to SIGTERM) included."""

import os
from pathlib import Path
import shutil
import sys
import tempfile
import textwrap
import time
from unittest import mock

import testtools

from loopback import process
from loopback import state

# A service like Mistral's: a parent that stops on SIGTERM and a worker
# (fork) that ignores it, busy; the worker's pid is written to a file.
SERVICE = textwrap.dedent('''
    import os, signal, sys, time
    worker = os.fork()
    if worker == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            sum(range(10000))
    with open(sys.argv[1], 'w') as f:
        f.write(str(worker))
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    while True:
        time.sleep(0.1)
''')


def alive(pid):
    stat = process.proc_stat(pid)
    return stat is not None and stat[0] not in ('Z', 'X')


class TestStopEndsTheGroup(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.state, ignore_errors=True)
        patcher = mock.patch.dict(os.environ, {'LOOPBACK_DIR': self.state})
        patcher.start()
        self.addCleanup(patcher.stop)

    def start(self):
        script = Path(self.state) / 'service.py'
        script.write_text(SERVICE)
        found = Path(self.state) / 'worker'
        pid = process.spawn('busy', [sys.executable, str(script),
                                     str(found)],
                            Path(self.state) / 'busy.log', Path(self.state),
                            stop_timeout=2.0)
        deadline = time.monotonic() + 30
        while not found.exists() or not found.read_text():
            self.assertLess(time.monotonic(), deadline, 'no worker')
            time.sleep(0.05)
        worker = int(found.read_text())
        # end it whatever the test's outcome: both are ours
        self.addCleanup(process.end_group, pid, 0.1)
        return pid, worker

    def test_a_busy_worker_deaf_to_sigterm_is_ended_with_its_service(self):
        pid, worker = self.start()
        self.assertTrue(alive(worker))
        began = time.monotonic()
        said = process.stop_pidfile(state.pids_dir() / 'busy.pid')
        took = time.monotonic() - began
        self.assertFalse(alive(pid))
        self.assertFalse(alive(worker), 'the worker outlived stop')
        self.assertIn('and 1 process(es) of its group', said)
        # the leader's timeout, the group's grace, then SIGKILL at once
        self.assertLess(took, 2.0 + 2.0 + 5.0)

    def test_a_pid_file_without_its_group_ends_only_its_process(self):
        pid, worker = self.start()
        path = state.pids_dir() / 'busy.pid'
        data = process.read_pidfile(path)
        process.record_pid('busy', pid, data['starttime'], data['cmd'],
                           Path(data['log']), stop_timeout=2.0)
        process.stop_pidfile(path)
        self.assertFalse(alive(pid))
        self.assertTrue(alive(worker))
        self.assertEqual(1, process.end_group(pid, 0.1))
        self.assertFalse(alive(worker))
