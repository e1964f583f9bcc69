"""Ansible callback for tools/tht-config-run.sh: one JSON line per task
result (play, task, its tags, host, status, seconds) appended to the file
THT_MEASURE_OUT names; nothing of the results' data (it may hold
secrets), only the first line of a failure's message."""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
    name: tht_measure
    type: aggregate
    short_description: task results per tag, for tools/tht-config-run.sh
    description: appends one JSON line per task result to $THT_MEASURE_OUT
'''

MESSAGE_CHARS = 300


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'tht_measure'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.out = os.environ.get('THT_MEASURE_OUT')
        self.play = None
        self.started = {}

    def v2_playbook_on_play_start(self, play):
        self.play = play.get_name()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.started[task._uuid] = time.monotonic()

    def v2_playbook_on_handler_task_start(self, task):
        self.started[task._uuid] = time.monotonic()

    def write(self, result, status):
        if not self.out:
            return
        task = result._task
        message = ''
        if status in ('failed', 'unreachable'):
            message = str(result._result.get('msg') or result._result.get(
                'stderr') or '').strip().splitlines()
            message = message[0][:MESSAGE_CHARS] if message else ''
        record = {
            'play': self.play, 'task': task.get_name(),
            'action': task.action, 'tags': sorted(set(task.tags)),
            'host': result._host.get_name(), 'status': status,
            'seconds': round(time.monotonic() - self.started.get(
                task._uuid, time.monotonic()), 3),
            'message': message}
        with open(self.out, 'a') as f:
            f.write(json.dumps(record) + '\n')

    def v2_runner_on_ok(self, result):
        self.write(result, 'changed' if result._result.get('changed')
                   else 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self.write(result, 'ignored' if ignore_errors else 'failed')

    def v2_runner_on_skipped(self, result):
        self.write(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self.write(result, 'unreachable')
