"""Accept TCP connections on HOST PORT and run COMMAND for each, the
connection as its stdin and stdout (inetd's "nowait" mode).

The loopback sshd runs this way (``sshd -i`` under ``unshare --net``,
see sshd.py): each session gets a network namespace of its own, so a
validation logged in to the "deployed server" reaches none of the
services on the undercloud's 127.0.0.1, which its sandbox's egress proxy
keeps it from too.  Run as a script (standard library only):

    python3 inetd.py HOST PORT -- COMMAND...

SIGTERM ends it at once; sessions already open go on until they end.
"""

import signal
import socket
import subprocess
import sys


def main(argv):
    host, port, dashes, *command = argv
    if dashes != '--' or not command:
        sys.exit('usage: inetd.py HOST PORT -- COMMAND...')
    # the kernel reaps the sessions; SIGTERM's default ends us
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with socket.create_server((host, int(port)), backlog=64) as server:
        while True:
            conn, _ = server.accept()
            with conn:
                try:
                    subprocess.Popen(command, stdin=conn, stdout=conn,
                                     close_fds=True)
                except OSError as exc:  # this session only
                    print('inetd: %s: %s' % (command[0], exc),
                          file=sys.stderr, flush=True)


if __name__ == '__main__':
    main(sys.argv[1:])
