"""A project member's look at Swift while a command runs: a thread that
lists every container of the project's account, round after round, and
reads (GET: body and headers) every object of each listing, noting where
a secret shows.

An object is read again whenever its listing entry changes (hash or
time): an unchanged entry is the same bytes. A secret that lives in the
account for longer than one round is seen; the test reports the rounds
and the objects read, so that a silent watcher cannot pass for a blind
one.
"""

import json
import threading
import urllib.parse


class AccountWatcher(threading.Thread):
    """Reads the whole account of ``swift`` (``base.Swift``) until
    ``stop()``; ``found``: ``container/object`` where ``secret`` showed;
    ``rounds``, ``objects_read``, ``errors``."""

    def __init__(self, swift, secret):
        super().__init__(name='account-watcher', daemon=True)
        self.swift = swift
        self.secret = secret.encode()
        self.found = []
        self.errors = []
        self.rounds = 0
        self.objects_read = 0
        self._read = set()
        self._ending = threading.Event()

    def stop(self, timeout=120):
        """Ends after one more full round; waits for it."""
        self._ending.set()
        self.join(timeout)

    def run(self):
        while True:
            last = self._ending.is_set()
            try:
                self.look()
            except Exception as exc:    # reported by the test
                self.errors.append(repr(exc))
            self.rounds += 1
            if last:
                return

    def _pages(self, path):
        marker = ''
        while True:
            sep = '&' if '?' in path else '?'
            status, _, body = self.swift.request(
                'GET', '%s%sformat=json&marker=%s' % (
                    path, sep, urllib.parse.quote(marker)))
            if status in (204, 404):
                return
            if status != 200:
                raise AssertionError('GET %s: %s' % (path, status))
            page = json.loads(body)
            if not page:
                return
            yield from page
            marker = page[-1]['name']

    def look(self):
        for container in list(self._pages('')):
            name = urllib.parse.quote(container['name'])
            for obj in list(self._pages(name)):
                key = (container['name'], obj['name'], obj.get('hash'),
                       obj.get('last_modified'))
                if key in self._read:
                    continue
                status, headers, body = self.swift.request(
                    'GET', '%s/%s' % (name, urllib.parse.quote(obj['name'])))
                if status != 200:
                    continue        # gone meanwhile: read at its next entry
                self._read.add(key)
                self.objects_read += 1
                if self.secret in body or self.secret in json.dumps(
                        headers).encode():
                    self.found.append('%s/%s' % key[:2])
