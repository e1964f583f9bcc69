"""Swift's bulk middleware: many objects written or deleted per request.

A bulk request answers 200 as soon as Swift starts on it; the real outcome
is in the JSON body, which is read here every time. swiftclient has no
call that returns that body, so requests go through its HTTP connection
with the same URL and token.
"""

import io
import json
import tarfile
from urllib import parse

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

# One extract-archive request carries at most this much; a THT tree
# (1,790 files, 5 MB) goes as four archives written side by side.
MAX_OBJECTS = 1000
MAX_BYTES = 32 * 1024 * 1024
CONCURRENCY = 4
MIN_OBJECTS = 100


def transport_errors():
    import requests
    return (requests.exceptions.RequestException, OSError)


def batches(objects):
    """Split ``{name: bytes}`` into archives within the size limits,
    CONCURRENCY of them at least once there is enough to share (MIN_OBJECTS
    each).
    """
    names = sorted(objects)
    total = sum(len(d) for d in objects.values())
    count = max(-(-len(names) // MAX_OBJECTS), -(-total // MAX_BYTES),
                min(CONCURRENCY, len(names) // MIN_OBJECTS), 1)
    out = [{} for _ in range(count)]
    sizes = [0] * count
    # Largest first onto the lightest archive: even sizes, every archive
    # within MAX_BYTES unless one object alone exceeds it.
    for name in sorted(names, key=lambda n: -len(objects[n])):
        i = sizes.index(min(sizes))
        if len(out[i]) >= MAX_OBJECTS:
            i = min(range(count), key=lambda j: len(out[j]))
        out[i][name] = objects[name]
        sizes[i] += len(objects[name])
    return [b for b in out if b]


def request(conn, method, suffix, body, content_type):
    """One bulk request: ``(status, JSON verdict or None)``.

    ``conn``: a swiftclient Connection; its token is renewed once when
    Swift answers 401 (it expired during a long command).
    """
    # a token that was given (not obtained) cannot be renewed
    renewable = conn.session is not None or bool(conn.authurl)
    for attempt in range(2):
        try:
            if renewable and (attempt or not conn.token):
                if attempt and conn.session is not None:
                    conn.session.invalidate()   # a new token, not the same
                conn.url, conn.token = conn.get_auth()
            _, http = conn.http_connection()
            resp = http.request(
                method, parse.urlparse(conn.url).path + suffix, body,
                {'X-Auth-Token': conn.token, 'Accept': 'application/json',
                 'Content-Type': content_type})
        except transport_errors() as exc:
            raise exceptions.CommandError(
                'Swift is unreachable at %s (%s).' % (conn.url,
                                                      type(exc).__name__))
        if resp.status_code != 401:
            break
        if attempt or not renewable:
            raise exceptions.CommandError(
                'Swift refused the token (HTTP 401) at %s%s: check that '
                'the object-store endpoint belongs to the same cloud as '
                'Keystone.' % (conn.url, ', a new one too' if attempt
                               else ''))
    if resp.status_code >= 300:
        return resp.status_code, None
    try:
        return resp.status_code, json.loads(
            resp.content.decode('utf-8').strip())
    except ValueError:
        return resp.status_code, None


_NO_VERDICT = ', no bulk verdict'


def no_verdict(failed):
    """True when Swift answered without a verdict: no bulk middleware."""
    return all(s.endswith(_NO_VERDICT) for _, s in failed)


def not_allowed(what, plan):
    """Swift's 403: the caller's roles in the project do not allow it."""
    return exceptions.CommandError(
        'Swift refused %s on plan %s (HTTP 403): not allowed with the roles '
        'of these credentials in this project (a reader only reads). Use '
        'credentials with the member role. Nothing was changed.' % (
            what.replace('_', ' '), plan))


def _plain(plan, names):
    """Refuse before any request a name that is no plain object name
    (``plan.container`` checks every name first; this is the last door)."""
    bad = [n for n in names if layout.unsafe_name(n)]
    if bad:
        raise exceptions.CommandError(
            'Plan %s: no request was sent for object name %r: %s.' % (
                plan, bad[0], layout.unsafe_name(bad[0])))


def extract_archive(conn, plan, batch):
    """Upload one archive; returns ``[(name, error)]`` of rejected members."""
    _plain(plan, batch)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) \
            as tar:
        for name, data in batch.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    status_code, result = request(
        conn, 'PUT', '/' + parse.quote(plan) + '?extract-archive=tar',
        buf.getvalue(), 'application/x-tar')
    if status_code == 403 or '403' in str((result or {}).get(
            'Response Status', '')):
        raise not_allowed('the upload', plan)
    if result is None:
        return [(n, 'HTTP %d%s' % (status_code, _NO_VERDICT)) for n in batch]
    failed = [(name, status) for name, status in result.get('Errors', [])]
    status = result.get('Response Status', '')
    if not failed and (not status.startswith('2') or result.get(
            'Number Files Created') != len(batch)):
        failed = [('(bulk request)', ('%s %s' % (
            status, result.get('Response Body', ''))).strip())]
    # Members are named relative to the container in the error list.
    prefix = '/%s/' % plan
    return [(n[len(prefix):] if n.startswith(prefix) else n, s)
            for n, s in failed]


def delete(conn, plan, names):
    """Delete ``names`` in one request; CommandError naming what stayed."""
    _plain(plan, names)
    body = '\n'.join(parse.quote('/%s/%s' % (plan, n)) for n in names)
    status_code, result = request(conn, 'POST', '?bulk-delete',
                                  body.encode('utf-8'), 'text/plain')
    errors = (result or {}).get('Errors') or []
    if status_code == 403 or (errors and all(
            str(status).startswith('403') for _, status in errors)):
        raise not_allowed('the deletion', plan)
    if result is None:
        result = {'Errors': [['(bulk request)', 'HTTP %d' % status_code]]}
    if result.get('Errors'):
        raise exceptions.CommandError(
            'Swift could not delete %d objects of plan %s: %s' % (
                len(result['Errors']), plan,
                '; '.join('%s: %s' % tuple(e)
                          for e in result['Errors'][:10])))
