"""The loopback Swift's configuration files (swift.py writes and runs them).

* Proxy pipeline (the order of Swift 2.38's etc/proxy-server.conf-sample,
  minus container_sync, ratelimit, tempauth and account-quotas; ``cache`` only
  when memcached runs -- without it the proxy simply has no shared cache;
  ``authtoken keystoneauth`` with Keystone only)::

    catch_errors gatekeeper healthcheck proxy-logging [cache] listing_formats
    bulk tempurl [authtoken keystoneauth] copy container-quotas slo dlo
    versioned_writes symlink subrequest-logging proxy-server

* Request counting.  Swift logs through syslog; here every logger is pointed
  at a UDP port on 127.0.0.1 where ``_syslog-sink`` (this tool, one
  process) appends each datagram as one line to a file.  The two
  proxy_logging instances play different roles (see proxy_logging.py):
  the left-most one marks the WSGI environ as logged before passing the
  request on, so it logs every *client* request exactly once; the right-most
  one sees that mark for client requests and stays silent, but middleware
  subrequests (made with a fresh environ: bulk's per-object PUTs, slo/dlo
  segment GETs, versioned_writes copies, ...) reach it unmarked, so it logs
  those, with ``swift.source`` (e.g. ``EA`` for extract-archive) in the
  source field.  Both instances would share the logger route
  ``proxy-access`` by default (and Swift keeps one handler per route, last one
  configured wins), so the right-most one gets its own section and route:

    <state>/swift/proxy-access.log          client requests, one line each
    <state>/swift/logs/proxy-subrequests.log middleware subrequests

  The healthcheck filter sits left of proxy-logging, so /healthcheck polls
  are not logged; /info is.

* memcached (only when on PATH) caches account/container info for
  recheck_*_existence (60 s): container_quotas then checks against a cached
  object count, e.g. a bulk upload of 2 objects into a container holding 1
  with Quota-Count 2 stores both.  Without memcached every object PUT makes
  fresh HEAD subrequests (account + container), so the count is exact.

  The proxy logs a request after the last byte of its response went out, so
  a client that counts lines right after its last response may be a few
  milliseconds early: wait until the count stops moving.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from . import keystone
from .common import HOST
from .common import LoopbackError
from .common import render
from .swift_sets import log_ports
from .swift_sets import OBJECT_REPLICATOR_INTERVAL
from .swift_sets import ports
from .swift_sets import replicas
from .swift_sets import server_name
from .swift_sets import SET_PORT_STEP
from .swift_sets import STORAGE

PIPELINE = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging',
            'cache', 'listing_formats', 'bulk', 'tempurl', 'copy',
            'container-quotas', 'slo', 'dlo', 'versioned_writes', 'symlink',
            'subrequest-logging', 'proxy-server']


def files(swift, cache: bool) -> dict[str, str]:
    """Each configuration file's text by its path under the directory of
    ``swift`` (swift.Swift, whose paths it reads); ``cache``: memcached
    runs."""
    lp = log_ports()
    taken: dict[int, str] = {}
    for name, port in ports().items():
        if port in taken:
            raise LoopbackError(
                'swift: %s and %s would both listen on port %d (set n '
                'of LOOPBACK_SWIFT_REPLICAS uses the first set\'s ports '
                '+ %d(n-1)): move one with %s' % (
                    taken[port], name, port, SET_PORT_STEP,
                    swift.port_variables))
        taken[port] = name

    def default(server: str, devices: Path = swift.devices) -> str:
        return render('swift/default.conf', host=HOST,
                      port=ports()[server], user=getpass.getuser(),
                      etc=swift.etc, devices=devices,
                      log_port=lp[server])
    files = {'etc/swift.conf': render('swift/swift.conf')}
    if replicas() == 1:
        for server in STORAGE:
            files['etc/%s.conf' % server_name(server)] = default(
                server) + render('swift/server.conf', server=server)
    else:
        files.update(replica_files(swift, default))
    pipeline = [f for f in PIPELINE if f != 'cache' or cache]
    if keystone.enabled():
        pipeline[pipeline.index('tempurl') + 1:1] = [
            'authtoken', 'keystoneauth']
        # tokens it validated: cached in the proxy (memcached would
        # need python-memcached)
        auth = render('swift/keystone.conf', authtoken=keystone.ini(
            keystone.authtoken('swift')))
        app_auth = ''
    else:
        auth = ''
        # No auth middleware makes no request a "swift owner"; without
        # this, Swift would hide and drop X-Account-Meta-Temp-URL-Key
        # and no temp URL could be signed (Heat's TEMP_URL_SIGNAL,
        # software deployment trigger).
        app_auth = 'swift_owner_headers = x-account-access-control\n'
    files['etc/proxy-server.conf'] = default('proxy') + render(
        'swift/proxy-server.conf', pipeline=' '.join(pipeline),
        app_auth=app_auth, host=HOST, access_port=lp['access'],
        subrequest_port=lp['subrequests'],
        memcached_port=ports()['memcached']) + auth
    return files


def replica_files(swift, default) -> dict[str, str]:
    """3 replicas: each set's server configuration files, with the
    sections of its daemons; the rsync daemon's."""
    files = {}
    for n in range(1, replicas() + 1):
        recon = swift.base / 'recon' / str(n)
        for server in STORAGE:
            name = server + ('-%d' % n if n > 1 else '')
            text = default(name, swift.node(n)) + render(
                'swift/server.conf', server=server)
            if server == 'object':
                text += render('swift/object-daemons.conf', recon=recon,
                               replicator_interval=(
                                   OBJECT_REPLICATOR_INTERVAL))
            else:
                text += render('swift/db-replicator.conf', server=server,
                               rsync_port=ports()['rsync'], recon=recon)
            files['etc/%s.conf' % server_name(name)] = text
    ids = ''
    if os.geteuid() == 0:       # else rsync stays the user it is
        ids = 'uid = root\ngid = root\n'
    files['etc/rsyncd.conf'] = render(
        'swift/rsyncd.conf', host=HOST, port=ports()['rsync'],
        devices=swift.devices, ids=ids,
        log=swift.base / 'logs' / 'rsyncd.log',
        lock=swift.base / 'rsyncd.lock')
    return files
