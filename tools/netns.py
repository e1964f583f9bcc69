"""Run a command in a network namespace of its own, where only ``lo`` is
up: nothing it starts can send a packet past 127.0.0.0/8 (and ::1); a
connection to any other address fails at once with "Network is
unreachable" instead of leaving the machine.

    python3 tools/netns.py [--optional] -- COMMAND [ARG]...
    python3 tools/netns.py check

As root (CI), the namespace is a new network namespace alone; otherwise a
user namespace as well, which maps the caller's own uid and gid to
themselves (not to root: the sandbox tests see the user they run as) and
gives this process the right to bring ``lo`` up before COMMAND is
executed.  Where the kernel refuses a user namespace to non-root users,
``--optional`` runs COMMAND as it is, and says so on stderr (the ``unit``
mode of tools/run-tests.sh); without it, that is an error (exit 1).

``check`` (run inside) proves the isolation: ``lo`` is the only
interface, and only then a connection to 192.0.2.1:9 (TEST-NET-1) is
tried, which must fail with ENETUNREACH in well under a second.  Exit 0
and one line on stdout, or exit 1 and why on stderr.

Standard library only; Linux only (unshare(2) through ctypes).
"""

import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys
import time

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
# The variable a command in the namespace finds set (run-tests.sh reads
# it; a second netns.py inside does not nest another).
MARK = 'TRIPLEOPLAN_NETNS'
# Tried only once lo is the one interface: no packet can leave then.
PROBE = ('192.0.2.1', 9)


def _unshare(flags):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def _lo_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        asked = struct.pack('16sH14x', b'lo', 0)
        flags = struct.unpack('16sH14x', fcntl.ioctl(
            s, SIOCGIFFLAGS, asked))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack('16sH14x', b'lo',
                                                 flags | IFF_UP))


def enter():
    """Move this process into a new network namespace, ``lo`` up."""
    if os.geteuid() == 0:
        _unshare(CLONE_NEWNET)
    else:
        uid, gid = os.geteuid(), os.getegid()
        _unshare(CLONE_NEWUSER | CLONE_NEWNET)
        _write('/proc/self/setgroups', 'deny')
        _write('/proc/self/uid_map', '%d %d 1\n' % (uid, uid))
        _write('/proc/self/gid_map', '%d %d 1\n' % (gid, gid))
    _lo_up()


def check():
    """'' when isolated as promised, else why not."""
    names = sorted(name for _, name in socket.if_nameindex())
    if names != ['lo']:
        return 'interfaces %s: not a namespace of lo alone' % ', '.join(
            names)
    begin = time.monotonic()
    with socket.socket() as s:
        s.settimeout(5)
        try:
            s.connect(PROBE)
        except OSError as exc:
            took = time.monotonic() - begin
            if exc.errno != errno.ENETUNREACH:
                return '%s:%d: %s (not ENETUNREACH)' % (PROBE + (exc,))
            if took > 0.5:
                return '%s:%d: unreachable after %.1f s' % (PROBE + (took,))
            return ''
    return '%s:%d: connected' % PROBE


def main(argv):
    if argv == ['check']:
        why = check()
        if why:
            print('netns check: %s' % why, file=sys.stderr)
            return 1
        print('network namespace: lo only; %s:%d: Network is unreachable '
              '(checked)' % PROBE)
        return 0
    optional = argv[:1] == ['--optional']
    argv = argv[1:] if optional else argv
    if argv[:1] != ['--'] or len(argv) < 2:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    command = argv[1:]
    if os.environ.get(MARK) != '1':
        try:
            enter()
        except OSError as exc:
            if not optional:
                print('netns: no network namespace of its own (%s): as '
                      'root, or where user namespaces are allowed' % exc,
                      file=sys.stderr)
                return 1
            print('netns: no network namespace of its own (%s): %s runs '
                  'on the machine\'s network' % (exc, command[0]),
                  file=sys.stderr)
        else:
            os.environ[MARK] = '1'
    os.execvp(command[0], command)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
