"""The loopback Swift's sets of storage servers, their daemons, names,
ports and rings, as the replica count makes them (swift.py runs them;
the rings are built here).

``LOOPBACK_SWIFT_REPLICAS=3`` (1 by default): three sets of account,
container and object servers, one device each (srv/d1, d2, d3) in zones
1-3 of rings with 3 replicas; one proxy.  The first set keeps the ports,
configuration, pid and log names of the default (``swift-object-server``,
logs/object-server.log); set n listens on the first set's ports + 100(n-1)
and is named with ``-n`` (``swift-object-server-2`` on 16110,
etc/object-server-2.conf, logs/object-server-2.log, its syslog port after
the first six).  The rings are built again when the replica count
changes, and ``start`` restarts a running Swift that has another count.
``down``/``up`` stop and start one server or daemon (see
``swift.Swift.members``) for failure tests: with one object server down a
PUT still gets 201 (2 of 3 is a quorum; with 3 devices there is no
handoff), with two 503.  The proxy skips a server for 60 s after 10
errors (error_suppression_interval), also right after ``up``.

Consistency daemons, 3 replicas only (1 replica runs none, as before):
each set runs swift-account-replicator, swift-container-replicator,
swift-object-replicator and swift-object-updater, recorded by PID like
the servers (``swift-container-replicator-2``; status, stop, down/up),
configured in their server's file (``[container-replicator]`` in
container-server-2.conf, templates db-replicator.conf and
object-daemons.conf) and logging through the sink on their server's port
to a file of their own (logs/container-replicator-2.log: the sink sorts
by syslog tag).  Short passes for tests, concurrency 1: the account and
container replicators every 1 s (at most 10 databases a second), the
object replicator every 2 s with ``sync_method = ssync`` (objects go over
HTTP to the object servers, no rsync), the updater every 5 s (each pass
forks).  So a container replica that missed object updates catches up
within about a second, and an object server that was down gets what it
missed within about 2 s of ``up``.  A replica that lacks a whole
database (a container created while its server was down) gets a copy by
rsync: ``swift-rsyncd`` (``rsync --daemon``, etc/rsyncd.conf, modules
account and container over srv/) on 127.0.0.1:LOOPBACK_SWIFT_RSYNC_PORT
(16026), run when ``rsync`` is on PATH; without it only those copies fail
(logged), the rest works.  The daemons cannot be told swift_dir for
swift.conf (they read /etc/swift/swift.conf), so each runs its console
script through DAEMON_SCRIPT, which sets it first.  Each set's
``devices`` is nodes/<n>, holding only its device (d<n>, a link to
srv/d<n>), as on a node of a real cluster: the updater sweeps every
device there.  Rings have 16 partitions (REPLICAS_PART_POWER), so an
object replicator pass costs about the same with 30 objects or 3000;
start refuses to rebuild rings of another partition power (1 <-> 3
replicas) over stored data, ``start --clean`` wipes it.  ``start`` waits
for each replicator's first pass (and the updater's start).  Costs,
measured on 2 cores: about a third of one core while idle, up to ~60%
with 100 containers (three container replicators at 10 databases a
second); PUTs about a third slower; 12 more processes of ~55 MB; logs
grow by ~4 KB/s.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
import re
import shutil
import subprocess

from .common import env_port
from .common import HOST
from .common import LoopbackError
from .venv import venv_dir

PART_POWER = 8
# 3 replicas: 16 partitions.  An object replicator pass asks both other
# object servers for the hashes of every partition it holds (REPLICATE),
# so its cost grows with the partitions in use: with 256, a few thousand
# objects keep 3 replicators busy every 2 s.
REPLICAS_PART_POWER = 4
STORAGE = ('account', 'container', 'object')     # one set, in start order
REPLICAS = (1, 3)
SET_PORT_STEP = 100         # set n listens on the first set's ports + 100(n-1)
# the consistency daemons of each set (3 replicas only), in start order:
# name (its configuration section, log_name and binary) -> its server
DAEMONS = {'account-replicator': 'account',
           'container-replicator': 'container',
           'object-replicator': 'object',
           'object-updater': 'object'}
OBJECT_REPLICATOR_INTERVAL = 2  # s (templates: db replicators 1, updater 5)
# what each one logs at the end of a pass: start waits for the first (the
# rings and configuration work); for the updater, whose first pass may
# come 5 s later, only for its start
FIRST_PASS = {'account-replicator': 'Replication run OVER',
              'container-replicator': 'Replication run OVER',
              'object-replicator': 'Object replication complete',
              'object-updater': 'Starting %(pid)d'}
# pid files that only 3 replicas have: storage servers of set 2, 3, ...,
# the daemons of every set, the rsync daemon
EXTRA_PIDNAME = re.compile(r'swift-((account|container|object)-server-[0-9]+'
                           r'|(%s)(-[0-9]+)?|rsyncd)$' % '|'.join(DAEMONS))

# ports: one port (one device) or a list, one device per set: device i
# (from 0) is d<i+1> in zone i+1; as many replicas as devices
RING_SCRIPT = r'''
import json, os, sys
from swift.common.ring import RingBuilder
spec = json.loads(sys.argv[1])
for kind, ports in spec["ports"].items():
    ports = ports if isinstance(ports, list) else [ports]
    builder = RingBuilder(spec["part_power"], len(ports), 1)
    for i, port in enumerate(ports):
        builder.add_dev({"id": i, "region": 1, "zone": i + 1,
                         "ip": spec["host"], "port": port,
                         "device": "d%d" % (i + 1), "weight": 100.0})
    builder.rebalance(seed=1)
    builder.save(os.path.join(spec["etc"], kind + ".builder"))
    builder.get_ring().save(os.path.join(spec["etc"], kind + ".ring.gz"))
'''

# runs a daemon's console script (argv: swift_dir, script, its arguments)
# after pointing Swift at our swift.conf: unlike the servers, the daemons
# never read swift_dir for it and look for /etc/swift/swift.conf (the hash
# path prefix and suffix the rings hash with)
DAEMON_SCRIPT = r'''
from importlib.metadata import entry_points
from swift.common.utils import set_swift_dir
import sys
set_swift_dir(sys.argv[1])
main = entry_points(group="console_scripts", name=sys.argv[2])
sys.argv = sys.argv[2:]
sys.exit(next(iter(main)).load()())
'''


def replicas() -> int:
    """LOOPBACK_SWIFT_REPLICAS: 1 (default) or 3 sets of storage servers."""
    value = os.environ.get('LOOPBACK_SWIFT_REPLICAS') or '1'
    if value.strip() not in [str(n) for n in REPLICAS]:
        raise LoopbackError('LOOPBACK_SWIFT_REPLICAS=%s: give %s' % (
            value, ' or '.join(str(n) for n in REPLICAS)))
    return int(value)


def part_power() -> int:
    return PART_POWER if replicas() == 1 else REPLICAS_PART_POWER


def servers() -> list[str]:
    """The servers in start order: the first set (account, container,
    object), the others' (account-2, ..., object-3), the proxy."""
    return list(STORAGE) + [
        '%s-%d' % (kind, n) for n in range(2, replicas() + 1)
        for kind in STORAGE] + ['proxy']


def daemons() -> list[str]:
    """The consistency daemons in start order, set by set (3 replicas
    only): 'account-replicator', ..., 'object-updater-3'."""
    if replicas() == 1:
        return []
    return [d + ('-%d' % n if n > 1 else '') for n in range(1, replicas() + 1)
            for d in DAEMONS]


def daemon_server(daemon: str) -> str:
    """'container-replicator-2' -> 'container-2' (its configuration file
    is that server's, its log port that server's)."""
    what, sep, n = daemon.rpartition('-')
    if not n.isdigit():
        what, sep, n = daemon, '', ''
    return DAEMONS[what] + sep + n


def daemon_section(daemon: str) -> str:
    """'container-replicator-2' -> 'container-replicator'."""
    what, _, n = daemon.rpartition('-')
    return what if n.isdigit() else daemon


def rsync() -> str | None:
    """rsync's path: the rsync daemon runs with 3 replicas when it is on
    PATH (the account and container replicators copy a whole database with
    it); without it, only that copy fails (and is logged)."""
    return shutil.which('rsync') if replicas() > 1 else None


def kind(server: str) -> str:
    """'object-2' -> 'object'."""
    return server.partition('-')[0]


def server_name(server: str) -> str:
    """'object' -> 'object-server', 'object-2' -> 'object-server-2': its
    configuration file (etc/<name>.conf) and log (logs/<name>.log)."""
    what, sep, n = server.partition('-')
    return what + '-server' + sep + n


def pidname(server: str) -> str:
    return 'swift-' + server_name(server)


def ports() -> dict[str, int]:
    found = {
        'proxy': env_port('LOOPBACK_SWIFT_PORT', 18080),
        'object': env_port('LOOPBACK_SWIFT_OBJECT_PORT', 16010),
        'container': env_port('LOOPBACK_SWIFT_CONTAINER_PORT', 16011),
        'account': env_port('LOOPBACK_SWIFT_ACCOUNT_PORT', 16012),
        'memcached': env_port('LOOPBACK_MEMCACHED_PORT', 16013),
    }
    for n in range(2, replicas() + 1):
        for what in STORAGE:
            found['%s-%d' % (what, n)] = found[what] + SET_PORT_STEP * (n - 1)
    if replicas() > 1:
        found['rsync'] = env_port('LOOPBACK_SWIFT_RSYNC_PORT', 16026)
    return found


def log_ports() -> dict[str, int]:
    """The sink's syslog UDP ports, one per destination file (the other
    sets' servers after the first six)."""
    first = env_port('LOOPBACK_SWIFT_LOG_PORT', 16014)
    names = ['access', 'subrequests', 'proxy', 'object', 'container',
             'account'] + ['%s-%d' % (what, n)
                           for n in range(2, replicas() + 1)
                           for what in ('object', 'container', 'account')]
    return {name: first + i for i, name in enumerate(names)}


# what the rings were built for (build_rings), beside them in etc/
RINGS_STAMP = 'rings.json'


def check_part_power(etc: Path, devices: Path) -> None:
    """Refuse to rebuild the rings with another partition power (1 <->
    3 replicas) over stored data: it would sit in partitions the
    rings no longer have (objects not found, replicators failing)."""
    stamp = etc / RINGS_STAMP
    try:
        built = json.loads(stamp.read_text())['part_power']
    except (OSError, ValueError, KeyError):
        return
    stored = [d for d in devices.glob('d*/*')
              if d.name in ('accounts', 'containers', 'objects') and
              any(d.iterdir())]
    if built != part_power() and stored:
        raise LoopbackError(
            'swift: the rings of %s have 2^%d partitions, '
            'LOOPBACK_SWIFT_REPLICAS=%d needs 2^%d; the data stored '
            'under %s would be lost to them: start with --clean to '
            'wipe it (or keep the other LOOPBACK_SWIFT_REPLICAS, or use '
            'another LOOPBACK_DIR)' % (
                etc, built, replicas(), part_power(), devices))


def build_rings(etc: Path) -> None:
    """One device per set of servers in each ring, as many replicas;
    built again only when the ports or the replica count change."""
    if replicas() == 1:
        by_kind = {k: ports()[k] for k in STORAGE}
    else:
        by_kind = {k: [ports()[s] for s in servers() if kind(s) == k]
                   for k in STORAGE}
    spec = {'host': HOST, 'part_power': part_power(),
            'etc': str(etc),
            'ports': by_kind}
    stamp = etc / RINGS_STAMP
    rings = [etc / (k + '.ring.gz') for k in spec['ports']]
    wanted = json.dumps(spec, sort_keys=True)
    if stamp.exists() and stamp.read_text() == wanted and \
            all(r.exists() for r in rings):
        return
    subprocess.run([str(venv_dir('swift') / 'bin' / 'python'), '-c',
                    RING_SCRIPT, json.dumps(spec)], check=True)
    stamp.write_text(wanted)
