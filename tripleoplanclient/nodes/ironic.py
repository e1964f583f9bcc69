"""Ironic's REST API, as our node actions call it.

One small client rather than python-ironicclient: the actions need a
dozen calls, a fixed microversion and a count of requests (the node
benchmark compares it with the naive way). Every call goes through a
keystoneauth session (the caller's token, or a trust's), to the one
endpoint ``mistral.endpoints`` chose.

Ironic's built-in server queues few connections: ``each`` keeps at most
``PARALLEL`` requests in flight.
"""

import concurrent.futures
import datetime
import json
import threading

from tripleoplanclient.common import exceptions

# 1.84: POST /v1/continue_inspection; 1.89: the newest Ironic 39 node
# fields. Without a version Ironic answers as 1.1 (new nodes available).
API_VERSION = '1.89'
PARALLEL = 5
# Node fields our listings ask for (``nodes``): a page of hundreds of
# nodes stays small
SUMMARY = ('uuid', 'name', 'provision_state', 'power_state', 'last_error',
           'maintenance', 'properties', 'instance_uuid', 'driver',
           'resource_class', 'extra')


class IronicError(exceptions.CommandError):
    """Ironic refused a request: ``status`` and Ironic's own message."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def _fault(resp):
    """Ironic's message out of an error answer (``error_message`` holds
    JSON text with a ``faultstring``)."""
    try:
        body = resp.json()
    except ValueError:
        return (resp.text or '').strip()[:500] or resp.reason
    text = body.get('error_message', body) if isinstance(body, dict) \
        else body
    if isinstance(text, str):
        try:
            text = json.loads(text)
        except ValueError:
            return text[:500]
    if isinstance(text, dict):
        return str(text.get('faultstring') or text)[:500]
    return str(text)[:500]


class Ironic:
    """Ironic at ``url`` (unversioned, as in the catalog) on ``session``
    (a keystoneauth session).

    ``requests`` counts the HTTP requests sent.
    """

    def __init__(self, session, url, parallel=PARALLEL):
        self._session = session
        self.url = url.rstrip('/')
        self.parallel = parallel
        self.requests = 0
        self._lock = threading.Lock()

    def call(self, method, path, body=None, ok=(200, 201, 202, 204)):
        """One request to ``/v1<path>``: its JSON answer (None when
        empty); IronicError when the status is not in ``ok``."""
        with self._lock:
            self.requests += 1
        headers = {'X-OpenStack-Ironic-API-Version': API_VERSION,
                   'Accept': 'application/json'}
        kwargs = {'headers': headers, 'raise_exc': False}
        if body is not None:
            kwargs['json'] = body
        try:
            resp = self._session.request(self.url + '/v1' + path, method,
                                         **kwargs)
        except Exception as exc:
            if exceptions.unreachable(exc):
                raise IronicError('Ironic is unreachable at %s (%s).'
                                  % (self.url, type(exc).__name__))
            raise
        if resp.status_code not in ok:
            raise IronicError('Ironic answered %s %s with %d: %s' % (
                method, path.split('?')[0], resp.status_code, _fault(resp)),
                status=resp.status_code)
        return resp.json() if resp.content else None

    def _pages(self, path, key):
        """Every item of a listing, following Ironic's ``next`` links."""
        found = []
        while path:
            page = self.call('GET', path)
            found.extend(page.get(key) or [])
            following = page.get('next')
            path = following.split('/v1', 1)[1] if following else None
        return found

    def nodes(self, fields=SUMMARY, **filters):
        """Every node the caller may see (``filters``: Ironic's query
        parameters, e.g. provision_state), with ``fields``."""
        query = ['fields=%s' % ','.join(fields), 'limit=1000']
        query.extend('%s=%s' % kv for kv in sorted(filters.items()))
        return self._pages('/nodes?' + '&'.join(query), 'nodes')

    def node(self, ident):
        return self.call('GET', '/nodes/%s' % ident)

    def ports(self, **filters):
        """Every port (address, node_uuid, physical_network...)."""
        query = ['detail=True', 'limit=1000']
        query.extend('%s=%s' % kv for kv in sorted(filters.items()))
        return self._pages('/ports?' + '&'.join(query), 'ports')

    def error_event(self, ident, since):
        """The newest ERROR event of the node's history (API 1.78) at or
        after ``since`` (seconds since the epoch): its text, or None."""
        # detail: else Ironic cuts each event's text at 255 characters,
        # and the reason of a chain of hooks' errors comes last
        page = self.call('GET', '/nodes/%s/history?sort_dir=desc&limit=20'
                         '&detail=True' % ident)
        for event in page.get('history') or []:
            try:
                when = datetime.datetime.fromisoformat(
                    event['created_at'].replace('Z', '+00:00'))
            except (KeyError, TypeError, ValueError):
                continue
            if when.tzinfo is None:
                when = when.replace(tzinfo=datetime.timezone.utc)
            if when.timestamp() < since:
                return None         # newest first: the rest is older
            if event.get('severity') == 'ERROR' and event.get('event'):
                return event['event']
        return None

    def create_node(self, body):
        return self.call('POST', '/nodes', body)

    def patch_node(self, ident, operations):
        """JSON patch ``operations`` (``[{op, path, value}]``)."""
        return self.call('PATCH', '/nodes/%s' % ident, operations)

    def delete_node(self, ident):
        self.call('DELETE', '/nodes/%s' % ident)

    def create_port(self, body):
        return self.call('POST', '/ports', body)

    def provision(self, ident, target, **fields):
        """Ask for provision state ``target`` (manage, inspect, provide,
        active, deleted...); Ironic answers at once (202)."""
        self.call('PUT', '/nodes/%s/states/provision' % ident,
                  dict(fields, target=target))

    def power(self, ident, target):
        """``power on`` or ``power off``."""
        self.call('PUT', '/nodes/%s/states/power' % ident,
                  {'target': target})

    def each(self, fn, items):
        """``fn(item)`` for each item, at most ``parallel`` at once:
        ``[(item, result, error)]`` in the items' order (error: the
        exception raised, result None)."""
        items = list(items)
        if not items:
            return []

        def one(item):
            try:
                return item, fn(item), None
            except Exception as exc:
                return item, None, exc

        with concurrent.futures.ThreadPoolExecutor(
                max_workers=max(1, min(self.parallel, len(items)))) as pool:
            return list(pool.map(one, items))
