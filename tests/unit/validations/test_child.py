"""The sandboxed child's pipes: lines read with a bound, whatever the
playbook writes; a process group ended by kill."""

import io
import subprocess

import testtools

from tests.unit import process_groups
from tripleoplanclient.validations import child


def pipe(data):
    return io.BufferedReader(io.BytesIO(data), buffer_size=7)


class TestLines(testtools.TestCase):

    def read(self, data, limit=40):
        found = []
        child.lines(pipe(data), b'P ', limit, found.append)
        return found

    def test_only_the_prefixed_lines_after_the_prefix(self):
        self.assertEqual([b'one', b'two {"x": 1}'], self.read(
            b'noise\nP one\nxP no\nP two {"x": 1}\nP unended'))

    def test_a_line_past_the_limit_is_dropped_whole(self):
        self.assertEqual([b'short', b'after'], self.read(
            b'P short\nP ' + b'x' * 100 + b' P tail\nP after\n'))

    def test_stderr_keeps_its_tail(self):
        self.assertEqual('b' * child.ERR_KEEP, child.tail(pipe(
            b'a' * 10000 + b'b' * child.ERR_KEEP)))


class TestKill(testtools.TestCase):

    def test_the_whole_group_ends(self):
        leader = subprocess.Popen(['/bin/sh', '-c', 'sleep 60 & sleep 60'],
                                  start_new_session=True)
        child.kill(leader.pid, leader, grace=2)
        self.assertTrue(process_groups.gone(leader.pid))
