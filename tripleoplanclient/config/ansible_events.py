"""The lines a config-download run's callback writes, read and tallied.

The callback (``callback_plugins/tripleoplan_events.py``) writes one
``TRIPLEOPLAN-EVENT`` line per task result and host and one
``TRIPLEOPLAN-STATS`` line at the end; but those lines come through the
playbook's stdout, which a task may write too, so nothing in them is
trusted: each is parsed alone, shaped to what a progress event holds,
its words bounded and masked (``common.masking``: secret settings, the
run's known secret values, URLs' user-info). ``Tally`` keeps what the
result needs (counts per host, tasks, failures) within bounds.
"""

import json

from tripleoplanclient.common import masking

PREFIX = b'TRIPLEOPLAN-'
EVENT = b'EVENT '
STATS = b'STATS '
STATUSES = ('ok', 'changed', 'failed', 'unreachable', 'skipped')
# a progress event's and a failure's message, in characters
MESSAGE_LIMIT = 4096
# a host's, task's or play's name
NAME_LIMIT = 512
# failures kept in a result; hosts counted
FAILURES_LIMIT = 100
HOSTS_LIMIT = 10000
COUNTS = {'ok': 'ok', 'changed': 'changed', 'failed': 'failures',
          'unreachable': 'unreachable', 'skipped': 'skipped'}


def mask(text, secrets=(), limit=MESSAGE_LIMIT):
    """``text`` as it may be shown: secret settings and ``secrets``
    masked, cut to ``limit`` characters."""
    text = str(text)[:limit * 4]
    shown = '\n'.join(masking.mask_lines(text.split('\n'), values=secrets))
    if len(shown) > limit:
        shown = shown[:limit - 3] + '...'
    return shown


def event(data, secrets=()):
    """A progress event from an event line's JSON (bytes): ``{'host',
    'task', 'status', 'play', 'message'}`` (``'ignored': True`` added
    for a failure Ansible ignores) and ``{'task_number', 'address'}``
    (the host's address in the inventory), or (None, None) when it is
    not one."""
    try:
        found = json.loads(data)
    except ValueError:
        return None, None
    if not isinstance(found, dict) or found.get('status') not in STATUSES:
        return None, None
    shaped = {key: mask(found.get(key) or '', secrets, NAME_LIMIT)
              for key in ('host', 'task', 'play')}
    shaped['status'] = found['status']
    shaped['message'] = mask(found.get('message') or '', secrets)
    if found.get('ignored') is True and found['status'] == 'failed':
        shaped['ignored'] = True
    number = found.get('task_number')
    address = found.get('address')
    return shaped, {
        'task_number': number if isinstance(number, int) else None,
        'address': address[:NAME_LIMIT] if isinstance(address, str)
        else None}


def stats(data):
    """``{host: {ok, changed, failed, unreachable, skipped}}`` from the
    stats line's JSON (bytes); None when it is not one."""
    try:
        found = json.loads(data)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    out = {}
    for host, counts in list(found.items())[:HOSTS_LIMIT]:
        if isinstance(counts, dict):
            out[str(host)[:NAME_LIMIT]] = {
                ours: _count(counts.get(theirs))
                for ours, theirs in COUNTS.items()}
    return out


def _count(value):
    return value if isinstance(value, int) and value >= 0 else 0


class Tally:
    """What a run's events add up to: counts per host (Ansible's own
    from the stats line when it came), tasks that ran or were skipped
    everywhere, failures (the first ``FAILURES_LIMIT``)."""

    def __init__(self):
        self.hosts = {}
        self.failures = []
        self.failures_dropped = 0
        self.stats = None
        # failure's index -> its host's address
        self.addresses = {}
        # task number -> whether it ran on some host
        self._tasks = {}

    def add(self, shaped, about=None):
        """Count one event (``event``'s pair)."""
        about = about or {}
        number = about.get('task_number')
        host = shaped['host']
        if host in self.hosts or len(self.hosts) < HOSTS_LIMIT:
            counts = self.hosts.setdefault(host, dict.fromkeys(COUNTS, 0))
            status = shaped['status']
            if status == 'changed':
                counts['ok'] += 1
            if not shaped.get('ignored'):
                counts[status] += 1
        if number is not None:
            ran = shaped['status'] != 'skipped'
            self._tasks[number] = self._tasks.get(number, False) or ran
        if shaped['status'] in ('failed', 'unreachable') and \
                not shaped.get('ignored'):
            if len(self.failures) < FAILURES_LIMIT:
                self.failures.append({
                    'host': host, 'task': shaped['task'],
                    'status': shaped['status'],
                    'message': shaped['message']})
                self.addresses[len(self.failures) - 1] = about.get(
                    'address')
            else:
                self.failures_dropped += 1

    def explain(self, attempts):
        """Add to an unreachable host's message why the egress proxy
        could not connect to its address (``{(address, port): why}``):
        ssh does not show its ProxyCommand's words."""
        for index, failure in enumerate(self.failures):
            address = self.addresses.get(index)
            why = sorted(w for (a, _), w in attempts.items()
                         if w and a == address)
            if failure['status'] == 'unreachable' and why:
                failure['message'] = mask('%s (%s)' % (
                    failure['message'] or 'unreachable', '; '.join(why)))

    def counts(self):
        """``{host: counts}``: Ansible's when its stats line came."""
        return self.stats if self.stats is not None else self.hosts

    def tasks(self):
        ran = sum(1 for r in self._tasks.values() if r)
        return {'ran': ran, 'skipped': len(self._tasks) - ran}

    def failed(self):
        """True when a host failed or was unreachable."""
        return bool(self.failures) or any(
            c['failed'] or c['unreachable'] for c in self.counts().values())
