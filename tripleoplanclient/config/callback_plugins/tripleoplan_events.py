"""Ansible stdout callback of tripleoplanclient's config-download runs.

Loaded by ansible-playbook from this directory (``ansible_run`` sets
ANSIBLE_CALLBACK_PLUGINS and ANSIBLE_STDOUT_CALLBACK, which outrank an
ansible.cfg of the tree): one line on stdout per task result and host,
``TRIPLEOPLAN-EVENT `` and its JSON ({host, task, status, play, message,
ignored, task_number, address: the inventory's ansible_host}), and at
the end ``TRIPLEOPLAN-STATS `` with the counts per host. Messages are
cut to ``KEEP`` characters here (the runner bounds and masks them
again: these lines are the playbook's stdout too), and a task under
``no_log`` says only that it hides its output. Ansible itself only, and
what ansible-core 2.14 to 2.19 all offer: it runs inside
ansible-playbook.
"""

import json
import sys

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: tripleoplan_events
    type: stdout
    short_description: each task result as a line of JSON
    description:
        - One line per task result and host, the counts per host at the end.
"""

KEEP = 4000
HIDDEN = 'the output of this task is hidden (no_log)'


def message(found):
    """A result's words: its ``msg``, else its stderr; with the bare
    "non-zero return code", the command's last line of stderr."""
    msg = found.get('msg') or found.get('stderr') or found.get(
        'module_stderr') or found.get('reason') or ''
    if not isinstance(msg, str):
        msg = json.dumps(msg, default=str, sort_keys=True)
    last = str(found.get('stderr') or '').strip().splitlines()[-1:]
    if msg == 'non-zero return code' and last:
        msg = '%s %s: %s' % (msg, found.get('rc'), last[0])
    return msg[:KEEP]


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'tripleoplan_events'

    def __init__(self):
        super().__init__()
        self.play = ''
        self.task_number = 0

    @staticmethod
    def _line(kind, data):
        sys.stdout.write('TRIPLEOPLAN-%s %s\n' % (
            kind, json.dumps(data, default=str)))
        sys.stdout.flush()

    def v2_playbook_on_play_start(self, play):
        self.play = play.get_name()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.task_number += 1

    def v2_playbook_on_handler_task_start(self, task):
        self.task_number += 1

    def _event(self, result, status, ignored=False):
        found = result._result
        if not isinstance(found, dict):
            found = {}
        if status == 'ok' and found.get('changed'):
            status = 'changed'
        hidden = result._task.no_log or found.get('_ansible_no_log') or \
            'censored' in found
        host = result._host
        self._line('EVENT', {
            'host': host.get_name(), 'task': result._task.get_name(),
            'address': str(host.vars.get('ansible_host') or host.get_name()),
            'status': status, 'play': self.play,
            'message': HIDDEN if hidden else message(found),
            'ignored': bool(ignored), 'task_number': self.task_number})

    def v2_runner_on_ok(self, result):
        self._event(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._event(result, 'failed', ignore_errors)

    def v2_runner_on_unreachable(self, result):
        self._event(result, 'unreachable')

    def v2_runner_on_skipped(self, result):
        self._event(result, 'skipped')

    def v2_playbook_on_stats(self, stats):
        self._line('STATS', {
            host: stats.summarize(host) for host in sorted(stats.processed)})
