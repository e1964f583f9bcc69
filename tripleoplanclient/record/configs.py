"""A stack step's configuration (config-download) in the plan's record:
the names of its objects, its archive, and when a step configures.

Each stack step that configures (or downloads) keeps ONE tar.gz of the
Ansible tree its stack produced, ``user-environments/config/<step
id>.tar.gz``, written once: the same tree always the same bytes
(``pack``), so a past step's configuration can be shown, exported and
written out again (``unpack``) with one GET. While Ansible runs, its
progress goes into new objects ``user-environments/config/<step
id>/progress/<seq>.json`` (each written once, a JSON list of task
results): a client lists them after a marker and reads each once.

The archive comes from the plan's stack, which any project member may
write: ``unpack`` writes only regular files and directories inside the
target directory, bounded in count and size.
"""

import gzip
import hashlib
import io
import json
import os
import re
import stat
import tarfile
import zlib

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

PREFIX = layout.RECORD_DIR + 'config/'
# The stack outputs only config-download templates have (THT 17/18).
OUTPUTS = ('RoleData', 'RoleConfig')
# How a step configures: 'auto' when the outputs are config-download's,
# 'none' (--stack-only), 'setup' (--setup-only: the tree, no Ansible),
# 'only' (--config-download-only: no Heat).
MODES = ('auto', 'none', 'setup', 'only')
# Bounds of an archive a client extracts: a THT 18 tree is ~330 files,
# 3.6 MB.
MAX_MEMBERS = 20000
MAX_BYTES = 512 * 1024 * 1024
# Events in one progress object, at most.
MAX_EVENTS = 500
_STEP_ID = re.compile(r'[0-9a-f]{12}\Z')
_PROGRESS = re.compile(r'(\d{6})\.json\Z')


def _step(step_id):
    if not isinstance(step_id, str) or not _STEP_ID.match(step_id):
        raise exceptions.CommandError('%r is no step id.' % (step_id,))
    return step_id


def archive_path(step_id, config_type=None):
    """The archive of a step's tree; one of a tree limited to some
    ``config_type`` keys (``--config-type``) has their digest in its
    name."""
    if config_type:
        digest = hashlib.sha256('\n'.join(sorted(set(config_type))).encode(
            'utf-8')).hexdigest()[:16]
        return '%s%s-%s.tar.gz' % (PREFIX, _step(step_id), digest)
    return '%s%s.tar.gz' % (PREFIX, _step(step_id))


def progress_prefix(step_id):
    return '%s%s/progress/' % (PREFIX, _step(step_id))


def progress_path(step_id, seq):
    return '%s%06d.json' % (progress_prefix(step_id), seq)


def progress_seq(name, step_id):
    """The sequence number of a progress object's name (None: not one of
    step ``step_id``'s)."""
    prefix = progress_prefix(step_id)
    if not name.startswith(prefix):
        return None
    match = _PROGRESS.match(name[len(prefix):])
    return int(match.group(1)) if match else None


def has_config_outputs(outputs):
    """Whether stack outputs (Heat's list of ``{output_key,
    output_value}``, or a mapping) are config-download's."""
    if isinstance(outputs, list):
        keys = {o.get('output_key') for o in outputs if isinstance(o, dict)}
    else:
        keys = set(outputs or ())
    return any(k in keys for k in OUTPUTS)


def configures(mode, stack_status, outputs):
    """Whether configuration follows a stack operation that ended in
    ``stack_status`` with ``outputs``: never after a failure, always
    when asked to set up or configure only, else (``auto``) when the
    outputs are config-download's."""
    if mode in (None, 'none') or not (stack_status or '').endswith(
            '_COMPLETE'):
        return False
    return mode in ('setup', 'only') or has_config_outputs(outputs)


def pack(files):
    """The tar.gz of ``{relative path: (bytes, mode)}``: members sorted,
    no time, owner or name of who wrote it: the same files, the same
    bytes."""
    raw = io.BytesIO()
    with gzip.GzipFile(filename='', mode='wb', fileobj=raw, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode='w',
                          format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(files):
                data, mode = files[path]
                problem = layout.unsafe_name(path)
                if problem or path.startswith('/') or '..' in \
                        path.split('/'):
                    raise exceptions.CommandError(
                        'The configuration tree names %r: %s.' % (
                            path, problem or 'not inside the tree'))
                info = tarfile.TarInfo(path)
                info.size = len(data)
                info.mode = (mode or 0o644) & 0o755
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def _member_problem(member):
    name = member.name
    parts = name.split('/')
    if not name or name.startswith('/') or '\x00' in name or \
            any(p in ('', '.', '..') for p in parts if p != parts[-1]) or \
            parts[-1] in ('.', '..'):
        return 'a path outside the directory'
    if not (member.isfile() or member.isdir()):
        return 'neither a file nor a directory'
    return None


def _open_dir(root_fd, parts):
    """A descriptor of directory ``parts`` under ``root_fd``, made when
    missing; a symbolic link on the way is refused (O_NOFOLLOW)."""
    fd = os.dup(root_fd)
    try:
        for part in parts:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY |
                            os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def unpack(data, directory, what):
    """Write archive ``data`` (``pack``'s) into ``directory`` (made when
    missing; files it holds that the archive names are replaced, others
    stay). Only regular files and directories, each inside
    ``directory`` (no symbolic link followed), modes kept without
    set-id bits; bounded. ``(files, bytes)`` written. ``what``: the
    archive, for messages."""
    os.makedirs(directory, exist_ok=True)
    root = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    count = total = written = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode='r:gz') as tar:
            for member in tar:
                problem = _member_problem(member)
                count += 1
                total += max(member.size, 0)
                if problem is None and (count > MAX_MEMBERS or
                                        total > MAX_BYTES):
                    problem = 'more than %d files or %d bytes' % (
                        MAX_MEMBERS, MAX_BYTES)
                if problem:
                    raise exceptions.CommandError(
                        '%s holds %r: %s. Nothing more was written.'
                        % (what, member.name, problem))
                parts = member.name.rstrip('/').split('/')
                if member.isdir():
                    os.close(_open_dir(root, parts))
                    continue
                parent = _open_dir(root, parts[:-1])
                try:
                    _write(parent, parts[-1], tar.extractfile(member),
                           member.mode & 0o755)
                finally:
                    os.close(parent)
                written += 1
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise exceptions.CommandError('%s cannot be written into %s: %s'
                                      % (what, directory, exc))
    finally:
        os.close(root)
    return written, total


def _write(parent, name, source, mode):
    try:
        found = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise OSError('%s exists and is no regular file' % name)
    if found is not None:
        os.unlink(name, dir_fd=parent)
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                 mode, dir_fd=parent)
    with os.fdopen(fd, 'wb') as out:
        # the archive's mode, whatever this process's umask
        os.fchmod(out.fileno(), mode)
        while True:
            chunk = source.read(1 << 20)
            if not chunk:
                break
            out.write(chunk)


def dump_events(events):
    """A progress object's bytes."""
    return json.dumps(list(events), sort_keys=True).encode('utf-8')


def load_events(data):
    """A progress object's events (what is not one is skipped)."""
    try:
        found = json.loads(data)
    except (TypeError, ValueError):
        return []
    return [e for e in found if isinstance(e, dict)][:MAX_EVENTS] \
        if isinstance(found, list) else []


# -- what a step's record shows of its configuration -------------------

def shown(config):
    """A step's config part as show-history shows it: how it was asked
    (mode, tags, limit...), its status, per host counts, the number of
    failures (``overcloud failures`` lists them); {} for a step that
    configured nothing."""
    config = dict(config or {})
    failures = config.pop('failures', None)
    out = {k: v for k, v in config.items() if k in (
        'mode', 'tags', 'skip_tags', 'limit', 'forks', 'status', 'hosts',
        'playbooks', 'runs', 'tasks', 'duration', 'ran', 'object',
        'message')}
    if failures:
        out['failures'] = len(failures)
    return out
