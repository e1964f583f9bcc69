"""The record's one writer: a step (``commit``) with the card that names
it, and the outcome a stack step learns later (``write_outcome``). Nothing
is overwritten but the card, so no concurrent writer can lose a step.

A mixin of ``store.PlanStore``, beside ``journal.Journal`` (what a step
builds on, and the mending of a card left behind).
"""

import logging

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import swift_door
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import card as card_mod
from tripleoplanclient.record import record as record_mod

LOG = logging.getLogger(__name__)


class Commit(object):
    """Writes steps and outcomes (see ``record`` and ``card``)."""

    def write_outcome(self, plan, step_id, outcome, stack=None, final=True,
                      only_if_new=False):
        """The outcome of a stack step: the final one, by whoever saw the
        end, or what a client knew when it stopped following (kept apart,
        so that it can never hide a final one). A final one goes on the
        card too.

        ``only_if_new``: for the writers that only learn the end second
        hand (Mistral's follow task, a reader mending from Heat): Swift
        refuses the write once an outcome is stored (``If-None-Match``),
        so the one who saw the end keeps its record. False when refused
        (None from a read-only store: nothing is written).
        """
        if self.read_only:
            return None
        name, = self._checked(
            plan, [record_mod.outcome_path(step_id, final)])
        found = {'outcome': outcome, 'stack': stack or {}}
        try:
            self._swift('put_object', plan, name, record_mod.dump(found),
                        headers={'If-None-Match': '*'} if only_if_new
                        else None)
        except swift_door.client_exception() as exc:
            if only_if_new and self._status(exc) == 412:
                return False
            raise exceptions.CommandError(
                'Cannot record the outcome of step %s in plan %s: %s'
                % (step_id, plan, exc))
        if final:
            self._card_outcome(plan, step_id, found)
        return True

    def _card_outcome(self, plan, step_id, found):
        """The card with a final outcome in its step's row."""
        data = self.get(plan, record_mod.PATH)
        try:
            head = card_mod.head(data, plan) if data else None
        except card_mod.UNREADABLE:
            head = None
        rows = [r for r in (head.rows if head else ()) if r['id'] == step_id]
        if not rows:
            return          # the next reader of the log mends it
        record_mod.merge_outcome(rows[0], found)
        imported = len(head.rows) - head.count
        self._put_card(plan, card_mod.dump_cache(
            plan, head.rows[imported:], head.state, head.through,
            head.rows[:imported]))

    def commit(self, plan, step, head, objects=None):
        """Write ``objects``, then ``step`` under its own name, then the
        card once the step is on it.

        A small change goes as one archive with the step and the card as
        its last members (one request); when a member is refused, the step
        is taken back. Nothing is overwritten but the card, so no
        concurrent writer can lose a step.
        """
        who = self._actor() if self._actor else None
        if who:
            step.update(who)
        record_mod.seal(step, head)
        objects = dict(objects or {})
        tree = step['state'].get('tree')
        if tree and len(tree['changes']) > tree_mod.COMPACT:
            # Fold the changes into a new snapshot: the next reader of this
            # state needs one small step object and one snapshot.
            name, snap, md5 = tree_mod.snapshot(self.view(plan, tree).full())
            objects[name] = snap
            step['state']['tree'] = {'base': md5, 'changes': {}}
        data = record_mod.dump(step)
        self._checked(plan, list(objects) + [step['name']])
        if head.rows is None and not head.count:
            # No step yet: the history is a version 1 record's, if any.
            head = head._replace(rows=list(head.imported))
        known = head if head.rows is not None and \
            len(head.rows) >= head.count else self._card_head(plan, head)
        card = card_mod.after(plan, known, step)[0] if known else None
        members = dict(objects)
        members[step['name']] = data
        if card is not None:
            members[record_mod.PATH] = card
        # Asked without /info first: a cluster without bulk answers with no
        # verdict, and the files then go one by one.
        if (self._info is None or 'bulk_upload' in self._info) \
                and len(bulk.batches(members)) == 1:
            failed = bulk.extract_archive(self._connection(), plan, members)
            refused = [f for f in failed if f[0] != record_mod.PATH]
            if not refused:
                return self._mended(plan, step, known)
            if not bulk.no_verdict(failed):
                names = dict(failed)
                # The step, and the card that names it, taken back.
                for name in (step['name'], record_mod.PATH):
                    if name in members and name not in names:
                        self.delete_objects(plan, [name], record=True)
                self._rejected(plan, objects, [
                    f for f in refused if f[0] != step['name']] or refused)
            self._info = {}
        self.write(plan, objects)
        try:
            self._swift('put_object', plan, step['name'], data)
        except swift_door.client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot record the step in plan %s (%s); the files it wrote '
                'are stored, the record is unchanged: run the command '
                'again.' % (plan, exc))
        if card is not None:
            self._put_card(plan, card)
        return self._mended(plan, step, known)

    def _card_head(self, plan, head):
        """``head`` with its rows from the card, when the card is what
        ``head`` saw; else None."""
        data = self.get(plan, record_mod.PATH)
        try:
            found = card_mod.head(data, plan) if data else None
        except card_mod.UNREADABLE:
            found = None
        if found is not None and (found.count, found.last_id) == (
                head.count, head.last_id):
            return head._replace(rows=found.rows, through=found.through)
        return None

    def _mended(self, plan, step, known):
        """The committed step; a card written without the rows before it
        is mended from the log first."""
        if known is None and not self.read_only:
            try:
                self.history(plan)
            except exceptions.CommandError as exc:
                LOG.warning('the card of plan %s is behind its log: %s',
                            plan, exc)
        return step
