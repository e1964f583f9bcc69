"""Accept TCP connections on HOST[,HOST...] PORT and run COMMAND for each,
the connection as its stdin and stdout (inetd's "nowait" mode).

The loopback sshd runs this way (``sshd -i`` under ``unshare --net``,
see sshd.py): each session gets a network namespace of its own, so a
validation logged in to the "deployed server" reaches none of the
services on the undercloud's 127.0.0.1, which its sandbox's egress proxy
keeps it from too.  Every argument ``{address}`` of COMMAND is replaced
by the local address the connection came to (each address a server of
its own: sshd.py).  Run as a script (standard library only):

    python3 inetd.py HOST[,HOST...] PORT -- COMMAND...

SIGTERM ends it at once; sessions already open go on until they end.
"""

import selectors
import signal
import socket
import subprocess
import sys

ADDRESS = '{address}'


def main(argv):
    hosts, port, dashes, *command = argv
    if dashes != '--' or not command:
        sys.exit('usage: inetd.py HOST[,HOST...] PORT -- COMMAND...')
    # the kernel reaps the sessions; SIGTERM's default ends us
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    waiting = selectors.DefaultSelector()
    for host in hosts.split(','):
        server = socket.create_server((host, int(port)), backlog=64)
        waiting.register(server, selectors.EVENT_READ)
    while True:
        for key, _ in waiting.select():
            try:
                conn, _ = key.fileobj.accept()
            except OSError:
                continue
            with conn:
                address = conn.getsockname()[0]
                argv = [address if a == ADDRESS else a for a in command]
                try:
                    subprocess.Popen(argv, stdin=conn, stdout=conn,
                                     close_fds=True)
                except OSError as exc:  # this session only
                    print('inetd: %s: %s' % (argv[0], exc),
                          file=sys.stderr, flush=True)


if __name__ == '__main__':
    main(sys.argv[1:])
