"""Users, roles, domains and the catalog of the loopback Keystone, as its
admin: what Keystone's start (basics()) and each service's start in
Keystone mode (service_user(), register(), heat_domain()) make, all
idempotent."""

from __future__ import annotations

from . import keystone


def find(kind: str, name: str, query: str = '') -> dict | None:
    """The one ``kind`` (users, projects, roles, domains, services) named
    ``name``."""
    found = keystone.admin('GET', '/%s?name=%s%s' % (kind, name, query))[kind]
    return found[0] if found else None


def ensure(kind: str, name: str, fields: dict | None = None,
           query: str = '') -> str:
    """The id of ``kind`` ``name``, created (with ``fields``) if absent."""
    found = find(kind, name, query)
    if found:
        return found['id']
    entity = dict(fields or {}, name=name)
    return keystone.admin('POST', '/' + kind,
                          {kind[:-1]: entity})[kind[:-1]]['id']


def grant(role: str, user_id: str, project_id: str = '',
          domain_id: str = '') -> None:
    role_id = ensure('roles', role)
    target = ('projects/%s' % project_id if project_id
              else 'domains/%s' % domain_id)
    keystone.admin('PUT', '/%s/users/%s/roles/%s' % (
        target, user_id, role_id))


def ensure_user(name: str, domain_id: str = 'default') -> str:
    """The id of user ``name`` with keystone.service_password(name),
    created, or its password changed when it has another (a state
    directory of the old fixed passwords)."""
    password = keystone.service_password(name)
    user_id = ensure('users', name, {'domain_id': domain_id,
                                     'password': password},
                     query='&domain_id=%s' % domain_id)
    status, _, _ = keystone.call('POST', '/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'id': user_id, 'password': password}}}}})
    if status == 401:
        keystone.admin('PATCH', '/users/%s' % user_id, {'user': {
            'password': password}})
    return user_id


def service_user(name: str) -> str:
    """The service user ``name`` (idempotent): roles admin and service on
    the project service, as a devstack cloud gives them."""
    user_id = ensure_user(name)
    project_id = ensure('projects', keystone.SERVICE_PROJECT, {
        'domain_id': 'default'}, query='&domain_id=default')
    for role in ('admin', 'service'):
        grant(role, user_id, project_id=project_id)
    return user_id


def register(kind: str, name: str, address: str) -> None:
    """Service ``kind`` in the catalog with ``address`` as its public,
    internal and admin endpoint in RegionOne (changed ones replaced)."""
    service_id = ensure('services', name, {'type': kind, 'enabled': True})
    endpoints = keystone.admin(
        'GET', '/endpoints?service_id=%s' % service_id)['endpoints']
    have = {e['interface']: e for e in endpoints}
    for interface in ('public', 'internal', 'admin'):
        current = have.pop(interface, None)
        if current and current['url'] == address:
            continue
        if current:
            keystone.admin('DELETE', '/endpoints/%s' % current['id'])
        keystone.admin('POST', '/endpoints', {'endpoint': {
            'service_id': service_id, 'interface': interface,
            'url': address, 'region_id': keystone.REGION, 'enabled': True}})
    for extra in have.values():
        keystone.admin('DELETE', '/endpoints/%s' % extra['id'])


def basics() -> None:
    """What every other service relies on."""
    ensure('projects', keystone.SERVICE_PROJECT, {'domain_id': 'default'},
           query='&domain_id=default')
    ensure('roles', 'service')
    # the role Heat gives the users it makes for stacks
    ensure('roles', 'heat_stack_user')


def heat_domain() -> None:
    """Heat's stack user domain and its admin (as Heat starts, with the
    password its configuration gives)."""
    domain_id = ensure('domains', keystone.HEAT_DOMAIN, {
        'description': 'Users Heat creates for stacks'})
    grant('admin', ensure_user(keystone.HEAT_DOMAIN_ADMIN, domain_id),
          domain_id=domain_id)
