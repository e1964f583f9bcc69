"""The sandboxed ``ansible-playbook`` of a run, from start to end: the
rules a validation run (``runner``) and a config-download run
(``tripleoplanclient.config.ansible_run``) share, in one place.

The child runs in the bubblewrap sandbox (``sandbox``, under the
``seccomp`` filter), in a process group of its own (stop and timeout
end the whole group: bwrap's end takes its pid namespace with it),
with the environment its caller made from nothing. SSH logs in through
an ``ssh-agent`` started here, outside the sandbox, with the key the
operator configured (``agent``: the sandbox gets the socket, never the
key's bytes), and every connection goes by the relay to the egress
proxy, which reaches only the run's targets (``egress``). stdout and
stderr are pipes held here and read with a bound: stdout by the
caller's reader, stderr's last ``ERR_KEEP`` bytes.
"""

import os
import signal
import subprocess
import sys
import threading
import time

from tripleoplanclient.validations import agent
from tripleoplanclient.validations import egress
from tripleoplanclient.validations import sandbox
from tripleoplanclient.validations import seccomp
from tripleoplanclient.validations import shipped

# the relay's port on the sandbox's own loopback (``egress``)
PROXY_PORT = 3128
# inside the sandbox: the egress proxy's and the SSH agent's sockets
PROXY_SOCKET = sandbox.INPUTS + '/egress.sock'
AGENT_SOCKET = sandbox.INPUTS + '/agent.sock'
# seconds between SIGTERM and SIGKILL of the process group
GRACE = 5
ERR_KEEP = 2000


def relay():
    """The argv prefix of the relay (``egress``), run inside."""
    return [sys.executable, shipped.RELAY]


def environment(callbacks, stdout_callback, agent=False):
    """What every run's child environment holds (paths as the sandbox
    sees them): Ansible's scratch in the sandbox's ``HOME``, the stdout
    callback ``stdout_callback`` from directory ``callbacks``, SSH and
    HTTP through the relay, the agent's socket when ``agent``."""
    here = os.path.dirname(sys.executable)
    home = sandbox.HOME
    proxy = 'http://127.0.0.1:%d' % PROXY_PORT
    env = {
        'PATH': os.pathsep.join([here, '/usr/local/bin', '/usr/bin',
                                 '/bin', '/usr/sbin', '/sbin']),
        'HOME': home, 'TMPDIR': home, 'LANG': 'C.UTF-8',
        'ANSIBLE_LOCAL_TEMP': os.path.join(home, 'tmp'),
        'ANSIBLE_REMOTE_TEMP': os.path.join(home, 'tmp'),
        'ANSIBLE_CALLBACK_PLUGINS': callbacks,
        'ANSIBLE_STDOUT_CALLBACK': stdout_callback,
        'ANSIBLE_RETRY_FILES_ENABLED': 'False',
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_LOCALHOST_WARNING': 'False',
        'ANSIBLE_INVENTORY_UNPARSED_WARNING': 'False',
        # The servers' host keys are new with each deployment and the
        # undercloud keeps no record of them: accepted on first sight,
        # into this run's file (never the executor's), and a key that
        # changes within the run is refused. The login's key is the
        # agent's (no IdentitiesOnly: that would ignore it).
        'ANSIBLE_HOST_KEY_CHECKING': 'True',
        'ANSIBLE_SSH_COMMON_ARGS': (
            '-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=%s '
            '-o GlobalKnownHostsFile=/dev/null -o BatchMode=yes '
            '-o ForwardAgent=no -o IdentityAgent=%s '
            '-o "ProxyCommand=%s %s connect %s %%h %%p"'
            % (os.path.join(home, 'known_hosts'),
               AGENT_SOCKET if agent else 'none', sys.executable,
               shipped.RELAY, PROXY_SOCKET)),
        # every connection goes by the relay to the egress proxy: the
        # sandbox has no other network
        'http_proxy': proxy, 'https_proxy': proxy,
        'HTTP_PROXY': proxy, 'HTTPS_PROXY': proxy,
    }
    if agent:
        env['SSH_AUTH_SOCK'] = AGENT_SOCKET
    return env


def run(argv, inputs, env, timeout, read_stdout, readable=(), writable=(),
        chdir=sandbox.HOME, ssh_key=None, targets=(), refused=None,
        hidden=(), started=None, stop_requested=None, look_every=2.0,
        clock=time.monotonic, tick=None):
    """Run ``argv`` (``ansible-playbook ...``, as the sandbox sees it)
    in the sandbox with ``env``, the directory ``inputs`` read-only at
    ``sandbox.INPUTS`` (the proxy's and agent's sockets are made in
    it), ``readable`` and ``writable`` as ``sandbox.command`` takes
    them, ``hidden`` besides ``sandbox.secret_places``.

    ``read_stdout(pipe)``: reads the child's stdout to its end in a
    thread (bounded), its return value is the result's ``stdout``;
    ``started(pgid)``: told the child's process group once it runs;
    ``stop_requested()``: asked every ``look_every`` seconds, True ends
    the run; ``tick()``: called about every 0.2 s while it runs and
    until its stdout is read.

    Returns ``{'how': exited|timeout|stopped, 'rc', 'stdout', 'stderr',
    'attempts'}`` (``egress.Proxy.attempts``), or ``{'problem': why}``
    when the agent could not hold the key (nothing was run).
    """
    relay_argv = relay()
    with egress.Proxy(os.path.join(inputs, 'egress.sock'), targets,
                      refused=refused) as proxy, \
            agent.Agent(os.path.join(inputs, 'agent.sock'), ssh_key,
                        timeout) as held:
        if held.problem:
            return {'problem': held.problem}
        filter_fd = seccomp.pipe()
        try:
            child = subprocess.Popen(
                sandbox.command(
                    relay_argv + ['serve', PROXY_SOCKET, str(PROXY_PORT),
                                  '--'] + list(argv),
                    inputs, readable,
                    secrets=sandbox.secret_places(hidden=hidden),
                    seccomp_fd=filter_fd, writable=writable, chdir=chdir),
                cwd='/', env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, close_fds=True,
                pass_fds=() if filter_fd is None else (filter_fd,))
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        results = Reader(child.stdout, read_stdout, None)
        errors = Reader(child.stderr, tail, '')
        if started is not None:
            started(child.pid)
        how = wait(child, timeout, stop_requested, look_every, clock, tick)
        found, stderr = results.value(tick), errors.value()
    return {'how': how, 'rc': child.returncode, 'stdout': found,
            'stderr': stderr, 'attempts': proxy.attempts}


class Reader:
    """A pipe of the child read to its end in a thread, by ``keep(pipe)``
    (which bounds what it keeps)."""

    # how long the pipe may stay open once the child ended (bwrap's end
    # takes its pid namespace, and so every writer, with it)
    DRAIN = 10

    def __init__(self, pipe, keep, empty):
        self._pipe, self._found = pipe, empty
        self._thread = threading.Thread(
            target=lambda: setattr(self, '_found', keep(pipe)), daemon=True)
        self._thread.start()

    def value(self, tick=None):
        deadline = time.monotonic() + self.DRAIN
        while self._thread.is_alive() and time.monotonic() < deadline:
            self._thread.join(0.2)
            if tick is not None:
                tick()
        self._pipe.close()
        return self._found


def tail(pipe):
    """The last ``ERR_KEEP`` bytes the pipe carried, as text."""
    kept = bytearray()
    for chunk in iter(lambda: pipe.read1(65536), b''):
        kept += chunk
        del kept[:-ERR_KEEP]
    return kept.decode('utf-8', 'replace')


def lines(pipe, prefix, limit, each):
    """Call ``each(bytes)`` with what follows ``prefix`` on every line of
    ``pipe`` that starts with it; a line longer than ``limit`` is
    dropped, unread."""
    line, skipping = bytearray(), False
    for chunk in iter(lambda: pipe.read1(65536), b''):
        while chunk:
            end = chunk.find(b'\n')
            if end < 0:
                part, chunk = chunk, b''
            else:
                part, chunk = chunk[:end], chunk[end + 1:]
            if not skipping:
                line += part
                if len(line) > limit:
                    line, skipping = bytearray(), True
            if end >= 0:
                if not skipping and line.startswith(prefix):
                    each(bytes(line[len(prefix):]))
                line, skipping = bytearray(), False


def wait(child, timeout, stop_requested, look_every, clock, tick=None):
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
        if tick is not None:
            tick()
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
