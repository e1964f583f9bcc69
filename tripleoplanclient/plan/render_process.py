"""Render a plan in a child process, bounded as a whole.

The sandbox bounds single operations, but a template can still loop for
hours or keep many values under that bound, and a Mistral executor cannot
stop its action's thread. So ``render`` forks a child for each render:
its address space may grow by ``limits.memory`` and its CPU time is
limited (rlimits), the parent kills it at ``limits.seconds`` of wall
time, and whichever bound stops it, the error names the template it was
rendering. The executor itself only waits, and renders the next plan as
usual.

The child asks the parent for every object it reads (the parent's Swift
connections and cache serve it; the child uses no socket of its own), and
sends back the outputs and the templates it compiled, which the parent
adds to its cache: the next render forks with them. Without ``os.fork``
the render runs in process, with the output bound only.
"""

import gc
import marshal
import os
import select
import signal
import struct
import time

from tripleoplanclient.plan import rendering

_HEAD = struct.Struct('>cI')    # kind, payload length
_FIELD = struct.Struct('>I')
# what the child sends: T the output it starts, R read a path, C compiled
# code, O an output, E the error, D done; the parent answers R with
# K the content or N no such object.


def render(paths, read, roles_path=rendering.DEFAULT_ROLES,
           networks_path=rendering.DEFAULT_NETWORKS[0],
           limits=rendering.LIMITS):
    """``rendering.render`` within ``limits``; the same result, or a
    ``RenderError`` naming the template that went past a bound."""
    paths = frozenset(paths)
    if not hasattr(os, 'fork'):
        return rendering.render(paths, read, roles_path, networks_path,
                                limits.output)
    down_r, down_w = os.pipe()      # parent -> child
    up_r, up_w = os.pipe()          # child -> parent
    try:
        pid = os.fork()
    except OSError as exc:
        for fd in (down_r, down_w, up_r, up_w):
            os.close(fd)
        raise rendering.RenderError(
            'Could not start the process of the render (%s): retry when '
            'the executor has more memory or processes to spare.' % exc)
    if pid == 0:                    # the child: never returns
        status = 1
        try:
            os.close(down_w)
            os.close(up_r)
            status = _child(paths, roles_path, networks_path, limits,
                            down_r, up_w)
        finally:
            os._exit(status)
    os.close(down_r)
    os.close(up_w)
    parent = _Parent(pid, up_r, down_w, read, limits)
    try:
        return parent.run()
    finally:
        os.close(up_r)
        os.close(down_w)
        parent.reap()


# The child ------------------------------------------------------------

def _child(paths, roles_path, networks_path, limits, down, up):
    # The parent's objects are not the child's to collect (no finalizer of
    # the executor's runs here, fewer pages copied); its sockets are not
    # the child's to use.
    gc.freeze()
    _close_other_fds(down, up)
    # The executor's own handlers (a service's graceful stop) are not the
    # child's: a signal ends it.
    for name in ('SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2',
                 'SIGALRM'):
        try:
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        except (AttributeError, ValueError, OSError):
            pass
    _limit(limits)
    known = rendering.BYTECODE_CACHE.snapshot()
    current = [None]

    def read(path):
        _send(up, b'R', path.encode('utf-8'))
        kind, fields = _receive(down)
        if kind != b'K':
            raise KeyError(path)
        return fields[0]

    def progress(out_path):
        current[0] = out_path
        _send(up, b'T', out_path.encode('utf-8'))

    outputs = error = None
    try:
        outputs = rendering.render(paths, read, roles_path, networks_path,
                                   limits.output, progress)
    except rendering.RenderError as exc:
        error = str(exc)
        if isinstance(exc.__cause__, MemoryError):
            error = _memory_error(current[0], limits)
    except MemoryError:
        error = _memory_error(current[0], limits)
    except Exception as exc:
        error = 'Rendering failed at %s: %s: %s' % (
            current[0] or 'its data', type(exc).__name__, exc)
    for key, (checksum, code) in rendering.BYTECODE_CACHE.since(known).items():
        _send(up, b'C', key.encode('utf-8'), checksum.encode('utf-8'),
              marshal.dumps(code))
    if error is not None:
        _send(up, b'E', error.encode('utf-8'))
        return 0
    for path, data in outputs.items():
        _send(up, b'O', path.encode('utf-8'), data)
    _send(up, b'D')
    return 0


def _memory_error(out_path, limits):
    return ('%s needs more than %s of memory, the bound of one render: '
            'make it build less.' % (
                'Template %s' % out_path if out_path else 'The render',
                rendering.size(limits.memory)))


def _close_other_fds(*keep):
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, _max_fd())


def _max_fd():
    try:
        return os.sysconf('SC_OPEN_MAX')
    except (ValueError, OSError):
        return 65536


def _limit(limits):
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # The bound is on what the render adds to the executor's own size.
    try:
        with open('/proc/self/statm') as statm:
            size = int(statm.read().split()[0]) * os.sysconf('SC_PAGE_SIZE')
    except (OSError, ValueError):
        size = None
    if size is not None:
        _lower(resource, resource.RLIMIT_AS, size + limits.memory)
    # A backstop for the wall-time kill, should the parent be gone.
    _lower(resource, resource.RLIMIT_CPU, int(limits.seconds) + 2)


def _lower(resource, which, soft):
    current, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    if current == resource.RLIM_INFINITY or soft < current:
        resource.setrlimit(which, (soft, hard))


def _send(fd, kind, *fields):
    payload = b''.join(_FIELD.pack(len(f)) + f for f in fields)
    _write_all(fd, _HEAD.pack(kind, len(payload)) + payload)


def _write_all(fd, data, deadline=None):
    view = memoryview(data)
    while view:
        if deadline is not None:
            _wait(fd, select.POLLOUT, deadline)
        view = view[os.write(fd, view):]


def _read_exact(fd, count):
    parts = []
    while count:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            raise EOFError()
        parts.append(chunk)
        count -= len(chunk)
    return b''.join(parts)


def _receive(fd):
    kind, length = _HEAD.unpack(_read_exact(fd, _HEAD.size))
    return kind, _fields(_read_exact(fd, length))


def _fields(payload):
    fields, at = [], 0
    while at < len(payload):
        (length,) = _FIELD.unpack_from(payload, at)
        at += _FIELD.size
        fields.append(payload[at:at + length])
        at += length
    return fields


# The parent -----------------------------------------------------------

class _Timeout(Exception):
    pass


def _wait(fd, event, deadline):
    poll = select.poll()
    poll.register(fd, event | select.POLLHUP | select.POLLERR)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Timeout()
        if poll.poll(max(1, int(left * 1000))):
            return


class _Parent:
    """Serves the child's reads and collects what it sends, until it is
    done, fails or goes past the wall-time bound."""

    def __init__(self, pid, up, down, read, limits):
        self.pid, self.up, self.down = pid, up, down
        self.read, self.limits = read, limits
        self.deadline = time.monotonic() + limits.seconds
        self.buffer = bytearray()
        self.current = None
        self.reaped = False
        self.status = None
        # What a sane child sends at most: the outputs, plus its code.
        self.budget = 2 * limits.output + 64 * 1024 * 1024

    def run(self):
        os.set_blocking(self.down, False)
        outputs = {}
        try:
            while True:
                kind, fields = self._next()
                if kind == b'T':
                    self.current = fields[0].decode('utf-8')
                elif kind == b'R':
                    self._serve(fields[0].decode('utf-8'))
                elif kind == b'C':
                    rendering.BYTECODE_CACHE.add(
                        fields[0].decode('utf-8'), fields[1].decode('utf-8'),
                        marshal.loads(fields[2]))
                elif kind == b'O':
                    outputs[fields[0].decode('utf-8')] = bytes(fields[1])
                elif kind == b'E':
                    raise rendering.RenderError(fields[0].decode('utf-8'))
                elif kind == b'D':
                    return outputs
        except _Timeout:
            raise rendering.RenderError(
                '%s ran past %s s of wall time, the bound of one render: '
                'make it do less.' % (self._what(), self.limits.seconds))
        except (EOFError, BrokenPipeError):
            pass
        # Its pipe closes a moment before it can be waited for.
        raise rendering.RenderError(self._died(self.reap(grace=2)))

    def reap(self, grace=0):
        """The child's exit status, None when it had to be killed."""
        if not self.reaped:
            end = time.monotonic() + grace
            while True:
                pid, self.status = os.waitpid(self.pid, os.WNOHANG)
                if pid or time.monotonic() >= end:
                    break
                time.sleep(0.01)
            if not pid:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.status = None
            self.reaped = True
        return self.status

    def _what(self):
        return ('Template %s' % self.current if self.current
                else 'The render')

    def _died(self, status):
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return ('%s used more than %s s of CPU time, the bound of '
                        'one render: make it do less.'
                        % (self._what(), self.limits.seconds))
            # SIGKILL: the kernel's OOM killer, most likely.
            return ('%s stopped the render (signal %d): it may need more '
                    'memory than %s, the bound of one render.'
                    % (self._what(), sig, rendering.size(self.limits.memory)))
        return '%s stopped the render.' % self._what()

    def _serve(self, path):
        try:
            data = self.read(path)
        except KeyError:
            data = None
        if data is None:
            reply = _HEAD.pack(b'N', 0)
        else:
            reply = _HEAD.pack(b'K', _FIELD.size + len(data)) + \
                _FIELD.pack(len(data)) + data
        _write_all(self.down, reply, self.deadline)

    def _next(self):
        while True:
            if len(self.buffer) >= _HEAD.size:
                kind, length = _HEAD.unpack_from(self.buffer)
                if length > self.budget:
                    raise EOFError()
                end = _HEAD.size + length
                if len(self.buffer) >= end:
                    payload = bytes(self.buffer[_HEAD.size:end])
                    del self.buffer[:end]
                    self.budget -= length
                    return kind, _fields(payload)
            _wait(self.up, select.POLLIN, self.deadline)
            chunk = os.read(self.up, 1 << 20)
            if not chunk:
                raise EOFError()
            self.buffer += chunk
