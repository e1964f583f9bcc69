"""Processes: the one place that launches a command with its output in a
log, pid files ({"pid", "starttime", "cmd", ...}), waiting for a service to
be ready, and stopping by PID only.

``stop`` signals only the PIDs recorded in <state>/pids/*.pid, and only
while the recorded process start time still matches (so a stale pid file
after a reboot never hits another process).
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
import shlex
import signal
import subprocess
import time

from .common import LoopbackError
from .common import say
from .common import tail
from .common import write_if_changed
from .state import pids_dir

# Popen objects of processes started by this invocation, so that stopping
# them also reaps them (no zombie keeps looking alive).
_CHILDREN: dict[int, subprocess.Popen] = {}

# PIDs stopped here whose parent is init: they are dead (zombies at worst)
# but init may take a second or two to reap them.
_REAPED_BY_INIT: list[int] = []


def _launch(cmd: list[str], log: Path, cwd: Path, env: dict | None,
            user: str | None, background: bool) -> subprocess.Popen:
    """cmd with stdin closed and stdout + stderr appended to log, after a
    header line (which ``tail`` finds to show only the last run).

    user: run as that OS user (only when root; PostgreSQL refuses to run
    as root).  background: in a session of its own, so that it outlives
    us and a Ctrl-C here does not reach it.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    child_env = dict(os.environ if env is None else env)
    for var in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV', 'PYTHONSTARTUP'):
        child_env.pop(var, None)
    as_user = {}
    if user and os.geteuid() == 0:
        as_user = {'user': user, 'group': user, 'extra_groups': []}
    with open(log, 'ab') as out:
        out.write(('=== loopback start %s: %s\n' % (
            datetime.datetime.now().isoformat(timespec='seconds'),
            ' '.join(shlex.quote(c) for c in cmd))).encode())
        out.flush()
        return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=cwd,
                                env=child_env, start_new_session=background,
                                **as_user)


def run(service: str, what: str, cmd: list[str], log: Path, cwd: Path,
        env: dict | None = None, user: str | None = None) -> None:
    """Run cmd to its end (output in log); LoopbackError if it fails."""
    returncode = _launch(cmd, log, cwd, env, user, background=False).wait()
    if returncode != 0:
        raise LoopbackError('%s: %s failed (exit %d)' % (
            service, what, returncode), log)


def spawn(name: str, cmd: list[str], log: Path, cwd: Path,
          env: dict | None = None, user: str | None = None,
          stop_signal: str = 'SIGTERM', stop_timeout: float = 5.0) -> int:
    """Start cmd in the background and record it in pids/<name>.pid.

    stop_signal / stop_timeout: how ``stop`` ends it before it falls back
    to SIGKILL (recorded in the pid file).
    """
    proc = _launch(cmd, log, cwd, env, user, background=True)
    _CHILDREN[proc.pid] = proc
    started = None
    for _ in range(100):
        started = proc_starttime(proc.pid)
        if started or proc.poll() is not None:
            break
        time.sleep(0.01)
    record_pid(name, proc.pid, started, cmd, log, stop_signal, stop_timeout,
               pgid=proc.pid)
    return proc.pid


def wait_until(service: str, what: str, ready, procs: dict[str, Path],
               timeout: float, log: Path | None = None) -> None:
    """Poll ready() until it is true, while every process in procs
    (pid name -> log) lives; LoopbackError(message, log) otherwise.

    log: the log to show on a timeout (default: the last process's).
    """
    deadline = time.monotonic() + timeout
    while True:
        for name, proc_log in procs.items():
            if not pidname_alive(name):
                raise LoopbackError('%s: %s exited during start' % (
                    service, name), proc_log)
        if ready():
            return
        if time.monotonic() > deadline:
            raise LoopbackError('%s: %s, not within %d s' % (
                service, what, timeout), log or list(procs.values())[-1])
        time.sleep(0.1)


def with_log_tail(e: LoopbackError) -> LoopbackError:
    """e's message plus the tail of the log file given as its 2nd arg."""
    message = e.args[0]
    log = e.args[1] if len(e.args) > 1 else None
    if log:
        message += '\n--- tail of %s ---\n%s' % (log, tail(Path(log)))
    return LoopbackError(message)


# ---------------------------------------------------------------------------
# pid files
# ---------------------------------------------------------------------------

def proc_starttime(pid: int) -> str | None:
    """Start time (clock ticks since boot) of a live, non-zombie process."""
    stat = proc_stat(pid)
    if stat is None or stat[0] in ('Z', 'X'):
        return None
    return stat[19]


def proc_stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name: state, ppid, ..."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(')') + 2:].split()


def record_pid(name: str, pid: int, started: str | None, cmd: list[str],
               log: Path, stop_signal: str = 'SIGTERM',
               stop_timeout: float = 5.0, pgid: int | None = None) -> None:
    """pgid: the process group it leads (spawn's), which stop ends too."""
    pids_dir().mkdir(parents=True, exist_ok=True)
    write_if_changed(pids_dir() / (name + '.pid'), json.dumps(
        {'pid': pid, 'starttime': started, 'cmd': cmd, 'log': str(log),
         'stop_signal': stop_signal, 'stop_timeout': stop_timeout,
         'pgid': pgid}) + '\n')


def read_pidfile(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
        int(data['pid'])
        return data
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pidfile_alive(path: Path) -> int | None:
    """The PID recorded in path if that very process still runs."""
    data = read_pidfile(path)
    if not data:
        return None
    pid = int(data['pid'])
    started = proc_starttime(pid)
    if started is None or started != str(data.get('starttime')):
        return None
    return pid


def pidname_alive(name: str) -> int | None:
    return pidfile_alive(pids_dir() / (name + '.pid'))


def print_pids(names: list[str]) -> bool:
    """One status line per pid file; True when all of them run."""
    running = True
    width = max([24] + [len(n) for n in names])
    for name in names:
        pid = pidname_alive(name)
        print('  %-*s %s' % (width, name, 'pid %d' % pid if pid
                             else 'not running'))
        running = running and bool(pid)
    return running


# ---------------------------------------------------------------------------
# stopping
# ---------------------------------------------------------------------------

def stop_pidfile(path: Path, timeout: float | None = None) -> str:
    """SIGTERM (or the pid file's stop_signal), wait, SIGKILL the process
    of one pid file; remove the file."""
    name = path.stem
    pid = pidfile_alive(path)
    if pid is None:
        path.unlink(missing_ok=True)
        return '%s: not running' % name
    data = read_pidfile(path) or {}
    how = str(data.get('stop_signal') or 'SIGTERM')
    if timeout is None:
        timeout = float(data.get('stop_timeout') or 5.0)

    def gone() -> bool:
        child = _CHILDREN.get(pid)
        if child is not None:
            return child.poll() is not None
        return proc_starttime(pid) is None

    def wait(seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not gone():
            time.sleep(0.05)

    try:
        os.kill(pid, getattr(signal, how, signal.SIGTERM))
    except ProcessLookupError:
        pass
    wait(timeout)
    if not gone():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        how = 'SIGKILL'
        wait(5)
    # Its workers (an executor's, busy in an action) may outlive it:
    # spawn made it the leader of a process group of its own.
    ended = end_group(pid) if data.get('pgid') == pid else 0
    path.unlink(missing_ok=True)
    if pid not in _CHILDREN:
        _REAPED_BY_INIT.append(pid)
    return '%s: stopped pid %d (%s)%s' % (
        name, pid, how, ', and %d process(es) of its group' % ended
        if ended else '')


def group_members(pgid: int) -> list[int]:
    """Live processes of process group pgid."""
    found = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            stat = proc_stat(int(entry))
            if stat and stat[0] not in ('Z', 'X') and stat[2] == str(pgid):
                found.append(int(entry))
    return found


def end_group(pgid: int, grace: float = 2.0) -> int:
    """SIGTERM what is left of process group pgid, SIGKILL after grace
    seconds; how many processes were left."""
    left = group_members(pgid)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if not group_members(pgid):
            break
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and group_members(pgid):
            time.sleep(0.05)
    _REAPED_BY_INIT.extend(left)
    return len(left)


def stop_pidnames(names: list[str], quiet: bool) -> None:
    """Stop in this order; quiet: say only what was actually stopped."""
    for name in names:
        path = pids_dir() / (name + '.pid')
        if path.exists():
            msg = stop_pidfile(path)
            if not quiet or 'stopped' in msg:
                say(msg)


def wait_reaped(timeout: float = 3.0) -> None:
    """Give init a moment to reap stopped processes, so that a caller that
    checks "no such PID remains" right after stop finds none."""
    deadline = time.monotonic() + timeout
    while _REAPED_BY_INIT and time.monotonic() < deadline:
        _REAPED_BY_INIT[:] = [p for p in _REAPED_BY_INIT
                              if os.path.exists('/proc/%d' % p)]
        time.sleep(0.05)
    _REAPED_BY_INIT.clear()
