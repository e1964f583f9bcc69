"""Node discovery: probe addresses for Redfish BMCs, then register what
answered (``register``: created or updated, managed) with the first
credentials the BMC took.

Redfish only: the BMC's own answer to ``GET /redfish/v1/Systems`` says
whether it is there (401 without credentials, or 200) and which
credentials it takes (200 with them), and lists its systems, with no
tool on the executor. An IPMI presence ping (RMCP, UDP 623) would only say
a BMC is there, not which credentials work (that needs an IPMI session:
tripleoclient ran ipmitool per address and credential), and a node
registered with credentials nobody checked fails Ironic's verification
later.

Bounded: at most MAX_PROBES address and port pairs a request,
``PARALLEL`` at once, ``TIMEOUT`` seconds each (connect and answer),
``MAX_ANSWER`` bytes read of an answer, MAX_CREDENTIALS tried on a BMC
that answered: at worst 8 rounds of probes and 4 credential checks, ~36
s, within the 45 s the client gives the action (Mistral answers a
synchronous call within its rpc_response_timeout, 60 s by default).

Passwords never leave this module but in the register path's entries
(``Entry.secrets``): no row, no error text, no log line holds one.
"""

import concurrent.futures
import ipaddress
import json

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking

# A /22: the largest range a request may probe (with one port)
MAX_PROBES = 1024
MAX_PORTS = 8
MAX_CREDENTIALS = 4
PARALLEL = 128
TIMEOUT = 3.0
MAX_ANSWER = 256 * 1024
MAX_SYSTEMS = 64
SYSTEMS = '/redfish/v1/Systems'
# 443 speaks TLS; a BMC's certificate is its own (self-signed): the probe
# does not check it (Ironic does, by its redfish_verify_ca, once
# registered)
TLS_PORT = 443


def _bad(why):
    return exceptions.CommandError(
        'Bad node_discover request: %s. Nothing was probed or registered.'
        % why)


def check(addresses, ports, credentials):
    """``(addresses, ports, [(user, password)])`` of a request, checked:
    IP addresses, ports 1..65535, non-empty users; CommandError naming
    what is wrong (never a password)."""
    if not isinstance(addresses, list) or not addresses:
        raise _bad('addresses must be a non-empty list of IP addresses')
    try:
        found = [str(ipaddress.ip_address(a)) for a in addresses]
    except (TypeError, ValueError):
        raise _bad('addresses must be IP addresses')
    ports = [TLS_PORT] if ports is None else ports
    if not isinstance(ports, list) or not 0 < len(ports) <= MAX_PORTS or \
            not all(isinstance(p, int) and not isinstance(p, bool) and
                    0 < p < 65536 for p in ports):
        raise _bad('ports must list 1 to %d port numbers' % MAX_PORTS)
    if len(found) * len(ports) > MAX_PROBES:
        raise _bad('%d addresses on %d ports: more than %d probes; probe a '
                   'smaller range (a /22 on one port at most)' % (
                       len(found), len(ports), MAX_PROBES))
    if not isinstance(credentials, list) or not 0 < len(
            credentials) <= MAX_CREDENTIALS or not all(
            isinstance(c, list) and len(c) == 2 and all(
                isinstance(x, str) and 0 < len(x) <= 255 for x in c)
            for c in credentials):
        raise _bad('credentials must list 1 to %d [user, password] pairs '
                   'of text' % MAX_CREDENTIALS)
    return list(dict.fromkeys(found)), list(dict.fromkeys(ports)), [
        tuple(c) for c in credentials]


def url(address, port):
    host = '[%s]' % address if ':' in address else address
    return '%s://%s:%d' % ('https' if port == TLS_PORT else 'http', host,
                           port)


def _session():
    import requests
    import urllib3

    session = requests.Session()
    # no proxy from the executor's environment: the BMCs are on its own
    # network
    session.trust_env = False
    session.verify = False
    # the probe does not check a BMC's (self-signed) certificate: said
    # once in the module docstring, not per address in the log
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    return session


def _get(session, target, credential=None, timeout=TIMEOUT):
    """``(status, JSON body or None)``; (None, None) when nothing
    answered."""
    import requests

    try:
        with session.get(target + SYSTEMS, auth=credential, stream=True,
                         allow_redirects=False, timeout=timeout,
                         headers={'Accept': 'application/json'}) as resp:
            data = resp.raw.read(MAX_ANSWER + 1, decode_content=True)
            status = resp.status_code
    except (requests.RequestException, OSError, ValueError):
        return None, None
    if status != 200 or len(data) > MAX_ANSWER:
        return status, None
    try:
        return status, json.loads(data)
    except ValueError:
        return status, None


def _systems(body):
    members = body.get('Members') if isinstance(body, dict) else None
    if not isinstance(members, list):
        return None
    found = [m.get('@odata.id') for m in members[:MAX_SYSTEMS]
             if isinstance(m, dict)]
    return [s for s in found if isinstance(s, str) and s.startswith(
        SYSTEMS + '/') and len(s) <= 255]


def probe(target, credentials, session=None, timeout=TIMEOUT):
    """What the BMC at ``target`` (scheme://host:port) says:
    ``{'credential': index or None, 'systems': [...], 'error'}``, or None
    when nothing Redfish answered."""
    session = session or _session()
    status, body = _get(session, target, timeout=timeout)
    if status not in (200, 401, 403):
        return None
    if status == 200 and _systems(body) is None:
        return None             # a web server, not a Redfish service
    for index, credential in enumerate(credentials):
        status, body = _get(session, target, credential, timeout)
        systems = _systems(body) if status == 200 else None
        if systems:
            return {'credential': index, 'systems': systems, 'error': None}
    return {'credential': None, 'systems': [],
            'error': 'a Redfish BMC that took none of the %d credentials'
                     % len(credentials)}


def discover(addresses, ports, credentials, register,
             parallel=PARALLEL, timeout=TIMEOUT):
    """Probe each address on each port (at most ``parallel`` at once),
    then ``register(entries)`` (the register path: its rows) for every
    system found. One row per BMC that answered and per system found:
    ``address, port, system, name, uuid, provision_state, status,
    error``; and how many probes were made."""
    addresses, ports, credentials = check(addresses, ports, credentials)
    session = _session()
    targets = [(a, p) for a in addresses for p in ports]
    with concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, min(parallel, len(targets)))) as pool:
        answers = list(pool.map(lambda t: probe(
            url(*t), credentials, session, timeout), targets))
    rows, entries = [], []
    for (address, port), answer in zip(targets, answers):
        if answer is None:
            continue
        base = {'address': address, 'port': port, 'system': None,
                'name': None, 'uuid': None, 'provision_state': None,
                'status': 'FAILED', 'error': answer['error']}
        if answer['credential'] is None:
            rows.append(base)
            continue
        user, password = credentials[answer['credential']]
        for system in answer['systems']:
            rows.append(dict(base, system=system, error=None))
            entries.append({'pm_type': 'redfish',
                            'pm_addr': url(address, port),
                            'pm_user': user, 'pm_password': password,
                            'pm_system_id': system})
    registered = iter(register(entries) if entries else [])
    secrets = [c[1] for c in credentials]
    for row in rows:
        if row['system'] is None:
            continue
        done = next(registered)
        state = done.get('provision_state')
        # still verifying its BMC when the registration answered: Ironic
        # goes on (``register``)
        status = 'FAILED' if done['action'] == 'failed' else \
            'IN_PROGRESS' if state == 'verifying' else 'SUCCESS'
        row.update(name=done.get('name'), uuid=done.get('uuid'),
                   provision_state=state, status=status,
                   error=masking.scrub(done['error'], secrets)
                   if done.get('error') else None)
    return {'nodes': rows, 'probed': len(targets),
            'failed': sum(r['status'] == 'FAILED' for r in rows)}
