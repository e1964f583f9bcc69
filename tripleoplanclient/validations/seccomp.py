"""The seccomp filter of the validations' sandbox (``sandbox``).

A classic BPF program, handed to bwrap (``--seccomp FD``), that answers
EPERM to the system calls a playbook has no use for and that reach the
kernel's less guarded parts: keyrings (not namespaced), eBPF,
perf events, userfaultfd, io_uring, module and kexec loading, mounts and
the new mount API, namespaces (``unshare``, ``setns``), ptrace and
cross-process memory, swap, reboot, accounting, quotas, file handles.
A call of another architecture (x32, or a foreign ABI) ends the
process. Only for x86_64 and aarch64, whose numbers are below; on
another machine there is no filter (the rest of the sandbox holds).
"""

import os
import platform
import struct

# AUDIT_ARCH_* and the numbers of the calls refused, per machine
_ARCH = {
    'x86_64': (0xc000003e, {
        'keyctl': 250, 'add_key': 248, 'request_key': 249, 'bpf': 321,
        'perf_event_open': 298, 'userfaultfd': 323, 'kexec_load': 246,
        'kexec_file_load': 320, 'init_module': 175, 'finit_module': 313,
        'delete_module': 176, 'mount': 165, 'umount2': 166,
        'pivot_root': 155, 'swapon': 167, 'swapoff': 168, 'reboot': 169,
        'acct': 163, 'quotactl': 179, 'open_by_handle_at': 304,
        'name_to_handle_at': 303, 'setns': 308, 'unshare': 272,
        'ptrace': 101, 'process_vm_readv': 310, 'process_vm_writev': 311,
        'io_uring_setup': 425, 'io_uring_enter': 426,
        'io_uring_register': 427, 'open_tree': 428, 'move_mount': 429,
        'fsopen': 430, 'fsconfig': 431, 'fsmount': 432, 'fspick': 433}),
    'aarch64': (0xc00000b7, {
        'keyctl': 219, 'add_key': 217, 'request_key': 218, 'bpf': 280,
        'perf_event_open': 241, 'userfaultfd': 282, 'kexec_load': 104,
        'kexec_file_load': 294, 'init_module': 105, 'finit_module': 273,
        'delete_module': 106, 'mount': 40, 'umount2': 39, 'pivot_root': 41,
        'swapon': 224, 'swapoff': 225, 'reboot': 142, 'acct': 89,
        'quotactl': 60, 'open_by_handle_at': 265, 'name_to_handle_at': 264,
        'setns': 268, 'unshare': 97, 'ptrace': 117,
        'process_vm_readv': 270, 'process_vm_writev': 271,
        'io_uring_setup': 425, 'io_uring_enter': 426,
        'io_uring_register': 427, 'open_tree': 428, 'move_mount': 429,
        'fsopen': 430, 'fsconfig': 431, 'fsmount': 432, 'fspick': 433}),
}
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_ALLOW, _KILL_PROCESS = 0x7fff0000, 0x80000000
_ERRNO_EPERM = 0x00050000 | 1
# x86_64's x32 ABI: the same calls under other numbers
_X32_BIT = 0x40000000


def refused(machine=None):
    """``{name: number}`` of the calls refused here; {} when this
    machine has no filter."""
    found = _ARCH.get(machine or platform.machine())
    return dict(found[1]) if found else {}


def program(machine=None):
    """The filter's bytes (``struct sock_filter`` array), or None."""
    machine = machine or platform.machine()
    if machine not in _ARCH:
        return None
    arch, calls = _ARCH[machine]
    numbers = sorted(set(calls.values()))
    checks = [(_JGE_K, _X32_BIT)] if machine == 'x86_64' else []
    checks += [(_JEQ_K, n) for n in numbers]
    # 0 ld arch; 1 arch?; 2 kill; 3 ld nr; checks...; allow; deny
    deny = 4 + len(checks) + 1
    out = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch),
           (_RET_K, 0, 0, _KILL_PROCESS), (_LD_W_ABS, 0, 0, 0)]
    for index, (code, k) in enumerate(checks, start=4):
        out.append((code, deny - index - 1, 0, k))
    out += [(_RET_K, 0, 0, _ALLOW), (_RET_K, 0, 0, _ERRNO_EPERM)]
    return b''.join(struct.pack('=HBBI', *ins) for ins in out)


def pipe(machine=None):
    """A file descriptor to read the filter from (bwrap's ``--seccomp``;
    the caller passes it on and closes it), or None."""
    data = program(machine)
    if data is None:
        return None
    read, write = os.pipe()
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return read
