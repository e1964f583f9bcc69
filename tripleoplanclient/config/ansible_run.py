"""One config-download playbook run by ``ansible-playbook`` against the
plan's servers, as the validations run theirs (``validations.child``).

The sandbox, process group, environment made from nothing, SSH agent
held outside (the key never inside) and egress only to ``servers`` are
the validations'; what differs: the tree (the config-download directory
the playbooks import from) is the caller's, bound writable at ``TREE``
(tripleo-ansible writes group_vars into it while it runs) and the
playbook runs from there with the tree's ansible.cfg when it has one;
when the ansible-playbook's prefix has tripleo-ansible installed
(``share/ansible``), Ansible is told where its roles and plugins are
(``ANSIBLE_*`` variables: the stored tree stays as it was made); the
callback is ``callback_plugins/tripleoplan_events.py``, one line per
task result and host, read as it comes (``ansible_events``) and handed
to ``progress`` in the caller's thread.
"""

import json
import logging
import os
import posixpath
import queue
import re
import tempfile
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.config import ansible_events
from tripleoplanclient.validations import child
from tripleoplanclient.validations import runner
from tripleoplanclient.validations import sandbox
from tripleoplanclient.validations import shipped

LOG = logging.getLogger(__name__)

CALLBACKS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'callback_plugins')
# where the tree is inside the sandbox
TREE = '/srv/config-download'
# names the run in its child's environment
MARKER = 'TRIPLEOPLAN_CONFIG_RUN'
# the longest callback line read; a longer one is dropped
LINE_LIMIT = 1024 * 1024
# an inventory outside the tree is copied in: at most this many bytes
INVENTORY_LIMIT = 16 * 1024 * 1024
# events read but not yet handed to ``progress``; the child waits beyond
QUEUED = 1000
# tripleo-ansible's directories under its prefix's share/ansible, and the
# variable each goes to (those the prefix lacks are left out)
TRIPLEO_ANSIBLE = (
    ('ANSIBLE_ROLES_PATH', 'roles'),
    ('ANSIBLE_LIBRARY', 'plugins/modules'),
    ('ANSIBLE_MODULE_UTILS', 'plugins/module_utils'),
    ('ANSIBLE_ACTION_PLUGINS', 'plugins/action'),
    ('ANSIBLE_FILTER_PLUGINS', 'plugins/filter'),
    ('ANSIBLE_STRATEGY_PLUGINS', 'plugins/strategy'),
    ('ANSIBLE_TEST_PLUGINS', 'plugins/tests'),
    ('ANSIBLE_LOOKUP_PLUGINS', 'plugins/lookup'),
)
_WORD = re.compile(r'^[A-Za-z0-9_.:@*!&,\[\]-]{1,200}$')


def _inside_tree(tree_dir, path, what):
    """``path`` (relative to the tree, or absolute within it) as the
    sandbox sees it; None when absolute and outside the tree."""
    tree = os.path.realpath(tree_dir)
    if os.path.isabs(path):
        real = os.path.realpath(path)
        if real != tree and not real.startswith(tree + os.sep):
            return None
        relative = os.path.relpath(real, tree)
    else:
        relative = posixpath.normpath(path)
        if relative.startswith('..') or '\0' in relative:
            raise exceptions.CommandError(
                'the %s %r is not within the config-download directory'
                % (what, path))
        real = os.path.realpath(os.path.join(tree, relative))
        if real != tree and not real.startswith(tree + os.sep):
            raise exceptions.CommandError(
                'the %s %r leads out of the config-download directory'
                % (what, path))
    return posixpath.join(TREE, relative)


def _words(values, what):
    values = [values] if isinstance(values, str) else list(values or ())
    for value in values:
        if not isinstance(value, str) or not _WORD.match(value):
            raise exceptions.CommandError(
                'not a valid %s: %r (letters, digits and _.:@*!&,[]- '
                'only)' % (what, value))
    return values


def _arguments(tree_dir, playbook, inventory_file, tags, skip_tags, limit,
               forks):
    """ansible-playbook's arguments after the program (CommandError for
    one the caller gave wrong), and the inventory to copy in (or None)."""
    book = _inside_tree(tree_dir, playbook, 'playbook')
    if book is None or not os.path.isfile(os.path.join(
            tree_dir, os.path.relpath(book, TREE))):
        raise exceptions.CommandError(
            'no playbook %r in the config-download directory' % playbook)
    found = _inside_tree(tree_dir, inventory_file, 'inventory')
    copied = None
    if found is None:
        copied, found = inventory_file, sandbox.INPUTS + '/inventory.yaml'
    argv = ['-i', found, '-e', '@' + sandbox.INPUTS + '/vars.json']
    for tag in _words(tags, 'tag'):
        argv += ['--tags', tag]
    for tag in _words(skip_tags, 'tag to skip'):
        argv += ['--skip-tags', tag]
    if limit:
        argv += ['--limit', _words([limit], 'limit')[0]]
    if forks is not None:
        if not isinstance(forks, int) or isinstance(forks, bool) or \
                not 1 <= forks <= 1000:
            raise exceptions.CommandError(
                'forks must be a whole number from 1 to 1000, not %r'
                % (forks,))
        argv += ['--forks', str(forks)]
    return argv + [book], copied


def _readable(program):
    """The program's own tree: its virtualenv when it lies in one."""
    here = os.path.dirname(os.path.realpath(program))
    root = os.path.dirname(os.path.abspath(program))
    root = os.path.dirname(root)
    if os.path.isfile(os.path.join(root, 'pyvenv.cfg')):
        return [root, here]
    return [here]


def tripleo_ansible(program):
    """``{ANSIBLE_* variable: path}`` of tripleo-ansible's roles and
    plugins beside ``program`` (its prefix's ``share/ansible``, bound
    read-only at the same path with the program's tree); {} without."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(program)))
    share = os.path.join(prefix, 'share', 'ansible')
    env = {}
    for name, part in TRIPLEO_ANSIBLE:
        found = os.path.join(share, part)
        if os.path.isdir(found):
            # the tree's own roles first, as tripleo-ansible's ansible.cfg
            env[name] = ':'.join([TREE + '/roles', found, TREE]) \
                if part == 'roles' else found
    return env


def environment(tree_dir, ssh, run_id=None, program=None):
    """The child's whole environment (paths as the sandbox sees them)."""
    env = child.environment(CALLBACKS, 'tripleoplan_events',
                            bool(ssh.get('key')))
    if program:
        env.update(tripleo_ansible(program))
    has_config = os.path.isfile(os.path.join(tree_dir, 'ansible.cfg'))
    env.update({
        'ANSIBLE_CONFIG': posixpath.join(
            TREE if has_config else sandbox.HOME, 'ansible.cfg'),
        'ANSIBLE_REMOTE_USER': str(ssh.get('user') or 'tripleo-admin'),
        'ANSIBLE_REMOTE_PORT': str(int(ssh.get('port') or 22)),
        'ANSIBLE_TIMEOUT': str(int(ssh.get('timeout') or 10)),
        MARKER: str(run_id or '-'),
    })
    return env


def run(tree_dir, playbook, inventory_file, *, ssh, servers, timeout,
        tags=(), skip_tags=(), limit=None, forks=None, extra_vars=None,
        ansible_playbook=None, progress=None, stop_requested=None,
        run_id=None, secrets=(), started=None, look_every=2.0,
        hidden=(), clock=time.monotonic):
    """Run ``playbook`` (a path in ``tree_dir``) with ``inventory_file``;
    the run's result (``result``). CommandError when an argument is not
    valid (nothing was run).

    ``ssh``: ``{'user', 'key', 'port', 'timeout'}`` (the key loaded into
    the run's agent); ``servers``: the (address, port) pairs it may
    reach; ``timeout``: seconds for the whole run; ``progress(event)``:
    each task result (``ansible_events.event``), in this thread;
    ``stop_requested()``: asked every ``look_every`` seconds;
    ``secrets``: values masked wherever they would show (with those of
    ``extra_vars`` under a secret key); ``started(pgid)``: the child's
    process group; ``hidden``: more directories the sandbox hides.
    """
    begin = clock()
    argv, copied = _arguments(tree_dir, playbook, inventory_file, tags,
                              skip_tags, limit, forks)
    extra_vars = dict(extra_vars or {})
    secrets = sorted({str(v) for v in secrets if v} | {
        str(v) for k, v in extra_vars.items()
        if masking.secret_key(k) and isinstance(v, (str, int)) and v})
    shown = {'playbook': playbook, 'tags': list(tags or ()),
             'skip_tags': list(skip_tags or ()), 'limit': limit}
    program = ansible_playbook or runner.ansible_playbook()
    if not program or not os.access(program, os.X_OK):
        return result('FAILED', clock() - begin, shown, message=(
            'ansible-playbook (%s) is not installed where the tripleoplan '
            'actions run: set [tripleoplan] config_ansible_playbook of '
            'Mistral\'s configuration. Nothing was run.' % program))
    if ssh.get('key') and not os.access(ssh['key'], os.R_OK):
        return result('FAILED', clock() - begin, shown, message=(
            'the SSH key %s ([tripleoplan] validation_ssh_key of Mistral\'s '
            'configuration) cannot be read by Mistral\'s executor. '
            'Nothing was run.' % ssh['key']))
    readable = [CALLBACKS, os.path.dirname(shipped.RELAY)] + \
        _readable(program)
    refused = sandbox.check(readable)
    if refused is not None:
        return result('FAILED', clock() - begin, shown, message=refused)
    tally, events = ansible_events.Tally(), queue.Queue(QUEUED)
    reporting = [progress]

    def read(pipe):
        def each(line):
            if line.startswith(ansible_events.EVENT):
                shaped, about = ansible_events.event(
                    line[len(ansible_events.EVENT):], secrets)
                if shaped is not None:
                    events.put((shaped, about))
            elif line.startswith(ansible_events.STATS):
                found = ansible_events.stats(
                    line[len(ansible_events.STATS):])
                if found is not None:
                    tally.stats = found
        child.lines(pipe, ansible_events.PREFIX, LINE_LIMIT, each)

    def tick():
        while True:
            try:
                shaped, about = events.get_nowait()
            except queue.Empty:
                return
            tally.add(shaped, about)
            _report(reporting, shaped)

    with tempfile.TemporaryDirectory(prefix='tripleoplan-config-') as private:
        inputs = os.path.join(private, 'inputs')
        os.mkdir(inputs)
        with open(os.path.join(inputs, 'vars.json'), 'w') as f:
            json.dump(extra_vars, f)
        if copied is not None:
            _copy(copied, os.path.join(inputs, 'inventory.yaml'))
        ended = child.run(
            [program] + argv, inputs,
            environment(tree_dir, ssh, run_id, program),
            timeout, read, readable=readable,
            writable=[(tree_dir, TREE)], chdir=TREE, ssh_key=ssh.get('key'),
            targets=servers, hidden=hidden, started=started,
            stop_requested=stop_requested, look_every=look_every,
            clock=clock, tick=tick)
    tick()
    if 'problem' in ended:
        return result('FAILED', clock() - begin, shown,
                      message=ended['problem'])
    return _outcome(ended, tally, clock() - begin, timeout, shown, secrets)


def _report(reporting, shaped):
    """Hand one event to the caller's ``progress``; a failing one is
    logged and asked no more (the run goes on)."""
    if reporting[0] is None:
        return
    try:
        reporting[0](dict(shaped))
    except Exception:
        LOG.exception('config-download progress failed; the run goes on '
                      'without reporting progress')
        reporting[0] = None


def _copy(source, target):
    with open(source, 'rb') as f:
        data = f.read(INVENTORY_LIMIT + 1)
    if len(data) > INVENTORY_LIMIT:
        raise exceptions.CommandError(
            'the inventory %s is larger than %d bytes' % (
                source, INVENTORY_LIMIT))
    with open(target, 'wb') as f:
        f.write(data)


def _outcome(ended, tally, duration, timeout, shown, secrets):
    tally.explain(ended['attempts'])
    unreached = sorted('%s:%d: %s' % (host, port, why)
                       for (host, port), why in ended['attempts'].items()
                       if why)[:20]
    if ended['how'] == 'timeout':
        status, message = 'TIMEOUT', 'did not end within %d s' % round(
            timeout)
    elif ended['how'] == 'stopped':
        status, message = 'STOPPED', 'stopped while it ran'
    elif ended['rc'] == 0 and not tally.failed():
        status, message = 'SUCCESS', None
    else:
        status = 'FAILED'
        message = '; '.join('%s: %s: %s' % (
            f['host'], f['task'], f['message'] or f['status'])
            for f in tally.failures[:3]) or ansible_events.mask(
            ' '.join(ended['stderr'].split())[-500:], secrets) or (
            'ansible-playbook ended with status %s' % ended['rc'])
    return result(status, duration, shown, rc=ended['rc'],
                  hosts=tally.counts(), failures=tally.failures,
                  failures_dropped=tally.failures_dropped,
                  tasks=tally.tasks(), unreached=unreached,
                  message=ansible_events.mask(message, secrets)
                  if message else None)


def result(status, duration, shown, **fields):
    """A run's result: ``status`` (SUCCESS, FAILED, TIMEOUT, STOPPED),
    ``rc``, ``duration``, ``playbook``, ``hosts`` ({host: {ok, changed,
    failed, unreachable, skipped}}), ``failures`` ([{host, task, status,
    message}], the first ``ansible_events.FAILURES_LIMIT``;
    ``failures_dropped`` how many more), ``tasks`` ({ran, skipped}),
    ``tags``, ``skip_tags``, ``limit``, ``unreached`` (connections the
    egress proxy could not make, and why), ``message`` (None or why it
    did not succeed)."""
    out = {'status': status, 'rc': None, 'duration': round(duration, 2),
           'hosts': {}, 'failures': [], 'failures_dropped': 0,
           'tasks': {'ran': 0, 'skipped': 0}, 'unreached': [],
           'message': None}
    out.update(shown)
    out.update(fields)
    return out
