"""The Swift side of a triggered deployment: its signal object.

The server answers a deployment by PUTting its outputs (JSON) to a Swift
temp URL, as heat-config-notify does for ``TEMP_URL_SIGNAL``. The URL's
signature lets anyone holding it write that object: it is a secret, shown
only without its query and redacted from every log line.
"""

import json
import logging
import re
import secrets
import time
import uuid
from urllib import parse

from tripleoplanclient.common import exceptions

LOG = logging.getLogger(__name__)

CONTAINER = 'software-deployment-signals'
KEY_HEADER = 'X-Account-Meta-Temp-URL-Key'
REDACTED = '<redacted>'

# A signature in a URL, and a temp-URL key in a logged header (keystoneauth
# writes headers as -H "Name: value", responses as 'name': 'value').
_SECRET = re.compile(
    r'(?P<sig>temp_url_sig=)[^&\s"\'<>]+'
    r'|(?P<key>[xX]-(?:[aA]ccount|[cC]ontainer)-[mM]eta-[tT]emp-[uU][rR][lL]-'
    r'[kK]ey(?:-2)?["\']?\s*[:=]\s*["\']?)[^"\'\s,}]+')


def redact(text):
    """``text`` with temp-URL signatures and keys replaced."""
    return _SECRET.sub(lambda m: (m.group('sig') or m.group('key'))
                       + REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites log records that would carry a temp-URL secret.

    keystoneauth logs request and response bodies with --debug, and the
    derived config holds the signal URL: the filter sits on the handlers,
    where every propagated record passes.
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
    """The signal URL without its query (the signature)."""
    if not url:
        return url
    parts = parse.urlsplit(url)
    return parse.urlunsplit(parts[:3] + ('', ''))


def _status(exc):
    return getattr(exc, 'http_status', None)


class SignalStore(object):
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
        path = '%s/%s/%s' % (parse.urlsplit(self._storage_url).path,
                             CONTAINER, name)
        signed = swift_utils.generate_temp_url(
            path, int(self._clock() + max(timeout, 1)), key, 'PUT',
            absolute=True)
        base = parse.urlsplit(self._storage_url)
        return '%s://%s%s' % (base.scheme, base.netloc, signed)

    def location(self, url):
        """``(container, object)`` when ``url`` lies in our account."""
        if not url or not self._storage_url:
            return None
        path = parse.urlsplit(url).path
        account = parse.urlsplit(self._storage_url).path.rstrip('/') + '/'
        if not path.startswith(account):
            return None
        container, _, name = path[len(account):].partition('/')
        if not container or not name:
            return None
        return container, parse.unquote(name)

    def read(self, url):
        """The server's answer: a dict, or None while there is none.

        Raises ValueError when the object holds something other than a
        JSON object.
        """
        where = self.location(url)
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

    def drop(self, url):
        """Delete the signal object; True when there was one to delete."""
        where = self.location(url)
        if where is None:
            return False
        try:
            self._swift().delete_object(*where)
        except Exception as exc:
            if _status(exc) == 404:
                return False
            raise
        return True
