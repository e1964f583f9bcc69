"""The Swift side of a triggered deployment: its signal object.

The server answers a deployment by PUTting its outputs (JSON) to a Swift
temp URL, as heat-config-notify does for ``TEMP_URL_SIGNAL``. The URL's
signature lets anyone holding it write that object: it is a secret, shown
only without its query and redacted from every log line, like the
password a HEAT_SIGNAL config carries.
"""

import contextlib
import json
import logging
import re
import secrets
import time
from urllib import parse
import uuid

from tripleoplanclient.common import exceptions

LOG = logging.getLogger(__name__)

CONTAINER = 'software-deployment-signals'
# What follows ``<endpoint>/<CONTAINER>/`` in a URL create() makes: the
# uuid4 hex name and generate_temp_url's query (a hex HMAC of sha1, sha256
# or sha512, then a Unix time). re.ASCII: no other script's digits.
_SIGNAL_TAIL = re.compile(
    r'(?P<name>[0-9a-f]{32})\?temp_url_sig=(?:[0-9a-f]{40}|[0-9a-f]{64}|'
    r'[0-9a-f]{128})&temp_url_expires=[0-9]+', re.ASCII)
KEY_HEADER = 'X-Account-Meta-Temp-URL-Key'
REDACTED = '<redacted>'

# A signature in a URL, and a temp-URL key in a logged header (keystoneauth
# writes headers as -H "Name: value", responses as 'name': 'value').
_SECRET = re.compile(
    r'(?P<sig>temp_url_sig=)[^&\s"\'<>]+'
    r'|(?P<key>[xX]-(?:[aA]ccount|[cC]ontainer)-[mM]eta-[tT]emp-[uU][rR][lL]-'
    r'[kK]ey(?:-2)?["\']?\s*[:=]\s*["\']?)[^"\'\s,}]+')


# HEAT_SIGNAL's password: the value of a deploy_password input of a
# derived config (JSON or a Python repr; Heat's passwords hold no quotes
# or braces).
_PASSWORD_INPUT = re.compile(r'\{[^{}]*[\'"]deploy_password[\'"][^{}]*\}')
_INPUT_VALUE = re.compile(
    r'(?P<key>[\'"]value[\'"]\s*:\s*)(?P<q>[\'"])(?:(?!(?P=q))[^\\]|\\.)*'
    r'(?P=q)')


def _redact_password(match):
    return _INPUT_VALUE.sub(
        lambda m: m.group('key') + m.group('q') + REDACTED + m.group('q'),
        match.group(0))


def redact(text):
    """``text`` with temp-URL signatures and keys, and HEAT_SIGNAL
    passwords, replaced."""
    text = _PASSWORD_INPUT.sub(_redact_password, text)
    return _SECRET.sub(lambda m: (m.group('sig') or m.group('key'))
                       + REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites log records that would carry a signal's secret.

    keystoneauth logs request and response bodies with --debug, and the
    derived config holds the signal URL or the HEAT_SIGNAL password: the
    filter sits on the handlers, where every propagated record passes.
    """

    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:       # a broken record: leave it to logging
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def redact_logs(root=None):
    """Put a RedactSecrets filter on every handler of the root logger."""
    root = root or logging.getLogger()
    for handler in root.handlers:
        if not any(isinstance(f, RedactSecrets) for f in handler.filters):
            handler.addFilter(RedactSecrets())


def public_url(url):
    """The signal URL as it may be shown: no query or fragment (where the
    signature is), no user info, and any stray signature redacted.

    Takes whatever a deployment's config holds, so it parses nothing.
    """
    if not url:
        return url
    if not isinstance(url, str):
        return '<a %s>' % type(url).__name__
    shown = re.split(r'[?#]', url, maxsplit=1)[0]
    shown = re.sub(r'^([^:/?#]*://)[^/]*@', r'\1', shown)
    # Control characters could forge lines of the output they land in
    shown = re.sub(r'[\x00-\x1f\x7f]',
                   lambda m: '\\x%02x' % ord(m.group()), shown)
    return redact(shown)


def _status(exc):
    return getattr(exc, 'http_status', None)


class SignalStore:
    """Signal objects in the account of the client's Swift endpoint.

    :param swift: a callable returning a swiftclient Connection (built only
        when a signal is needed)
    :param storage_url: the object-store endpoint, ``.../v1/AUTH_<account>``
    """

    def __init__(self, swift, storage_url, clock=time.time):
        self._swift = swift
        self._storage_url = (storage_url or '').rstrip('/')
        self._clock = clock

    def _key(self, conn):
        """The account's temp-URL key, set first when the account has none.

        Two triggers may set one at once: read it back, so both sign with
        the key that stuck.
        """
        key = self._read_key(conn)
        if key:
            return key
        conn.post_account({KEY_HEADER: secrets.token_hex(32)})
        key = self._read_key(conn)
        if not key:
            raise exceptions.CommandError(
                'Swift keeps no temp-URL key for account %s (it shows '
                'X-Account-Meta-Temp-URL-Key only to an owner): give the '
                'account a key, or use --signal-transport NO_SIGNAL.'
                % self._storage_url.rsplit('/', 1)[-1])
        return key

    @staticmethod
    def _read_key(conn):
        headers = conn.head_account()
        return headers.get(KEY_HEADER.lower())

    def create(self, timeout):
        """An empty signal object and its PUT temp URL, valid ``timeout`` s.

        Heat's own signal reader takes an empty object for "no answer yet".
        """
        from swiftclient import utils as swift_utils
        conn = self._swift()
        key = self._key(conn)
        name = uuid.uuid4().hex
        conn.put_container(CONTAINER)
        conn.put_object(CONTAINER, name, contents=b'',
                        content_type='application/json')
        origin, folder = self._where()
        try:
            signed = swift_utils.generate_temp_url(
                folder + name,
                int(self._clock() + max(timeout, 1)), key, 'PUT',
                absolute=True)
        except Exception:
            # The signing error is the one to report; no object stays behind
            with contextlib.suppress(Exception):
                conn.delete_object(CONTAINER, name)
            raise
        return origin + signed

    def _where(self):
        """``(scheme://host:port, /v1/AUTH_x/<CONTAINER>/)``: where every
        signal URL points."""
        base = parse.urlsplit(self._storage_url)
        return ('%s://%s' % (base.scheme, base.netloc),
                '%s/%s/' % (base.path, CONTAINER))

    def location(self, url, deployment):
        """``(container, object)`` of a signal URL create() could have made.

        Only our endpoint, account and container, a uuid4 hex name and the
        temp-URL query, matched as a whole string: anything else (another
        host or account, dot segments, encoded slashes, extra segments)
        could make watch read, and cancel delete, an object that is no
        signal. None when the client has no object-store endpoint: then
        nothing is followed at all.
        """
        if not self._storage_url:
            return None
        own = ''.join(self._where())
        found = None
        if isinstance(url, str) and url.startswith(own):
            found = _SIGNAL_TAIL.fullmatch(url, len(own))
        if found is None:
            raise exceptions.CommandError(
                'Deployment %s: its signal URL %s is not one "openstack '
                'software deployment trigger" makes for the Swift endpoint '
                'this client uses (%s<32 hex digits>?temp_url_sig=...): '
                'nothing was read or deleted. Watch or cancel it with the '
                'credentials and endpoint (--os-interface, --os-region-name) '
                'of the project that triggered it.'
                % (deployment, public_url(url), own))
        return CONTAINER, found.group('name')

    def read(self, url, deployment):
        """The server's answer: a dict, or None while there is none.

        Raises CommandError for a URL :meth:`location` refuses, ValueError
        when the object holds something other than a JSON object.
        """
        where = self.location(url, deployment)
        if where is None:
            return None
        try:
            _, body = self._swift().get_object(*where)
        except Exception as exc:
            if _status(exc) == 404:
                return None
            raise
        if not body or not body.strip():
            return None
        details = json.loads(body)
        if not isinstance(details, dict):
            raise ValueError('a JSON %s, not an object'
                             % type(details).__name__)
        return details

    def drop(self, url, deployment):
        """Delete the signal object; True when there was one to delete.

        Raises CommandError for a URL :meth:`location` refuses.
        """
        where = self.location(url, deployment)
        if where is None:
            return False
        try:
            self._swift().delete_object(*where)
        except Exception as exc:
            if _status(exc) == 404:
                return False
            raise
        return True
