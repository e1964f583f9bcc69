"""One validation run by ``ansible-playbook``, as a child process
(``child``: the rules it shares with config-download's runs).

The child runs in the bubblewrap sandbox (``sandbox``: its own
namespaces, as nobody, the executor's files out of sight; refused when
bwrap cannot make it), in a process group of its own (stop and timeout
end the whole group: bwrap's end takes its pid namespace with it), with
an environment made from nothing: no token, password or OS_* variable
of the executor reaches the playbook, only the run's inputs as extra
vars (endpoint URLs, the plan's name and problems). The servers are
logged in to through an ``ssh-agent`` this runner starts outside the
sandbox with the key Mistral's operator configured: the sandbox gets
the agent's socket, never the key's bytes, and its SSH connections
reach only the servers the run was given (``egress``). Host keys are
accepted on first sight into the run's own known_hosts.

The runner reads nothing the playbook could choose: the stdout callback
in ``callback_plugins`` writes the run so far as one line on stdout
after every task, and stdout and stderr are pipes the runner holds,
read with a bound (the last result line up to ``RESULT_LIMIT``, the
last ``_ERR_KEEP`` bytes of stderr); the sandbox's scratch is a tmpfs
of bounded size that ends with the run.
"""

import json
import os
import sys
import tempfile
import time

from tripleoplanclient.validations import child
from tripleoplanclient.validations import inventory as inventories
from tripleoplanclient.validations import sandbox
from tripleoplanclient.validations import shipped
from tripleoplanclient.validations import support

MARKER = 'TRIPLEOPLAN_VALIDATION_RUN'
# what starts the callback's result lines on stdout
RESULT_LINE = b'TRIPLEOPLAN-RESULT '
# the longest result line kept; a longer one is dropped
RESULT_LIMIT = 8 * 1024 * 1024


def ansible_playbook():
    """ansible-playbook beside this Python (Mistral's venv), else on
    PATH; None when ansible-core is not installed."""
    import shutil
    here = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    return here if os.access(here, os.X_OK) else shutil.which(
        'ansible-playbook')


def environment(run_id, project=None, agent=False, support_tree=None):
    """The child's whole environment (paths as the sandbox sees them).
    ``MARKER`` names the run and the project it runs for: ``owns``
    trusts nothing else. ``support_tree``: the container's roles,
    modules and plugins (``support``)."""
    home = sandbox.HOME
    env = child.environment(shipped.CALLBACKS, 'tripleoplan_json', agent)
    env.update({
        'ANSIBLE_CONFIG': os.path.join(home, 'ansible.cfg'),
        'ANSIBLE_COLLECTIONS_PATH': os.path.join(home, 'collections'),
        MARKER: _marker(run_id, project),
    })
    if support_tree:
        env.update(support.environment(support_tree))
    return env


def _marker(run_id, project):
    return '%s %s' % (project or '-', run_id)


def run(text, extra_vars, inventory, timeout, run_id, started=None,
        stop_requested=None, look_every=2.0, clock=time.monotonic,
        ssh_key=None, targets=(), refused=None, project=None, hidden=(),
        limit=None, support_tree=None):
    """Run playbook ``text`` (bytes); its result: ``status`` (PASSED,
    FAILED, TIMEOUT, STOPPED, ERROR), ``duration``, ``rc``,
    ``failed_hosts``, ``plays``, ``stats``, ``failures``, ``message``.

    ``ssh_key``: the private key file the SSH agent holds for the run;
    ``targets``: the (host, port) pairs the playbook may reach (through
    ``egress``: the sandbox has no network of its own); ``refused``:
    ``{(host, port): why}`` the proxy says of those it may not;
    ``project``: the caller's (Keystone's) project, in ``MARKER``;
    ``hidden``: directories the sandbox hides besides those it always
    does (``sandbox.secret_places``); ``support_tree``: the container's
    roles, modules and plugins (``support.prepare``), mounted read-only;
    ``started(pgid)``: told the child's process group once it runs;
    ``stop_requested()``: asked every ``look_every`` seconds, True ends
    the run as STOPPED;
    ``limit``: ansible-playbook's ``--limit`` (``parameters.check_limit``).
    """
    program = ansible_playbook()
    if program is None:
        return run_result('ERROR', 0, message=(
            'ansible-core is not installed where the tripleoplan actions '
            'run: pip install "tripleoplanclient[mistral]" in Mistral\'s '
            'environment.'))
    if ssh_key and not os.access(ssh_key, os.R_OK):
        return run_result('ERROR', 0, message=(
            'the SSH key %s ([tripleoplan] validation_ssh_key of Mistral\'s '
            'configuration) cannot be read by Mistral\'s executor: fix the '
            'path or its permissions. Nothing was run.' % ssh_key))
    readable = [shipped.CALLBACKS, os.path.dirname(shipped.RELAY),
                os.path.dirname(os.path.realpath(program))] + (
                    [support_tree] if support_tree else [])
    refused_sandbox = sandbox.check(readable)
    if refused_sandbox is not None:
        return run_result('ERROR', 0, message=refused_sandbox)
    begin = clock()
    # private to the executor (0700); only ``inputs`` goes in, read-only
    with tempfile.TemporaryDirectory(prefix='tripleoplan-validation-') \
            as private:
        inputs = os.path.join(private, 'inputs')
        os.mkdir(inputs)
        relay = child.relay()
        # the sandbox resolves and connects nothing itself: argv
        # prefixes to ask the undercloud (``relay``)
        extra_vars = dict(
            extra_vars,
            tripleoplan_resolve=relay + ['resolve', child.PROXY_SOCKET],
            tripleoplan_probe=relay + ['probe', child.PROXY_SOCKET],
            tripleoplan_statfs=relay + ['statfs', child.PROXY_SOCKET])
        for name, data in (('playbook.yaml', text),
                           ('vars.json', json.dumps(extra_vars)),
                           ('inventory.json', json.dumps(inventory))):
            with open(os.path.join(inputs, name), 'wb') as f:
                f.write(data if isinstance(data, bytes) else data.encode())
        inside = sandbox.INPUTS + '/'
        ended = child.run(
            [program, '-i', inside + 'inventory.json',
             '-e', '@' + inside + 'vars.json'] +
            (['--limit', limit] if limit else []) +
            [inside + 'playbook.yaml'],
            inputs, environment(run_id, project, bool(ssh_key),
                                support_tree), timeout,
            _last_result, readable=readable, ssh_key=ssh_key,
            targets=targets, refused=refused, hidden=hidden,
            started=started, stop_requested=stop_requested,
            look_every=look_every, clock=clock)
    if 'problem' in ended:
        return run_result('ERROR', 0, message=ended['problem'])
    found = ended['stdout'] or {}
    _explain_unreachable(found, inventory, ended['attempts'])
    return _outcome(ended['how'], ended['rc'], found, ended['stderr'],
                    clock() - begin, timeout)


def _last_result(pipe, limit=RESULT_LIMIT):
    """The last result line's data (``{}``: none, or none that parses)."""
    last = [None]

    def keep(data):
        last[0] = data

    child.lines(pipe, RESULT_LINE, limit, keep)
    try:
        found = json.loads(last[0]) if last[0] else {}
    except ValueError:
        found = {}
    return _shaped(found)


def _shaped(found):
    """The callback's data as the rest of the runner reads it: anything
    else (the playbook may write to the pipe too) left out."""
    if not isinstance(found, dict):
        return {}
    plays = found.get('plays')
    stats = found.get('stats')
    failures = found.get('failures')
    return {
        'plays': [p for p in plays if isinstance(p, dict)]
        if isinstance(plays, list) else [],
        'stats': {str(h): s for h, s in stats.items()
                  if isinstance(s, dict)} if isinstance(stats, dict) else {},
        'failures': [dict(f, host=str(f.get('host') or ''),
                          task=str(f.get('task') or ''))
                     for f in failures if isinstance(f, dict)]
        if isinstance(failures, list) else []}


def _explain_unreachable(found, built, attempts):
    """Add to an unreachable host's message why the proxy could not
    connect to it (ssh does not show its ProxyCommand's stderr)."""
    hosts = inventories.addresses(built)
    for failure in found.get('failures') or []:
        why = attempts.get(hosts.get(failure.get('host')))
        if failure.get('status') == 'unreachable' and why:
            failure['msg'] = '%s (%s)' % (
                (failure.get('msg') or 'unreachable').strip(), why)


def owns(pgid, run_id, project=None):
    """True when process ``pgid`` on this host is the leader of run
    ``run_id``'s group for ``project`` (its environment says so, as the
    runner wrote it from Keystone's view of the caller): a run record,
    which any member of a project may write, names a group, and nothing
    else may be killed in its name."""
    try:
        with open('/proc/%d/environ' % int(pgid), 'rb') as f:
            found = f.read().split(b'\0')
    except (OSError, ValueError, TypeError):
        return False
    return ('%s=%s' % (MARKER, _marker(run_id, project))).encode() in found


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
    return run_result(status, duration, rc=rc, failed_hosts=failed_hosts,
                      plays=found.get('plays') or [], stats=stats,
                      failures=failures, message=message)


def run_result(status, duration, **fields):
    """A validation's result in a run: ``status``, every other field
    empty unless ``fields`` gives it."""
    out = {'status': status, 'duration': round(duration, 2), 'rc': None,
           'failed_hosts': [], 'plays': [], 'stats': {}, 'failures': [],
           'message': None}
    out.update(fields)
    return out
