"""The command line: install, start, stop, status, env, logs, down, up
(and the internal _syslog-sink), over the services in registry.SERVICES."""

from __future__ import annotations

import argparse
import shlex
import subprocess

from . import keystone
from . import process
from . import state
from . import syslog_sink
from .common import LoopbackError
from .common import say
from .registry import check_requirements
from .registry import SERVICES
from .registry import with_dependents
from .registry import with_requirements
from .service import Service


def cmd_start(args: argparse.Namespace) -> int:
    named = args.services or list(SERVICES)
    with state.locked('start %s' % ' '.join(named)):
        keystone.record_mode()
        for name in with_requirements(named):
            check_requirements(name)
            # --clean wipes the named services only, not what they pull in
            SERVICES[name].start(clean=args.clean and name in named)
            state.set_started(state.started() | {name})
        for name in with_requirements(named):
            SERVICES[name].settle()
        path = state.write_clouds_yaml(SERVICES.values())
    say('clouds.yaml: %s (cloud "loopback")' % path)
    return 0


def cmd_install(args: argparse.Namespace) -> int:
    """What ``start`` would install (venvs from PyPI, this checkout in
    Mistral's; the system programs checked), and nothing started: the
    one step that needs the network (tools/run-tests.sh runs it before
    the tests' namespace of lo alone)."""
    for name in with_requirements(args.services or list(SERVICES)):
        SERVICES[name].install()
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    names = with_dependents(args.services or list(SERVICES))
    with state.locked('stop %s' % ' '.join(names)):
        for name in reversed(names):
            SERVICES[name].stop()
        state.set_started(state.started() - set(names))
        state.write_clouds_yaml(SERVICES.values())
        if not args.services and state.pids_dir().is_dir():
            # anything else with a pid file here (a service removed since?)
            for path in sorted(state.pids_dir().glob('*.pid')):
                say(process.stop_pidfile(path))
    process.wait_reaped()
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    ok = True
    for name in args.services or list(SERVICES):
        ok = SERVICES[name].status() and ok
    if not args.services:
        return 0
    return 0 if ok else 3


def cmd_env(args: argparse.Namespace) -> int:
    for key, value in state.env_vars(SERVICES.values()).items():
        print('export %s=%s' % (key, shlex.quote(value)))
    return 0


def cmd_logs(args: argparse.Namespace) -> int:
    for name in args.services or list(SERVICES):
        logs = SERVICES[name].logs()
        width = max([12] + [len(what) for what in logs])
        for what, path in logs.items():
            if path.exists():
                print('%-9s %-*s %s' % (name, width, what, path))
    return 0


def members(names: list[str]) -> list[tuple[str, Service]]:
    """(name, service) for each process name that ``down``/``up`` know."""
    known = {m: service for service in SERVICES.values()
             for m in service.members()}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise LoopbackError('unknown server(s) %s; valid (with the current '
                            'environment): %s' % (
                                ', '.join(unknown), ', '.join(known)))
    return [(n, known[n]) for n in names]


def cmd_down(args: argparse.Namespace) -> int:
    found = members(args.servers)
    with state.locked('down %s' % ' '.join(args.servers)):
        for name, service in found:
            service.down(name)
    process.wait_reaped()
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    found = members(args.servers)
    with state.locked('up %s' % ' '.join(args.servers)):
        for name, service in found:
            service.up(name)
    return 0


def cmd_syslog_sink(args: argparse.Namespace) -> int:
    return syslog_sink.main(args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog='python3 tools/loopback',
        description='Run real OpenStack services on 127.0.0.1.')
    sub = top.add_subparsers(dest='command', required=True,
                             metavar='{install,start,stop,status,env,logs,'
                             'down,up}')

    def command(name: str, func, help: str, services: bool = True):
        p = sub.add_parser(name, help=help)
        if services:
            p.add_argument('services', nargs='*', metavar='SERVICE',
                           help='one of: %s (default: all)' %
                           ', '.join(SERVICES))
        p.set_defaults(func=func)
        return p

    command('install', cmd_install, 'install what start needs, start '
            'nothing')
    p = command('start', cmd_start, 'install if needed and start services')
    p.add_argument('--clean', action='store_true',
                   help='wipe the services\' data first')
    command('stop', cmd_stop, 'stop services started here, by PID')
    command('status', cmd_status, 'show which services run')
    command('env', cmd_env, 'print shell export lines', services=False)
    command('logs', cmd_logs, 'list the services\' log files')
    for name, func, help in (
            ('down', cmd_down, 'stop one server of a running service, by '
             'its PID (failure tests)'),
            ('up', cmd_up, 'start a server stopped by down again, wait '
             'until it serves')):
        p = command(name, func, help, services=False)
        p.add_argument('servers', nargs='+', metavar='SERVER',
                       help='e.g. swift-object-server-2 (status lists them)')
    # no help: left out of --help (started by the swift service)
    p = sub.add_parser('_syslog-sink')
    syslog_sink.add_arguments(p)
    p.set_defaults(func=cmd_syslog_sink)
    return top


def main(argv: list[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    for name in getattr(args, 'services', None) or []:
        if name not in SERVICES:
            top.error('unknown service %r (known: %s)' % (
                name, ', '.join(SERVICES)))
    try:
        return args.func(args)
    except LoopbackError as e:
        say('ERROR: %s' % e.args[0])
        return 1
    except subprocess.CalledProcessError as e:
        say('ERROR: command failed (exit %d): %s' % (
            e.returncode, ' '.join(shlex.quote(str(c)) for c in e.cmd)))
        return 1
