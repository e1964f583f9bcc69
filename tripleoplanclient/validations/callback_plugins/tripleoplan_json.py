"""Ansible stdout callback of tripleoplanclient's validation runs.

Loaded by ansible-playbook from this directory (``runner`` sets
ANSIBLE_CALLBACK_PLUGINS and ANSIBLE_STDOUT_CALLBACK): ansible-core 2.19
ships no JSON callback (``ansible.posix.json`` is a collection). Writes
the run so far, as one line of JSON after ``TRIPLEOPLAN-RESULT ``, to
stdout after every task (the runner holds the pipe and keeps the last
line), so a run that is stopped or times out still shows what it did.
Ansible itself only: it runs inside ansible-playbook.
"""

import json
import sys

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: tripleoplan_json
    type: stdout
    short_description: the run as JSON, in a file
    description:
        - Plays, tasks with each host's status, stats per host.
"""

# the most of a failed task's output kept, per field
_KEEP = 4000


def _why(found):
    """A failed task's message; a command's own last words with the
    bare "non-zero return code" Ansible gives."""
    msg = str(found.get('msg') or found.get('stderr') or found.get(
        'module_stderr') or '')
    last = str(found.get('stderr') or '').strip().splitlines()[-1:]
    if msg == 'non-zero return code' and last:
        msg = '%s %s: %s' % (msg, found.get('rc'), last[0])
    return msg


def _short(value):
    if isinstance(value, str) and len(value) > _KEEP:
        return value[:_KEEP] + '...'
    return value


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'tripleoplan_json'

    def __init__(self):
        super().__init__()
        self.run = {'plays': [], 'stats': {}, 'failures': []}

    def _save(self):
        sys.stdout.write('TRIPLEOPLAN-RESULT %s\n' % json.dumps(self.run))
        sys.stdout.flush()

    def v2_playbook_on_play_start(self, play):
        self.run['plays'].append({'name': play.get_name(), 'tasks': []})
        self._save()

    def v2_playbook_on_task_start(self, task, is_conditional):
        if self.run['plays']:
            self.run['plays'][-1]['tasks'].append(
                {'name': task.get_name(), 'hosts': {}})

    def _host(self, result, status):
        host = result._host.get_name()
        found = result._result
        entry = {'status': status}
        if status in ('failed', 'unreachable'):
            entry['msg'] = _short(_why(found))
            for key in ('rc', 'stdout', 'stderr'):
                if found.get(key) not in (None, ''):
                    entry[key] = _short(found[key])
            self.run['failures'].append(dict(
                entry, host=host, task=result._task.get_name()))
        elif found.get('msg'):
            entry['msg'] = _short(str(found['msg']))
        plays = self.run['plays']
        if plays and plays[-1]['tasks']:
            hosts = plays[-1]['tasks'][-1]['hosts']
            # a loop reports each item, then the task: keep the worst
            if hosts.get(host, {}).get('status') not in (
                    'failed', 'unreachable'):
                hosts[host] = entry
        self._save()

    def v2_runner_on_ok(self, result):
        self._host(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._host(result, 'ignored' if ignore_errors else 'failed')

    def v2_runner_on_unreachable(self, result):
        self._host(result, 'unreachable')

    def v2_runner_on_skipped(self, result):
        self._host(result, 'skipped')

    def v2_playbook_on_stats(self, stats):
        self.run['stats'] = {
            host: stats.summarize(host) for host in sorted(stats.processed)}
        self._save()
