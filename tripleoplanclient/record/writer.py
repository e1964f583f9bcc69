"""The record's one writer: a step (``write_step``) with the index that
names it, and the outcome a stack step learns later (``write_outcome``).
Nothing is overwritten but the index, so no concurrent writer can lose a
step.

A ``HistoryWriter`` holds the plan's ``container.PlanContainer`` and the
``reader.HistoryReader`` it builds on (what a step builds on, the mending
of an index left behind).
"""

import logging

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import container as container_mod
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import hook_runs
from tripleoplanclient.record import index as index_mod
from tripleoplanclient.record import log

LOG = logging.getLogger(__name__)


class HistoryWriter:
    """Writes steps and outcomes (see ``log`` and ``index``).

    :param container: the plan's ``container.PlanContainer``
    :param reader: the ``reader.HistoryReader`` over that container
    :param actor: () -> {'user', 'project'} from the caller's Keystone
        token, for the steps it writes; None (or answering None): the
        login name
    """

    def __init__(self, container, reader, actor=None):
        self.container = container
        self.reader = reader
        self._actor = actor

    def write_outcome(self, plan, step_id, outcome, stack=None, final=True,
                      only_if_new=False, config=None):
        """The outcome of a stack step: the final one, by whoever saw the
        end, or what a client knew when it stopped following (kept apart,
        so that it can never hide a final one). A final one goes in the
        index too.

        ``only_if_new``: for the writers that only learn the end second
        hand (Mistral's follow task, a reader mending from Heat): Swift
        refuses the write once an outcome is stored (``If-None-Match``),
        so the one who saw the end keeps its record. False when refused
        (None from a read-only reader: nothing is written). ``config``:
        the step's configuration part (``record.configs``), beside
        Heat's.
        """
        if self.reader.read_only:
            return None
        name, = self.container.checked(
            plan, [log.outcome_path(step_id, final)])
        found = {'outcome': outcome, 'stack': stack or {}}
        if config:
            found['config'] = config
        try:
            self.container.request(
                'put_object', plan, name, log.dump(found),
                headers={'If-None-Match': '*'} if only_if_new else None)
        except container_mod.client_exception() as exc:
            if only_if_new and container_mod.status(exc) == 412:
                return False
            raise exceptions.CommandError(
                'Cannot record the outcome of step %s in plan %s: %s'
                % (step_id, plan, exc))
        if final:
            self._index_outcome(plan, step_id, found)
        return True

    def write_hook_run(self, plan, step_id, found, final=True):
        """A validation run of a step's post hook (``hook_runs``): its
        start (not ``final``), then its end, each written once. False
        when Swift already holds it; None from a read-only reader."""
        if self.reader.read_only:
            return None
        name, = self.container.checked(
            plan, [hook_runs.path(step_id, found['run'], final)])
        try:
            self.container.request(
                'put_object', plan, name, log.dump(
                    {k: found[k] for k in ('hook', 'group', 'run',
                                           'status')}),
                headers={'If-None-Match': '*'})
        except container_mod.client_exception() as exc:
            if container_mod.status(exc) == 412:
                return False
            raise exceptions.CommandError(
                'Cannot record validation run %s of step %s in plan %s: %s'
                % (found['run'], step_id, plan, exc))
        return True

    def _index_outcome(self, plan, step_id, found):
        """The index with a final outcome in its step's row."""
        data = self.container.get(plan, log.PATH)
        try:
            head = index_mod.head(data, plan) if data else None
        except index_mod.UNREADABLE:
            head = None
        rows = [r for r in (head.rows if head else ()) if r['id'] == step_id]
        if not rows:
            return          # the next reader of the log mends it
        log.merge_outcome(rows[0], found)
        imported = len(head.rows) - head.count
        self.reader.write_index(plan, index_mod.dump_cache(
            plan, head.rows[imported:], head.state, head.through,
            head.rows[:imported]))

    def write_step(self, plan, step, head, objects=None):
        """Write ``objects``, then ``step`` under its own name, then the
        index once the step is on it.

        A small change goes as one archive with the step and the index as
        its last members (one request); when a member is refused, the step
        is taken back. Nothing is overwritten but the index, so no
        concurrent writer can lose a step.
        """
        who = self._actor() if self._actor else None
        if who:
            step.update(who)
        log.seal(step, head)
        objects = dict(objects or {})
        tree = step['state'].get('tree')
        if tree and len(tree['changes']) > tree_mod.COMPACT:
            # Fold the changes into a new snapshot: the next reader of this
            # state needs one small step object and one snapshot.
            name, snap, md5 = tree_mod.snapshot(
                self.container.view(plan, tree).full())
            objects[name] = snap
            step['state']['tree'] = {'base': md5, 'changes': {}}
        data = log.dump(step)
        self.container.checked(plan, list(objects) + [step['name']])
        if head.rows is None and not head.count:
            # No step yet: the history is a version 1 record's, if any.
            head = head._replace(rows=list(head.imported))
        known = head if head.rows is not None and \
            len(head.rows) >= head.count else self._index_head(plan, head)
        index = index_mod.after(plan, known, step)[0] if known else None
        members = dict(objects)
        members[step['name']] = data
        if index is not None:
            members[log.PATH] = index
        # One request when the cluster may have bulk: else (no verdict)
        # the files go one by one.
        failed = self.container.one_archive(plan, members)
        if failed is not None:
            refused = [f for f in failed if f[0] != log.PATH]
            if not refused:
                return self._mended(plan, step, known)
            if not bulk.no_verdict(failed):
                names = dict(failed)
                # The step, and the index that names it, taken back.
                for name in (step['name'], log.PATH):
                    if name in members and name not in names:
                        self.container.delete_objects(plan, [name],
                                                      record=True)
                self.container.rejected(plan, objects, [
                    f for f in refused if f[0] != step['name']] or refused)
            self.container.without_bulk()
        self.container.write(plan, objects)
        try:
            self.container.request('put_object', plan, step['name'], data)
        except container_mod.client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot record the step in plan %s (%s); the files it wrote '
                'are stored, the record is unchanged: run the command '
                'again.' % (plan, exc))
        if index is not None:
            self.reader.write_index(plan, index)
        return self._mended(plan, step, known)

    def _index_head(self, plan, head):
        """``head`` with its rows from the index, when the index is what
        ``head`` saw; else None."""
        data = self.container.get(plan, log.PATH)
        try:
            found = index_mod.head(data, plan) if data else None
        except index_mod.UNREADABLE:
            found = None
        if found is not None and (found.count, found.last_id) == (
                head.count, head.last_id):
            return head._replace(rows=found.rows, through=found.through)
        return None

    def _mended(self, plan, step, known):
        """The written step; an index written without the rows before it
        is mended from the log first."""
        if known is None and not self.reader.read_only:
            try:
                self.reader.history(plan)
            except exceptions.CommandError as exc:
                LOG.warning('the index of plan %s is behind its log: %s',
                            plan, exc)
        return step
