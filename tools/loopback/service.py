"""The shape every service has.

A service is a subclass of Service in a module of its own, registered in
registry.py.  It says what it needs (``requires``), which processes it runs
(``pidnames``), its ports, and fills in the steps; ``start`` runs them in
the same order for every service:

    configs()       the configuration files' text (nothing written yet)
    -- already running, healthy and started with the same run_stamp()? done
    install()       venv / system binaries
    stop()          leftovers of an earlier, partial start
    -- ports free?
    prepare(clean)  data directories, databases (wiped first with --clean)
    configure()     write the configuration (and what derives from it)
    launch()        spawn the processes, wait until they serve

A failure in the last three stops what was started and shows the tail of
the log that explains it.
"""

from __future__ import annotations

from pathlib import Path
import time

from . import process
from .common import check_ports_free
from .common import LoopbackError
from .common import say
from .common import write_if_changed
from .state import pids_dir
from .state import state_dir


class Service:
    name = ''
    requires: tuple[str, ...] = ()   # started first by ``start``
    # the variables that move its ports, for the "port in use" error
    port_variables = ''
    # what status says of a service whose processes run but fail healthy()
    unhealthy = 'not healthy'
    # what a change of run_stamp() means, for the restart message
    stamped = 'the configuration'
    # its main configuration file, under base (when it has one)
    conf_file = ''

    # -- where it is, for the user and the client --------------------------

    @property
    def base(self) -> Path:
        """Its state: configuration, data, logs, stamps."""
        return state_dir() / self.name

    @property
    def conf(self) -> Path:
        return self.base / self.conf_file

    def location(self) -> str:
        """'at <url>' or 'on <host:port>', for start and status."""
        raise NotImplementedError

    def details(self) -> str:
        """Shown after the location when it started, e.g. ' (node x)'."""
        return ''

    def cloud(self) -> dict:
        """Its keys in clouds.yaml's cloud (endpoint overrides)."""
        return {}

    def env(self) -> dict[str, str]:
        """Its shell variables in ``env`` (URLs, logs for the tests)."""
        return {}

    def logs(self) -> dict[str, Path]:
        """Its log files, by what they hold."""
        return {}

    # -- processes ----------------------------------------------------------

    def pidnames(self) -> list[str]:
        """Its pid files, in start order."""
        raise NotImplementedError

    def ports(self) -> dict[str, int]:
        """TCP ports it listens on, which must be free before it starts."""
        return {}

    def udp_ports(self) -> dict[str, int]:
        return {}

    def running(self) -> bool:
        return all(process.pidname_alive(n) for n in self.pidnames())

    def healthy(self) -> bool:
        """It answers its clients (a request, not just a port)."""
        raise NotImplementedError

    # -- the steps of start ---------------------------------------------------

    def configs(self) -> dict[str, str]:
        """Path (relative to base) -> text of its configuration files."""
        return {}

    def run_stamp(self, files: dict[str, str]) -> str | None:
        """What a running instance was started with; when it differs,
        ``start`` restarts it.  None: no such check."""
        return None

    def install(self) -> None:
        pass

    def prepare(self, clean: bool) -> None:
        pass

    def configure(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            # they hold the secrets of credentials.py
            write_if_changed(self.base / name, text, mode=0o600)

    def launch(self) -> None:
        raise NotImplementedError

    # -- the commands -------------------------------------------------------

    def start(self, clean: bool = False) -> None:
        files = self.configs()
        stamp = self.run_stamp(files)
        stamp_file = self.base / 'running.stamp'
        if not clean and self.running() and self.healthy():
            if stamp is None or (stamp_file.exists() and
                                 stamp_file.read_text() == stamp):
                say('%s: already running %s' % (self.name, self.location()))
                return
            say('%s: %s changed since it started: restarting' % (
                self.name, self.stamped))
        self.install()
        self.stop(quiet=True)
        check_ports_free(self.name, self.ports(), self.port_variables,
                         self.udp_ports())
        self.base.mkdir(parents=True, exist_ok=True)
        stamp_file.unlink(missing_ok=True)
        started = time.monotonic()
        try:
            self.prepare(clean)
            self.configure(files)
            self.launch()
        except LoopbackError as e:
            self.stop(quiet=True)
            raise process.with_log_tail(e) from None
        if stamp is not None:
            stamp_file.write_text(stamp)
        say('%s: running %s%s, started in %.1f s' % (
            self.name, self.location(), self.details(),
            time.monotonic() - started))

    def settle(self) -> None:
        """After ``start`` started (or found) every service it names: what
        has to wait for the others' restart (RabbitMQ drops the old user
        once they moved off it)."""

    def stop(self, quiet: bool = False) -> None:
        """By PID, the last started first."""
        process.stop_pidnames(list(reversed(self.pidnames())), quiet)

    # -- one process of a running service, for failure tests ---------------

    def members(self) -> list[str]:
        """Pid names that ``down`` and ``up`` stop and start alone."""
        return []

    def down(self, name: str) -> None:
        """Stop one of members() by its PID; the others keep running."""
        path = pids_dir() / (name + '.pid')
        say(process.stop_pidfile(path) if path.exists()
            else '%s: not running' % name)

    def up(self, name: str) -> None:
        """Start one of members() again and wait until it serves."""
        raise NotImplementedError

    def status(self) -> bool:
        names = self.pidnames()
        running = process.print_pids(names)
        healthy = running and self.healthy()
        down = [n for n in names if not process.pidname_alive(n)]
        print('%s: %s' % (self.name, 'running ' + self.location() if healthy
                          else 'running but ' + self.unhealthy if running
                          else 'partly running (not: %s)' % ', '.join(down)
                          if len(down) < len(names) else 'not running'))
        return healthy
