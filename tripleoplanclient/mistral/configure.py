"""A stack step's configuration, in Mistral (the bodies of the
config_download and configure actions; no mistral_lib here).

``download`` keeps the Ansible tree of a stack step (``config.tree``
and ``config.inventory`` from what ``config.stack_data`` read of the
plan's stack) as the step's one archive (``record.configs``), built once.
``configure`` is the deploy workflow's last task: once Heat's end is on
record (not final) it downloads, extracts the tree into a temporary
directory of this executor, runs the step's playbooks against the servers
the plan may reach (``config.ansible_run``), writes the task results as
progress objects while they come, and records the step's final outcome
with its ``config`` part. Whoever waited or not, the record tells it.
"""

import logging
import os
import shutil
import tempfile
import threading
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol
from tripleoplanclient.record import configs
from tripleoplanclient.record import log
from tripleoplanclient.record import past

LOG = logging.getLogger(__name__)

INVENTORY = 'tripleo-ansible-inventory.yaml'
# The SSH port where the configuration gives none (validations' SSH)
SSH_PORT = 22
# Failures kept in the outcome (B's result is bounded too).
MAX_FAILURES = 100


def stack_row(plan, rows, state, which=None):
    """The history row of the stack step ``which`` (a number or id;
    None: the newest stack step)."""
    if which is None:
        step_id = state.get('stack')
        row = next((r for r in reversed(rows) if r['id'] == step_id), None)
        if row is None:
            raise exceptions.CommandError(
                'Plan %s has no stack step yet: deploy it first ("openstack '
                'overcloud deploy --stack %s").' % (plan, plan))
        return row
    row = past.find(plan, rows, which)
    if not row.get('stack'):
        raise exceptions.CommandError(
            'Step %s of plan %s is no stack step (it is a %s): give a '
            'deploy, update or upgrade step.' % (
                row['step'], plan, row['action']))
    return row


def download(store, heat, req, read, ssh_user='tripleo-admin',
             addresses=None):
    """The archive of the stack step ``req['step']`` (``protocol.config``'s
    config_download request, endpoints resolved), built when it is not
    kept yet; ``{step, object, files, bytes, heat_requests}``.

    ``read(heat, plan, config_type, ssh_user, addresses)``: ``{relative
    path: (bytes, mode)}`` of the tree and its inventory (``build``).
    A past step's tree is the one it kept: only the newest stack step's
    stack is still there to build it from.
    """
    plan = layout.check_name(req['container'])
    rows, head = store.reader.history(plan)
    row = stack_row(plan, rows, head.state, req['step'])
    config_type = list(req['config_type'] or ()) or None
    name = configs.archive_path(row['id'], config_type)
    kept = _kept(store, plan, name)
    if kept is not None:
        return dict(kept, step=row['id'], number=row['step'],
                    heat_requests=0, built=False)
    if row['id'] != head.state.get('stack'):
        raise exceptions.CommandError(
            'Plan %s kept no configuration of step %s, and its stack has '
            'changed since (step %s is newer): only the newest stack step\'s '
            'configuration can still be made.' % (
                plan, row['step'], head.state.get('stack')))
    stack = status.recorded(heat, plan, rows, req['heat_url'])
    if stack is None or not stack.stack_status.endswith('_COMPLETE') or \
            stack.stack_status.startswith('DELETE'):
        raise exceptions.CommandError(
            'Stack %s is %s: its configuration is made from a stack whose '
            'last operation completed.' % (
                plan, stack.stack_status if stack else 'not there'))
    files, requests = read(heat, plan, config_type, ssh_user, addresses)
    return dict(store_archive(store, plan, name, files), step=row['id'],
                number=row['step'], heat_requests=requests, built=True)


def build(heat, plan, config_type, ssh_user, addresses=None):
    """``({relative path: (bytes, mode)}, Heat requests)``: the tree of
    the plan's stack and its inventory (``config``)."""
    from tripleoplanclient.config import inventory
    from tripleoplanclient.config import stack_data
    from tripleoplanclient.config import tree

    data = stack_data.read(heat, plan)
    files = dict(tree.files(data, config_type))
    # it holds the overcloud's admin password, as tripleo-common's did
    files[INVENTORY] = (inventory.inventory(
        data, plan, ssh_user=ssh_user, addresses=addresses).encode('utf-8'),
        0o600)
    return files, (data.get('requests') or {}).get('heat')


def _kept(store, plan, name):
    """``{object, files, bytes}`` of a kept archive, or None."""
    from tripleoplanclient.plan import container as container_mod
    store.container.checked(plan, [name])
    try:
        headers = store.container.request('head_object', plan, name)
    except container_mod.client_exception() as exc:
        if container_mod.status(exc) == 404:
            return None
        raise exceptions.CommandError('Cannot read %s from plan %s: %s'
                                      % (name, plan, exc))
    files = headers.get('x-object-meta-files')
    return {'object': name, 'bytes': int(headers.get('content-length', 0)),
            'files': int(files) if str(files or '').isdigit() else None}


def store_archive(store, plan, name, files):
    """Write the archive of ``files`` once (a concurrent writer's, of the
    same stack, stands)."""
    from tripleoplanclient.plan import container as container_mod
    data = configs.pack(files)
    store.container.checked(plan, [name])
    try:
        store.container.request(
            'put_object', plan, name, data, headers={
                'If-None-Match': '*', 'X-Object-Meta-Files': str(len(files)),
                'Content-Type': 'application/gzip'})
    except container_mod.client_exception() as exc:
        if container_mod.status(exc) != 412:
            raise exceptions.CommandError(
                'Cannot keep the configuration of plan %s (%s): %s'
                % (plan, name, exc))
    return {'object': name, 'files': len(files), 'bytes': len(data)}


# -- the configure task -------------------------------------------------

def playbooks(req, present):
    """The playbooks the step runs, in order: the request's, else its
    action's (``protocol.config.PLAYBOOKS``) that the tree has."""
    if req['playbooks']:
        missing = [p for p in req['playbooks'] if p not in present]
        if missing:
            raise exceptions.CommandError(
                'The configuration of plan %s has no playbook %s.' % (
                    req['container'], ', '.join(missing)))
        return list(req['playbooks'])
    found = [p for p in protocol.config.PLAYBOOKS[req['action']]
             if p in present]
    if not found:
        raise exceptions.CommandError(
            'The configuration of plan %s has none of the playbooks a %s '
            'runs (%s): its templates give no config-download outputs '
            '(RoleConfig).' % (req['container'], req['action'], ', '.join(
                protocol.config.PLAYBOOKS[req['action']])))
    return found


class Progress:
    """Task results batched into new progress objects, one every
    ``every`` seconds at most (and at the end): each object written
    once, numbered in order, so a reader lists after its marker."""

    def __init__(self, write, every=protocol.config.PROGRESS_EVERY,
                 clock=time.monotonic):
        self._write = write
        self._every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._events = []
        self._last = clock()
        self.seq = 0

    def __call__(self, event):
        with self._lock:
            self._events.append(_event(event))
            if len(self._events) >= configs.MAX_EVENTS or \
                    self._clock() - self._last >= self._every:
                self._flush()

    def close(self):
        with self._lock:
            self._flush()

    def _flush(self):
        if not self._events:
            return
        events, self._events = self._events, []
        self.seq += 1
        self._last = self._clock()
        try:
            self._write(self.seq, configs.dump_events(events))
        except exceptions.CommandError as exc:
            # the progress is a view: the outcome still tells all
            LOG.warning('progress %d not written: %s', self.seq, exc)


def _event(event):
    return {k: (str(event.get(k))[:2000] if event.get(k) is not None
                else None)
            for k in ('host', 'task', 'status', 'play', 'message')}


def combined(heat_outcome, config):
    """The step's final outcome: Heat's with the configuration's; SUCCESS
    only if both parts succeeded."""
    out = dict(heat_outcome or {})
    out.pop('configuring', None)
    state = config.get('status')
    out['config_status'] = state
    if state == 'SUCCESS':
        out['status'] = 'SUCCESS'
    else:
        out['status'] = 'TIMEOUT' if state == 'TIMEOUT' else 'FAILED'
        failures = config.get('failures') or []
        # a few words each: the step's config part has them in full
        out['reason'] = 'configuration %s%s' % (state, ': %s' % '; '.join(
            '%s: %s: %s' % (f.get('host'), f.get('task'), _first_line(
                f.get('message'))) for f in failures[:3]) if failures else (
                ': %s' % _first_line(config['message'])
                if config.get('message') else ''))
    return out


def _first_line(text, most=200):
    line = str(text or '').strip().split('\n', 1)[0]
    return line if len(line) <= most else line[:most] + '...'


def record(store, plan, step_id, heat_outcome, stack, config):
    """Write the step's final outcome with its ``config`` part (the first
    final outcome stands: written only if none is stored)."""
    config = dict(config)
    config.pop('progress', None)
    config['failures'] = list(config.get('failures') or ())[:MAX_FAILURES]
    outcome = combined(heat_outcome, config)
    written = store.writer.write_outcome(plan, step_id, outcome, stack,
                                         only_if_new=True, config=config)
    return outcome, written


def configure(store, heat, req, started, followed, run, inputs,
              workdir=None):
    """The deploy workflow's configure task: nothing unless the follow
    task left the configuration to it (``followed['configure']``).

    ``run``: ``config.ansible_run.run``; ``inputs``: ``{'ssh',
    'networks', 'ansible_playbook', 'skip_tags', 'become'}`` from
    Mistral's configuration and the caller (``config_actions``).
    """
    if not (followed or {}).get('configure'):
        return {'done': True, 'configured': False}
    plan = layout.check_name(req['container'])
    step_id = ((started or {}).get('step') or {}).get('id')
    heat_outcome, stack = _heat_part(store, plan, step_id)
    try:
        found = download(store, heat, dict(req, step=step_id,
                                           config_type=None), build,
                         ssh_user=inputs['ssh'].get('user'))
        if req['config'] == 'setup':
            config = {'status': 'SUCCESS', 'ran': False,
                      'object': found['object'], 'files': found['files']}
        else:
            config = _run(store, plan, step_id, req, found, run, inputs,
                          workdir)
    except exceptions.CommandError as exc:
        config = {'status': 'FAILED', 'message': str(exc)[:2000]}
    outcome, written = record(store, plan, step_id, heat_outcome, stack,
                              config)
    return {'done': True, 'configured': True, 'status': outcome['status'],
            'recorded_by': 'mistral' if written else 'another'}


def _heat_part(store, plan, step_id):
    """Heat's end as recorded (the partial outcome), and its stack part."""
    name = log.outcome_path(step_id, final=False)
    data = store.container.get(plan, name)
    found = log.load_outcome(data, name, plan) if data else {}
    outcome = dict(found.get('outcome') or {'status': 'IN_PROGRESS'})
    return outcome, found.get('stack') or {}


def _run(store, plan, step_id, req, found, run, inputs, workdir):
    """Extract the step's tree and run its playbooks; B's result, one per
    playbook folded into one."""
    from tripleoplanclient.validations import inventory as servers_mod

    data = store.container.get(plan, found['object'])
    where = tempfile.mkdtemp(prefix='config-%s-' % step_id, dir=workdir)
    progress = Progress(lambda seq, body: store.container.request(
        'put_object', plan, configs.progress_path(step_id, seq), body,
        headers={'If-None-Match': '*'}))
    try:
        tree = os.path.join(where, 'config')
        configs.unpack(data, tree, found['object'])
        present = {p for p in os.listdir(tree)}
        chosen = playbooks(req, present)
        ssh = dict(inputs['ssh'])
        roles = servers_mod.servers(inputs.get('outputs') or {})
        targets = sorted({(address, int(ssh.get('port') or SSH_PORT))
                          for hosts in roles.values()
                          for address in hosts.values()
                          if _allowed(address, inputs['networks'])})
        deadline = time.monotonic() + int(req['config_timeout']) * 60
        results = []
        for playbook in chosen:
            left = max(1, int(deadline - time.monotonic()))
            result = run(
                tree, playbook,
                os.path.join(tree, INVENTORY), ssh=ssh, servers=targets,
                timeout=left, tags=tuple(req['tags'] or ()),
                skip_tags=tuple(req['skip_tags'] or ()) + tuple(
                    inputs.get('skip_tags') or ()),
                limit=req['limit'], forks=req['forks'],
                extra_vars=None if inputs.get('become', True) else {
                    # outranks the plays' become keywords
                    'ansible_become': False},
                ansible_playbook=inputs.get('ansible_playbook'),
                progress=progress, run_id=step_id)
            results.append(result)
            if result.get('status') != 'SUCCESS':
                break
    finally:
        progress.close()
        shutil.rmtree(where, ignore_errors=True)
    return merged(results, chosen)


def _allowed(address, networks):
    import ipaddress
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks or ())


def merged(results, chosen):
    """One ``config`` part of the results of the playbooks run in turn:
    the status of the last, counts summed per host, and ``runs``: each
    playbook's status, task counts and duration."""
    if not results:
        return {'status': 'FAILED', 'message': 'no playbook ran'}
    hosts = {}
    for result in results:
        for host, counts in (result.get('hosts') or {}).items():
            mine = hosts.setdefault(host, dict.fromkeys(
                ('ok', 'changed', 'failed', 'unreachable', 'skipped'), 0))
            for key in mine:
                mine[key] += int((counts or {}).get(key) or 0)
    last = results[-1]
    out = {k: last.get(k) for k in ('status', 'rc', 'tags', 'skip_tags',
                                    'limit', 'message') if k in last}
    out.update(hosts=hosts, playbooks=[r.get('playbook') for r in results],
               playbooks_chosen=list(chosen),
               duration=round(sum(float(r.get('duration') or 0)
                                  for r in results), 1),
               failures=[f for r in results for f in r.get('failures') or ()],
               # each playbook's own counts and time
               runs=[{k: r.get(k) for k in ('playbook', 'status', 'tasks',
                                            'duration')} for r in results],
               tasks={k: sum(int((r.get('tasks') or {}).get(k) or 0)
                             for r in results) for k in ('ran', 'skipped')})
    return out
