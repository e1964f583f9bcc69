"""Swift's log sink: syslog datagrams on 127.0.0.1 UDP ports, appended as
one line each to a file per port (``loopback _syslog-sink``, started by the
swift service).  ``PORT/TAG=FILE`` sends a port's lines whose syslog tag is
TAG (e.g. ``container-replicator``, Swift's log_name) to a file of their
own; the port's other lines go to its ``PORT=FILE``."""

from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path
import selectors
import signal
import socket
import sys

from .common import HOST
from .common import LoopbackError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--ready', help='file to create once listening')
    parser.add_argument('--bare', action='append', metavar='PORT=FILE',
                        help='write the message alone (no syslog tag)')
    parser.add_argument('--stamped', action='append',
                        metavar='PORT[/TAG]=FILE',
                        help='write local time, syslog tag and message '
                        '(/TAG: only the lines with that syslog tag)')


def main(args: argparse.Namespace) -> int:
    sel = selectors.DefaultSelector()
    specs = [(s, False) for s in args.bare or []] + \
            [(s, True) for s in args.stamped or []]
    if not specs:
        raise LoopbackError('_syslog-sink: give --bare/--stamped PORT=FILE')
    routes: dict[int, dict[str | None, tuple]] = {}
    for spec, stamped in specs:
        where, _, filename = spec.partition('=')
        port, _, only = where.partition('/')
        out = open(filename, 'a', buffering=1, encoding='utf-8',
                   errors='replace')
        routes.setdefault(int(port), {})[only or None] = (out, stamped)
    for port, by_tag in routes.items():
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            # a large buffer so bursts of log lines are not dropped
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        except OSError:
            pass
        sock.bind((HOST, port))
        # lines with another tag: the port's untagged file (else the first)
        by_tag.setdefault(None, next(iter(by_tag.values())))
        sel.register(sock, selectors.EVENT_READ, by_tag)
    if args.ready:
        Path(args.ready).write_text('%d\n' % os.getpid())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        for key, _ in sel.select():
            by_tag = key.data
            while True:
                try:
                    data = key.fileobj.recv(65535, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    break
                out, stamped = by_tag.get(tag(data)) or by_tag[None]
                out.write(line(data, stamped) + '\n')


def tag(data: bytes) -> str | None:
    """The syslog tag of a datagram ("<134>object-updater: ..."), if any."""
    text = data[:100].decode('utf-8', 'replace')
    if text.startswith('<'):
        text = text[text.find('>') + 1:]
    name, sep, _ = text.partition(': ')
    return name if sep and ' ' not in name else None


def line(data: bytes, stamped: bool) -> str:
    text = data.decode('utf-8', 'replace').rstrip('\x00\r\n')
    if text.startswith('<'):       # syslog priority: <134>
        end = text.find('>')
        if 0 < end < 5:
            text = text[end + 1:]
    text = text.replace('\n', '#012')
    if stamped:
        return '%s %s' % (datetime.datetime.now().isoformat(
            timespec='milliseconds'), text)
    name, sep, rest = text.partition(': ')   # drop the tag: "name: "
    return rest if sep and ' ' not in name else text
