"""Real OpenStack services on 127.0.0.1, for functional tests, benchmarks
and the demo.

Standard library only (Python 3.11): it runs with the system python3
before any virtualenv exists.  Each service is a module (postgres,
keystone, swift, rabbitmq, sshd, mistral, heat, ironic) with a
service.Service subclass, registered in registry.py; the subcommands
(cli.py) iterate that registry.  Python services run from their own
virtualenv under ``$LOOPBACK_CACHE/venvs/<name>``, installed from PyPI on
first use with the pins in requirements/; RabbitMQ, PostgreSQL and sshd
are Debian's packages (``tools/bootstrap.sh`` installs them), run as
private instances, not as the system services.  Configuration files are
rendered from templates/.  Every service keeps its configuration, data,
logs and pid files under the state directory ``$LOOPBACK_DIR``.  No
password or key is fixed: each is made at random once per state
directory, in ``<state>/secrets.json`` (mode 0600, credentials.py); the
client's is in ``<state>/clouds.yaml``.

Usage::

    python3 tools/loopback install [SERVICE...]  # what start installs
    python3 tools/loopback start [--clean] [SERVICE...]  # idempotent
    python3 tools/loopback stop [SERVICE...]     # by PID, safe to repeat
    python3 tools/loopback status [SERVICE...]   # exit 3 if not running
    python3 tools/loopback env                   # shell export lines
    python3 tools/loopback logs [SERVICE...]     # the log files
    python3 tools/loopback down SERVER...        # stop one server, by PID
    python3 tools/loopback up SERVER...          # start it again
    eval "$(python3 tools/loopback env)"

SERVICE is postgres, keystone, swift, rabbitmq, sshd, mistral, heat or
ironic (default: all).  sshd is the "deployed server" validations log in
to (see sshd.py): Mistral started after it is configured for it.
``start mistral`` (or heat) starts rabbitmq and postgres first, ``start
ironic`` postgres, and swift, mistral, heat and ironic start
keystone first (``--clean`` wipes only the services named); ``stop
rabbitmq`` (or postgres, keystone) stops what needs it first.  Keystone
guards the others unless LOOPBACK_KEYSTONE=0 (see keystone.py): ``start``
records the mode, ``env`` follows it.
``install`` does only what ``start`` installs first (the venvs, this
checkout in Mistral's; the system programs checked): the one step that
needs more than 127.0.0.1, which tools/run-tests.sh takes before its
tests run in a network namespace of ``lo`` alone (tools/netns.py), where
``start`` then runs every service.
SERVER (``down``, ``up``) is one process of a running service, e.g.
swift-object-server-2 (``status`` lists them).
``start``, ``stop``, ``down`` and ``up`` hold ``<state>/lock``: a second
one at the same time waits for the first.

Environment:

    LOOPBACK_CACHE   virtualenvs + downloads (def. ~/.cache/tripleoplanclient)
    LOOPBACK_DIR     state directory          (default <repo>/.loopback)
    LOOPBACK_PYTHON  interpreter for the venvs (default: the one running this)
    LOOPBACK_SWIFT_PORT (18080), LOOPBACK_SWIFT_OBJECT_PORT (16010),
    LOOPBACK_SWIFT_CONTAINER_PORT (16011), LOOPBACK_SWIFT_ACCOUNT_PORT (16012),
    LOOPBACK_MEMCACHED_PORT (16013), LOOPBACK_SWIFT_LOG_PORT (16014; the log
    sink uses this port and the next five), LOOPBACK_MEMCACHED=0 to never run
    memcached even when it is on PATH, LOOPBACK_SWIFT_REPLICAS (1 or 3; with
    3, the other two sets of servers use the ports + 100 and + 200, the log
    sink six more ports, and replicators and updaters run; see swift_sets.py),
    LOOPBACK_SWIFT_RSYNC_PORT (16026; 3 replicas, rsync on PATH only).
    LOOPBACK_RABBITMQ_PORT (AMQP, 16672), LOOPBACK_RABBITMQ_DIST_PORT (Erlang
    distribution, 16673), LOOPBACK_EPMD_PORT (16369),
    LOOPBACK_POSTGRES_PORT (15432), LOOPBACK_PG_BINDIR (default: the newest
    /usr/lib/postgresql/*/bin), LOOPBACK_KEYSTONE (1; 0: no Keystone),
    LOOPBACK_KEYSTONE_PORT (15000), LOOPBACK_KEYSTONE_TOKEN_EXPIRATION
    (3600 s), LOOPBACK_MISTRAL_PORT (18989), LOOPBACK_HEAT_PORT (18004),
    LOOPBACK_IRONIC_PORT (16385), LOOPBACK_SSHD_PORT (16022).

Everything binds 127.0.0.1 only (epmd adds [::1] on its own port: it always
listens on the loopback addresses).  ``stop`` signals only the PIDs recorded
in ``<state>/pids/*.pid`` (see process.py).
"""
