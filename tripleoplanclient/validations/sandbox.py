"""The bubblewrap (``bwrap``) sandbox every validation playbook runs in.

Playbooks are untrusted: any member of a project may write its
``tripleo-validations`` container or a plan's ``custom-validations/``.
So ``ansible-playbook`` runs in namespaces of its own (user, pid, mount,
ipc, uts, cgroup and network: its only way out is ``egress``'s proxy,
to the catalog's endpoints and the plan's servers; no further user
namespace: no root inside), as uid/gid 65534 without any capability
and under a seccomp filter (``seccomp``), on
a root that holds only an allowlist, read-only: the system (``/usr``),
the few files of ``/etc`` a program needs to resolve names and trust
certificates (the certificate directories, never ``/etc/ssl/private``),
the Python that runs Ansible and the stdout callback. Its own ``/proc``
and ``/dev``; its scratch (``HOME``, ``/tmp``) and the other writable
places are tmpfs of a bounded size, gone with the run: the runner
reads nothing there (results come through a pipe it holds). What the
runner hands in (the playbook, its variables and inventory, the egress
proxy's and the SSH agent's sockets) is one directory bound read-only
at ``INPUTS``. Nothing of the executor's home, Mistral's configuration
or the services' state is mounted, and the directories that hold
secrets are covered by an empty tmpfs wherever they would lie inside an
allowed tree. No private key is ever inside: the SSH login goes through
an agent the runner holds outside (``runner``).

There is no fallback: without a working bwrap nothing runs.
"""

import os
import subprocess
import sys

INSTALL = ('install the "bubblewrap" package where Mistral\'s executor '
           'runs (apt-get install bubblewrap, dnf install bubblewrap)')
NOBODY = '65534'
# what a program needs of /etc: users, name resolution, certificates
ETC = ('passwd', 'group', 'hosts', 'hostname', 'resolv.conf',
       'nsswitch.conf', 'host.conf', 'gai.conf', 'services', 'protocols',
       'localtime', 'timezone', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d',
       'alternatives', 'ssl/certs', 'ssl/openssl.cnf', 'ca-certificates',
       'ca-certificates.conf', 'pki/tls/certs', 'pki/tls/openssl.cnf',
       'pki/ca-trust/extracted', 'crypto-policies', 'os-release',
       'mime.types')
# top-level system trees (a symlink stays a symlink: merged /usr)
SYSTEM = ('usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32')
# what the runner hands in, read-only (``runner``)
INPUTS = '/run/tripleoplan'
# the scratch: the playbook's home and only sizeable writable place
HOME = '/tmp'
SCRATCH_BYTES = 256 * 1024 * 1024
# /var/tmp, /run, /dev/shm: writable too, small
SMALL_BYTES = 16 * 1024 * 1024


def secret_places(environ=None, config_files=None, hidden=()):
    """The directories that hold the executor's secrets: its home,
    /root, /etc/mistral, the directory of each configuration file
    Mistral was started with and ``hidden`` (those the operator names:
    ``[tripleoplan] validation_hidden_paths``)."""
    environ = os.environ if environ is None else environ
    if config_files is None:
        config_files = _mistral_config_files()
    found = [os.path.expanduser('~'), '/root', '/etc/mistral']
    found += [environ['HOME']] if environ.get('HOME') else []
    found += list(hidden)
    found += [os.path.dirname(os.path.abspath(f)) for f in config_files]
    return sorted({os.path.realpath(p) for p in found})


def _mistral_config_files():
    cfg = sys.modules.get('oslo_config.cfg')
    try:
        conf = cfg.CONF
        return list(conf.config_file or []) + (
            [conf.config_dir] if conf.config_dir else [])
    except Exception:
        return []


def _python_trees():
    trees = {sys.prefix, sys.exec_prefix, sys.base_prefix,
             sys.base_exec_prefix,
             os.path.dirname(os.path.dirname(os.path.realpath(
                 sys.executable)))}
    return sorted({os.path.realpath(t) for t in trees})


def _inside(path, tree):
    return path == tree or path.startswith(tree.rstrip('/') + '/')


def command(argv, inputs, readable=(), secrets=None, bwrap=None,
            scratch_bytes=SCRATCH_BYTES, seccomp_fd=None, writable=(),
            chdir=HOME):
    """The bwrap command line running ``argv`` in the sandbox: the
    directory ``inputs`` read-only at ``INPUTS``, ``readable`` trees
    mounted read-only beside the system and the Python, ``writable``
    ``(outside, inside)`` directories bound writable, a scratch of
    ``scratch_bytes`` at ``HOME``, the ``seccomp`` filter read from
    ``seccomp_fd`` (which the child must inherit) when given; ``argv``
    starts in ``chdir``."""
    import shutil
    secrets = secret_places() if secrets is None else secrets
    out = [bwrap or shutil.which('bwrap') or 'bwrap', '--unshare-all',
           '--unshare-user',
           '--disable-userns', '--assert-userns-disabled',
           '--uid', NOBODY, '--gid', NOBODY,
           '--cap-drop', 'ALL', '--die-with-parent', '--new-session']
    if seccomp_fd is not None:
        out += ['--seccomp', str(seccomp_fd)]
    for name in SYSTEM:
        path = '/' + name
        if os.path.islink(path):
            out += ['--symlink', os.readlink(path), path]
        elif os.path.isdir(path):
            out += ['--ro-bind', path, path]
    for name in ETC:
        out += ['--ro-bind-try', '/etc/' + name, '/etc/' + name]
    out += ['--proc', '/proc', '--dev', '/dev',
            '--size', str(scratch_bytes), '--tmpfs', HOME]
    for place in ('/var/tmp', '/run', '/dev/shm'):
        out += ['--size', str(SMALL_BYTES), '--tmpfs', place]
    trees = [os.path.realpath(t) for t in list(_python_trees()) +
             list(readable)]
    for tree in sorted(set(trees)):
        if not any(_inside(tree, t) for t in trees if t != tree):
            out += ['--ro-bind', tree, tree]
    # a secret directory inside an allowed tree (one above it is not
    # mounted at all): covered
    for place in secrets:
        if os.path.isdir(place) and any(
                _inside(place, t) and place != t for t in trees):
            out += ['--tmpfs', place]
    for outside, inside in writable:
        out += ['--bind', os.path.realpath(outside), inside]
    # the root itself (a tmpfs of bwrap's) read-only too
    out += ['--ro-bind', os.path.realpath(inputs), INPUTS,
            '--remount-ro', '/', '--chdir', chdir, '--']
    return out + list(argv)


def check(readable=(), bwrap='bwrap'):
    """None when the sandbox can be made here; else why, and what to
    install."""
    import shutil
    import tempfile
    program = shutil.which(bwrap)
    if program is None:
        return ('validations run sandboxed and bwrap is not installed: %s. '
                'Nothing was run.' % INSTALL)
    from tripleoplanclient.validations import seccomp
    filter_fd = seccomp.pipe()
    with tempfile.TemporaryDirectory(prefix='tripleoplan-sandbox-') as tmp:
        try:
            probe = subprocess.run(
                command(['true'], tmp, readable, secrets=[], bwrap=program,
                        seccomp_fd=filter_fd),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, timeout=30, env={'PATH': '/usr/bin'},
                pass_fds=() if filter_fd is None else (filter_fd,))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return 'bwrap could not start (%s): %s. Nothing was run.' % (
                exc, INSTALL)
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
    if probe.returncode != 0:
        return ('bwrap cannot create the validation sandbox here (%s): it '
                'needs user namespaces (or a setuid bwrap); %s. Nothing was '
                'run.' % (' '.join(probe.stderr.decode(
                    errors='replace').split())[-300:] or
                    'status %d' % probe.returncode, INSTALL))
    return None
