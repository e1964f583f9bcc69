"""Objects asked for one by one with HEAD: what every replica of an
object answers for, whatever a lagging container listing says (a
container replica that missed updates while a node was down).

A mixin of ``store.PlanStore``: it goes through the store's one door to
Swift (``swift_door``).
"""

import datetime

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import swift_door


def _listed_time(stamp):
    """Swift's ``X-Timestamp`` (seconds since 1970, 5 decimals, maybe an
    offset after ``_``) as its listings write a time: UTC, microseconds."""
    try:
        whole, _, frac = stamp.split('_')[0].partition('.')
        when = datetime.datetime.fromtimestamp(int(whole),
                                               datetime.timezone.utc)
    except (AttributeError, ValueError, OverflowError, OSError):
        return ''
    return '%s.%s' % (when.strftime('%Y-%m-%dT%H:%M:%S'),
                      (frac + '000000')[:6])


class Heads(object):
    """Listing entries and MD5s of named objects, by HEAD."""

    def entries(self, plan, names):
        """``{name: listing entry or None}``: objects as a listing shows
        them (name, hash, bytes, last_modified), each read by HEAD, so that
        a container replica behind cannot hide them; None: no object."""
        def entry(name):
            try:
                headers = self._swift('head_object', plan, name)
            except swift_door.client_exception() as exc:
                if self._status(exc) == 404:
                    return name, None
                raise exceptions.CommandError(
                    'Cannot read %s of plan %s: %s' % (name, plan, exc))
            return name, {'name': name,
                          'hash': headers.get('etag', '').strip('"'),
                          'bytes': int(headers.get('content-length') or 0),
                          'last_modified': _listed_time(
                              headers.get('x-timestamp'))}

        return dict(self.map(entry, self._checked(plan, sorted(set(names)))))

    def newest_md5s(self, plan, names):
        """``{name: MD5 or None}`` of objects, each asked of every replica
        (``X-Newest``): what was just written, whatever a lagging
        container listing says."""
        def md5(name):
            try:
                headers = self._swift('head_object', plan, name,
                                      headers={'X-Newest': 'true'})
            except swift_door.client_exception() as exc:
                if self._status(exc) == 404:
                    return name, None
                raise exceptions.CommandError(
                    'Cannot read %s of plan %s: %s' % (name, plan, exc))
            return name, headers.get('etag', '').strip('"') or None

        return dict(self.map(md5, self._checked(plan, sorted(set(names)))))
