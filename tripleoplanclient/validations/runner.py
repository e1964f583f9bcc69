"""One validation run by ``ansible-playbook``, as a child process.

The child runs in the bubblewrap sandbox (``sandbox``: its own
namespaces, as nobody, the executor's files out of sight; refused when
bwrap cannot make it), in a process group of its own (stop and timeout
end the whole group: bwrap's end takes its pid namespace with it), in a
scratch directory that is its home, with an environment made from
nothing: no token, password or OS_* variable of
the executor reaches the playbook, only the run's inputs as extra vars
(endpoint URLs, the plan's name and problems) and, to log in to the
servers, the SSH key Mistral's operator configured (bound read-only in
the sandbox; host keys are accepted on first sight into the run's own
known_hosts). The stdout callback in
``callback_plugins`` writes the run's JSON to a file after every task.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from tripleoplanclient.validations import egress
from tripleoplanclient.validations import inventory as inventories
from tripleoplanclient.validations import sandbox
from tripleoplanclient.validations import shipped

MARKER = 'TRIPLEOPLAN_VALIDATION_RUN'
# the relay's port on the sandbox's own loopback (``egress``)
PROXY_PORT = 3128
# seconds between SIGTERM and SIGKILL of the process group
GRACE = 5
_ERR_KEEP = 2000


def ansible_playbook():
    """ansible-playbook beside this Python (Mistral's venv), else on
    PATH; None when ansible-core is not installed."""
    import shutil
    here = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    return here if os.access(here, os.X_OK) else shutil.which(
        'ansible-playbook')


def environment(home, result_file, run_id, proxy_socket):
    """The child's whole environment."""
    here = os.path.dirname(sys.executable)
    proxy = 'http://127.0.0.1:%d' % PROXY_PORT
    return {
        'PATH': os.pathsep.join([here, '/usr/local/bin', '/usr/bin',
                                 '/bin', '/usr/sbin', '/sbin']),
        'HOME': home, 'TMPDIR': home, 'LANG': 'C.UTF-8',
        'ANSIBLE_CONFIG': os.path.join(home, 'ansible.cfg'),
        'ANSIBLE_LOCAL_TEMP': os.path.join(home, 'tmp'),
        'ANSIBLE_REMOTE_TEMP': os.path.join(home, 'tmp'),
        'ANSIBLE_COLLECTIONS_PATH': os.path.join(home, 'collections'),
        'ANSIBLE_CALLBACK_PLUGINS': shipped.CALLBACKS,
        'ANSIBLE_STDOUT_CALLBACK': 'tripleoplan_json',
        'ANSIBLE_RETRY_FILES_ENABLED': 'False',
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_LOCALHOST_WARNING': 'False',
        'ANSIBLE_INVENTORY_UNPARSED_WARNING': 'False',
        # The servers' host keys are new with each deployment and the
        # undercloud keeps no record of them: accepted on first sight,
        # into this run's file (never the executor's), and a key that
        # changes within the run is refused.
        'ANSIBLE_HOST_KEY_CHECKING': 'True',
        'ANSIBLE_SSH_COMMON_ARGS': (
            '-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=%s '
            '-o GlobalKnownHostsFile=/dev/null -o IdentitiesOnly=yes '
            '-o BatchMode=yes -o "ProxyCommand=%s %s connect %s %%h %%p"'
            % (os.path.join(home, 'known_hosts'), sys.executable,
               shipped.RELAY, proxy_socket)),
        # every connection goes by the relay to the egress proxy: the
        # sandbox has no other network
        'http_proxy': proxy, 'https_proxy': proxy,
        'HTTP_PROXY': proxy, 'HTTPS_PROXY': proxy,
        'TRIPLEOPLAN_RESULT_FILE': result_file,
        MARKER: run_id,
    }


def run(text, extra_vars, inventory, timeout, run_id, started=None,
        stop_requested=None, look_every=2.0, clock=time.monotonic,
        ssh_key=None, targets=()):
    """Run playbook ``text`` (bytes); its result: ``status`` (PASSED,
    FAILED, TIMEOUT, STOPPED, ERROR), ``duration``, ``rc``,
    ``failed_hosts``, ``plays``, ``stats``, ``failures``, ``message``.

    ``ssh_key``: the private key file bound at ``sandbox.KEY``;
    ``targets``: the (host, port) pairs the playbook may reach (through
    ``egress``: the sandbox has no network of its own);
    ``started(pgid)``: told the child's process group once it runs;
    ``stop_requested()``: asked every ``look_every`` seconds, True ends
    the run as STOPPED.
    """
    program = ansible_playbook()
    if program is None:
        return _ended('ERROR', 0, message=(
            'ansible-core is not installed where the tripleoplan actions '
            'run: pip install "tripleoplanclient[mistral]" in Mistral\'s '
            'environment.'))
    if ssh_key and not os.access(ssh_key, os.R_OK):
        return _ended('ERROR', 0, message=(
            'the SSH key %s ([tripleoplan] validation_ssh_key of Mistral\'s '
            'configuration) cannot be read by Mistral\'s executor: fix the '
            'path or its permissions. Nothing was run.' % ssh_key))
    readable = [shipped.CALLBACKS, os.path.dirname(shipped.RELAY),
                os.path.dirname(os.path.realpath(program))]
    refused = sandbox.check(readable)
    if refused is not None:
        return _ended('ERROR', 0, message=refused)
    begin = clock()
    with tempfile.TemporaryDirectory(prefix='tripleoplan-validation-') \
            as home:
        os.makedirs(os.path.join(home, 'tmp'))
        proxy_socket = os.path.join(home, 'egress.sock')
        relay = [sys.executable, shipped.RELAY]
        # the sandbox resolves and connects nothing itself: argv
        # prefixes to ask the undercloud (``relay``)
        extra_vars = dict(
            extra_vars,
            tripleoplan_resolve=relay + ['resolve', proxy_socket],
            tripleoplan_probe=relay + ['probe', proxy_socket],
            tripleoplan_statfs=relay + ['statfs', proxy_socket])
        paths = {}
        for name, data in (('playbook.yaml', text),
                           ('vars.json', json.dumps(extra_vars)),
                           ('inventory.json', json.dumps(inventory))):
            paths[name] = os.path.join(home, name)
            with open(paths[name], 'wb') as f:
                f.write(data if isinstance(data, bytes) else data.encode())
        result_file = os.path.join(home, 'result.json')
        with open(os.path.join(home, 'stderr'), 'w+') as err, \
                egress.Proxy(proxy_socket, targets) as proxy:
            child = subprocess.Popen(
                sandbox.command(
                    relay + ['serve', proxy_socket, str(PROXY_PORT), '--',
                             program, '-i', paths['inventory.json'], '-e',
                             '@' + paths['vars.json'],
                             paths['playbook.yaml']],
                    home, readable, key=ssh_key),
                cwd=home, env=environment(home, result_file, run_id,
                                          proxy_socket),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, start_new_session=True, close_fds=True)
            if started is not None:
                started(child.pid)
            how = _wait(child, timeout, stop_requested, look_every, clock)
            err.seek(0)
            stderr = err.read()[-_ERR_KEEP:]
        found = {}
        if os.path.exists(result_file):
            with open(result_file) as f:
                found = json.load(f)
    _explain_unreachable(found, inventory, proxy.attempts)
    return _outcome(how, child.returncode, found, stderr, clock() - begin,
                    timeout)


def _explain_unreachable(found, built, attempts):
    """Add to an unreachable host's message why the proxy could not
    connect to it (ssh does not show its ProxyCommand's stderr)."""
    hosts = inventories.addresses(built)
    for failure in found.get('failures') or []:
        why = attempts.get(hosts.get(failure.get('host')))
        if failure.get('status') == 'unreachable' and why:
            failure['msg'] = '%s (%s)' % (
                (failure.get('msg') or 'unreachable').strip(), why)


def _wait(child, timeout, stop_requested, look_every, clock):
    """How the child ended: ``exited``, ``timeout`` or ``stopped``."""
    deadline = clock() + timeout
    next_look = clock() + look_every
    while True:
        try:
            child.wait(min(0.2, max(0.0, deadline - clock())))
            # a signal from ``validation stop`` (it asks first)
            return 'stopped' if child.returncode < 0 and \
                stop_requested is not None and stop_requested() \
                else 'exited'
        except subprocess.TimeoutExpired:
            pass
        if clock() >= deadline:
            kill(child.pid, child)
            return 'timeout'
        if stop_requested is not None and clock() >= next_look:
            next_look = clock() + look_every
            if stop_requested():
                kill(child.pid, child)
                return 'stopped'


def kill(pgid, child=None, grace=GRACE):
    """SIGTERM to process group ``pgid``, SIGKILL after ``grace`` s."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if child is not None:
        try:
            child.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    else:
        time.sleep(min(grace, 1))
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if child is not None:
        child.wait()


def owns(pgid, run_id):
    """True when process ``pgid`` on this host is the leader of run
    ``run_id``'s group (its environment says so): a run record names a
    group, and nothing else may be killed in its name."""
    try:
        with open('/proc/%d/environ' % int(pgid), 'rb') as f:
            found = f.read().split(b'\0')
    except (OSError, ValueError, TypeError):
        return False
    return ('%s=%s' % (MARKER, run_id)).encode() in found


def _outcome(how, rc, found, stderr, duration, timeout):
    stats = found.get('stats') or {}
    failures = found.get('failures') or []
    failed_hosts = sorted(set(
        [h for h, s in stats.items()
         if s.get('failures') or s.get('unreachable')] +
        [f['host'] for f in failures if f.get('host')]))
    if how == 'timeout':
        status, message = 'TIMEOUT', 'did not end within %d s' % round(
            timeout)
    elif how == 'stopped':
        status, message = 'STOPPED', 'stopped while it ran'
    elif rc == 0 and not failed_hosts:
        status, message = 'PASSED', None
    elif failed_hosts:
        status = 'FAILED'
        message = '; '.join('%s: %s: %s%s' % (
            f['host'], f['task'],
            'unreachable: ' if f.get('status') == 'unreachable' else '',
            f.get('msg') or 'failed') for f in failures[:5]) or 'failed'
    else:
        status = 'ERROR'
        message = ' '.join(stderr.split())[-500:] or \
            'ansible-playbook ended with status %s' % rc
    return _ended(status, duration, rc=rc, failed_hosts=failed_hosts,
                  plays=found.get('plays') or [], stats=stats,
                  failures=failures, message=message)


def _ended(status, duration, **fields):
    out = {'status': status, 'duration': round(duration, 2), 'rc': None,
           'failed_hosts': [], 'plays': [], 'stats': {}, 'failures': [],
           'message': None}
    out.update(fields)
    return out
