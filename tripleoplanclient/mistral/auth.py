"""Who an action acts as, and with what credentials.

An action always acts as its caller, the user whose token started the
execution (``context.security``), in that user's project:

- Work done at once (render, preview, the deploy task's reads and its
  Heat call) uses the caller's token as it came. Heat must get the
  caller's own token: it makes its own trust for the stack from it, and a
  trust cannot be made from a trust-scoped token without redelegation.
- Work that outlives the token (the follow task looks at Heat and writes
  the outcome for as long as the stack operation runs) uses a trust that
  the deploy task opens while the token is fresh: from the caller to the
  service user Mistral runs as (its ``[keystone_authtoken]`` options),
  impersonating the caller, in the caller's project, with the caller's
  roles, expiring after the operation's time budget. keystoneauth renews
  the trust-scoped token as often as needed. No token is stored anywhere,
  nor the trust's id: the deploy task publishes it sealed (encrypted and
  authenticated with a key derived from Mistral's service credentials,
  which no caller has) together with its workflow execution, so only the
  follow task of that same execution can open it. That task also checks
  that the trust is its caller's before using it, and deletes it when
  the operation ended.

Identity and endpoints come only from what Keystone validated: Mistral
lets any API caller describe a "target" cloud (``X-Target-Auth-Token``,
``X-Target-Service-Catalog``... headers, ``security.is_target``), whose
user, project and catalog the caller wrote. Such a context is refused.

Without Keystone (Mistral's auth off) there is neither identity nor
trust: the caller's token headers, if any, pass through.
"""

import base64
import datetime
import hashlib
import hmac
import json
import logging
import weakref

from tripleoplanclient.common import exceptions

LOG = logging.getLogger(__name__)

# a trust outlives the stack operation's own timeout by this much
TRUST_MARGIN = datetime.timedelta(hours=1)
_SECTION = 'keystone_authtoken'


class Caller:
    """The identity in an action's context (Keystone's view of the
    caller's token), or an anonymous one without Keystone."""

    def __init__(self, context):
        security = getattr(context, 'security', None)
        if getattr(security, 'is_target', False):
            raise exceptions.CommandError(
                'The tripleoplan actions do not act on a target cloud '
                '(X-Target-* headers): the caller, its project and its '
                'endpoints come only from the token Keystone validated. '
                'Call Mistral without X-Target-* headers.')
        self.token = getattr(security, 'auth_token', None)
        body = _token_body(getattr(security, 'service_catalog', None))
        user = body.get('user') or {}
        project = body.get('project') or {}
        self.user_id = user.get('id')
        self.user = user.get('name') or getattr(security, 'user_name', None)
        self.project_id = project.get('id') or getattr(
            security, 'project_id', None)
        self.project = project.get('name') or getattr(
            security, 'project_name', None)
        self.roles = [r['name'] for r in body.get('roles') or []
                      if r.get('name')]
        self.catalog = body.get('catalog') or (
            body if isinstance(body, list) else [])
        # Keystone validated this token: Mistral runs with auth on
        self.keystone = bool(self.user_id and self.project_id)

    def actor(self):
        """What a recorded step says of who acted; None: not known here."""
        if not self.keystone:
            return None
        return {'user': self.user, 'project': self.project}

    def endpoints(self, service_type):
        """The URLs of ``service_type`` in the caller's catalog, public
        ones first (the client may use any interface)."""
        found = []
        for service in self.catalog:
            if service.get('type') == service_type:
                found.extend(service.get('endpoints', []))
        found.sort(key=lambda e: e.get('interface', 'public') != 'public')
        return [u for u in (e.get('url') or e.get('publicURL')
                            for e in found) if u]


def _token_body(found):
    """The token Keystone described (Mistral keeps it, catalog and all, as
    ``service_catalog``), or a bare catalog (list) from older Mistrals."""
    if isinstance(found, str):
        try:
            found = json.loads(found)
        except ValueError:
            return {}
    if isinstance(found, dict):
        return found.get('token', found)
    if isinstance(found, list):
        return {'catalog': found}
    return {}


def token_session(caller):
    """A keystoneauth session that sends the caller's token as it came."""
    from keystoneauth1 import session
    from keystoneauth1 import token_endpoint
    return session.Session(auth=token_endpoint.Token(
        None, caller.token or 'none'))


def _service_auth(conf=None, **overrides):
    """Mistral's own service user, from its configuration (``conf``:
    default, the configuration Mistral runs with)."""
    from keystoneauth1 import loading
    if conf is None:
        from oslo_config import cfg
        conf = cfg.CONF
    auth = loading.load_auth_from_conf_options(conf, _SECTION, **overrides)
    if auth is None:
        raise exceptions.CommandError(
            'Mistral has no service credentials in [%s]: the tripleoplan '
            'actions need them to follow a stack operation.' % _SECTION)
    return auth


# Mistral's service user signs in once per configuration and process: its
# token serves every trust opened until it expires. id(conf) -> (weak
# reference to conf, session): a ConfigOpts is a mapping, not hashable.
_SERVICE_SESSIONS = {}


def _service_session(conf=None):
    if conf is None:
        from oslo_config import cfg
        conf = cfg.CONF
    ref, sess = _SERVICE_SESSIONS.get(id(conf), (None, None))
    if ref is None or ref() is not conf:
        from keystoneauth1 import session
        sess = session.Session(auth=_service_auth(conf))
        _SERVICE_SESSIONS[id(conf)] = (weakref.ref(conf), sess)
    return sess


def _identity_url(caller):
    urls = caller.endpoints('identity')
    if not urls:
        raise exceptions.CommandError(
            'The caller\'s catalog has no identity endpoint.')
    url = urls[0].rstrip('/')
    return url if url.endswith('/v3') else url + '/v3'


def open_trust(caller, minutes, conf=None):
    """A trust from the caller to Mistral's service user, for ``minutes``
    plus a margin; its id. None without Keystone."""
    if not caller.keystone:
        return None
    from keystoneauth1 import exceptions as ks_exceptions

    expires = (datetime.datetime.now(datetime.timezone.utc) +
               datetime.timedelta(minutes=minutes) + TRUST_MARGIN)
    try:
        trustee = _service_session(conf).get_user_id()
        for attempt in range(3):
            # Keystone refuses a second trust with the same trustor,
            # trustee, project and expiry (409): the expiry tells two
            # deploys of the same second apart
            expires += datetime.timedelta(microseconds=attempt)
            answer = token_session(caller).post(
                _identity_url(caller) + '/OS-TRUST/trusts', json={'trust': {
                    'trustor_user_id': caller.user_id,
                    'trustee_user_id': trustee,
                    'project_id': caller.project_id,
                    'impersonation': True,
                    'roles': [{'name': r} for r in caller.roles],
                    'expires_at': expires.strftime(
                        '%Y-%m-%dT%H:%M:%S.%fZ'),
                }}, raise_exc=False)
            if answer.status_code != 409:
                break
    except ks_exceptions.ClientException as exc:
        answer = exc
    if getattr(answer, 'status_code', 0) != 201:
        raise exceptions.CommandError(
            'Could not open a trust for Mistral to follow the stack '
            'operation of user %s in project %s: %s' % (
                caller.user, caller.project, _problem(answer)))
    return answer.json()['trust']['id']


def _problem(answer):
    """What Keystone said, from a response or an exception."""
    if isinstance(answer, Exception):
        return str(answer)
    try:
        message = answer.json()['error']['message']
    except (ValueError, KeyError, TypeError):
        message = answer.reason
    return 'HTTP %d: %s' % (answer.status_code, message)


def trust_session(caller, trust_id, conf=None):
    """A session on the trust, checked to be the caller's: Keystone made
    its token for the caller (impersonation) in the caller's project."""
    from keystoneauth1 import exceptions as ks_exceptions
    from keystoneauth1 import session

    sess = session.Session(auth=_service_auth(
        conf, trust_id=trust_id, project_id=None, project_name=None,
        project_domain_id=None, project_domain_name=None, domain_id=None,
        domain_name=None))
    try:
        access = sess.auth.get_access(sess)
    except ks_exceptions.ClientException as exc:
        raise exceptions.CommandError(
            'The trust Mistral follows this operation with is no longer '
            'valid (%s); the stack operation goes on in Heat.' % exc)
    if (access.user_id, access.project_id) != (caller.user_id,
                                               caller.project_id):
        raise exceptions.CommandError(
            'Trust %s is not one of this caller\'s: refused.' % trust_id)
    return sess


def close_trust(caller, trust_id, conf=None, session=None):
    """Delete the trust (best effort: it expires anyway), with
    ``session``, the trust_session() already at hand, if given."""
    if not trust_id or not caller.keystone:
        return
    from keystoneauth1 import exceptions as ks_exceptions
    try:
        sess = session or trust_session(caller, trust_id, conf)
        sess.delete(_identity_url(caller) + '/OS-TRUST/trusts/' + trust_id,
                    raise_exc=True)
    except (ks_exceptions.ClientException, exceptions.CommandError) as exc:
        LOG.info('trust %s left to expire: %s', trust_id, exc)


# What a sealed trust says, besides the trust: whose it is and which
# workflow execution opened it.
_SEAL_INFO = b'tripleoplan trust seal 1'


def _seal_key(conf=None, info=_SEAL_INFO):
    """A Fernet key only Mistral's side can make: derived from its service
    user's secret (password or application credential), one per use
    (``info``)."""
    from oslo_config import cfg
    if conf is None:
        conf = cfg.CONF
    _service_auth(conf)         # registers the auth plugin's options
    secret = None
    for option in ('password', 'application_credential_secret'):
        try:
            secret = getattr(conf[_SECTION], option)
        except (cfg.NoSuchOptError, AttributeError):
            continue
        if secret:
            break
    if not secret:
        raise exceptions.CommandError(
            'Mistral\'s [%s] has no password or application credential '
            'secret to seal the follow task\'s trust (or a validation '
            'run\'s secret extra vars) with.' % _SECTION)
    digest = hmac.new(secret.encode('utf-8'), info,
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest)


def seal_trust(caller, trust_id, execution_id, conf=None):
    """``trust_id`` sealed for the follow task of ``execution_id``: what
    the deploy task publishes instead of the id."""
    from cryptography import fernet
    payload = json.dumps({'trust': trust_id, 'execution': execution_id,
                          'user': caller.user_id,
                          'project': caller.project_id})
    return fernet.Fernet(_seal_key(conf)).encrypt(
        payload.encode('utf-8')).decode('ascii')


def unseal_trust(caller, sealed, execution_id, conf=None):
    """The trust id in ``sealed``, when this Mistral sealed it for the
    caller's workflow execution ``execution_id``; CommandError else."""
    from cryptography import fernet
    try:
        found = json.loads(fernet.Fernet(_seal_key(conf)).decrypt(
            sealed.encode('ascii')))
        mine = (found['execution'], found['user'], found['project'])
        trust_id = found['trust']
    except (fernet.InvalidToken, ValueError, TypeError, KeyError,
            AttributeError, UnicodeError):
        raise exceptions.CommandError(
            'The trust handed to the follow task was not sealed by this '
            'Mistral: refused.')
    if not execution_id or mine != (execution_id, caller.user_id,
                                    caller.project_id):
        raise exceptions.CommandError(
            'The trust handed to the follow task belongs to another '
            'workflow execution or caller: refused (only the deploy '
            'workflow that opened it may use it).')
    return trust_id


# What a validation run's sealed secrets say, besides their values: whose
# they are. They open for an hour: a run starts seconds after the seal.
_SECRETS_INFO = b'tripleoplan validation secrets 1'
SECRETS_TTL = 3600


class Sealer:
    """A validation run's secret extra vars, sealed for its caller: the
    client has them sealed by an unsaved run of an action (Mistral keeps
    nothing of it) and starts the run with the seal, so the workflow's
    input Mistral keeps holds none of them readable; the run opens it."""

    def __init__(self, caller, conf=None):
        self.caller, self.conf = caller, conf

    def _fernet(self):
        from cryptography import fernet
        return fernet.Fernet(_seal_key(self.conf, _SECRETS_INFO))

    def seal(self, values):
        payload = json.dumps({'values': values, 'user': self.caller.user_id,
                              'project': self.caller.project_id})
        return self._fernet().encrypt(payload.encode('utf-8')).decode(
            'ascii')

    def unseal(self, sealed):
        """The values sealed for this caller; CommandError else."""
        from cryptography import fernet
        try:
            found = json.loads(self._fernet().decrypt(
                sealed.encode('ascii'), ttl=SECRETS_TTL))
            mine = (found['user'], found['project'])
            values = found['values']
        except (fernet.InvalidToken, ValueError, TypeError, KeyError,
                AttributeError, UnicodeError):
            raise exceptions.CommandError(
                'The secret extra vars of this run were not sealed by this '
                'Mistral, or more than an hour ago: run it again.')
        if mine != (self.caller.user_id, self.caller.project_id) or \
                not isinstance(values, dict):
            raise exceptions.CommandError(
                'The secret extra vars of this run were sealed for another '
                'caller: refused.')
        return values
