"""The record in Swift as its readers see it: what a step builds on
(``head``), the history, the state after any step; a reader mends an
index (``index``) that is behind the step log. Steps are written by
``writer``.

A ``HistoryReader`` holds the plan's ``container.PlanContainer``, and
what it saw of each plan's step log (a listing only grows from one read
to the next).
"""

import logging

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import container as container_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import parameter_file
from tripleoplanclient.record import index as index_mod
from tripleoplanclient.record import log

LOG = logging.getLogger(__name__)


def _load_index(data, plan):
    """``(index.load_cache(data), None)``, or ``(None, why not)``:
    read once per look at the log (an index of 1,000 rows takes ~50 ms)."""
    try:
        return index_mod.load_cache(data, plan), None
    except index_mod.UNREADABLE as exc:
        return None, exc


def _unlisted(entries, cache):
    """The step objects the index (``_load_index``'s) names that the
    listing ``entries`` lacks (a name only where it is a step object's
    name with the row's id: the index is content anyone may have
    written)."""
    listed = {e['name'] for e in entries}
    return sorted({r['name'] for r in (cache[0] if cache else ())
                   if isinstance(r.get('name'), str) and
                   r['name'] not in listed and
                   log.id_of(r['name']) == r.get('id')})


class HistoryReader:
    """The record's reads (see ``log`` and ``index``).

    :param container: the plan's ``container.PlanContainer``
    :param read_only: a dry run: mend nothing (the index, the parameters
        file, an open step)
    """

    def __init__(self, container, read_only=False):
        self.container = container
        self.read_only = read_only
        # plan -> {name: listing entry}: every step object
        # ``listed_steps`` saw.
        self._logged = {}

    def listed_steps(self, plan):
        """``(Swift's date, [step entries in order])``; None: no plan."""
        try:
            # the newest container replica's: one that missed updates
            # (async, under load or with a node down) lists behind
            headers, page = self.container.request(
                'get_container', plan, prefix=log.LOG_PREFIX,
                limit=container_mod.LISTING_LIMIT,
                headers={'X-Newest': 'true'})
        except container_mod.client_exception() as exc:
            if container_mod.status(exc) == 404:
                self._logged.pop(plan, None)
                return None
            raise exceptions.CommandError(
                'Cannot list plan %s: %s' % (plan, exc))
        if len(page) >= container_mod.LISTING_LIMIT:
            _, rest = self.container.listing(plan, prefix=log.LOG_PREFIX,
                                             marker=page[-1]['name'])
            page = page + list(rest.values())
        if not layout.is_plan(headers):
            return None
        # A step object is never rewritten nor removed while its plan
        # lives, but a container replica that missed its update (a node
        # down) lists without it for a while: what one read of this
        # reader saw, the next still counts, so its view only grows.
        seen = self._logged.setdefault(plan, {})
        seen.update((e['name'], e) for e in page)
        return headers.get('date'), log.ordered(seen.values())

    def step(self, plan, entry):
        name = entry['name']
        data = self.container.get(plan, name)
        if data is None:
            raise exceptions.CommandError(
                'Step object %s of plan %s vanished; restore it from an '
                'export.' % (name, plan))
        return log.load_step(data, plan, name)

    def _missing(self, plan):
        return exceptions.CommandError(
            'Plan %s does not exist (no record under %s). See "openstack '
            'overcloud plan list"; create it with "openstack overcloud plan '
            'create".' % (plan, layout.RECORD_DIR))

    def head(self, plan, required=True):
        """What a writer builds on: the index, one GET.

        An index that is missing, damaged or of an older form is left for
        the log (``history``, which mends it). An index left behind by two
        writers at once is harmless for the truth: the step built on it
        records what it saw (``seen``, ``base``), and readers replay it.
        None (or a clear error when ``required``) when there is no plan.
        """
        data = self.container.get(plan, log.PATH)
        if data is not None:
            try:
                head = index_mod.head(data, plan)
            except index_mod.UNREADABLE as exc:
                LOG.warning('reading the log of plan %s: %s', plan, exc)
                head = None
            if head is not None:
                return head._replace(state=parameter_file.current(
                    self.container, plan, head.state, self.read_only))
        found = self.listed_steps(plan)
        if found is not None and found[1]:
            return self._history(plan, found, data)[1]
        if data is None or found is None:
            if required or found is not None:
                if required:
                    raise self._missing(plan)
                return log.Head(log.new_state(), 0, None, [],
                                [], None)
            return None
        # A plan of version 1: its record is all there is.
        rows, state, _, imported = index_mod.load_cache(data, plan)
        return log.Head(state, 0, None, imported, imported, None)

    def history(self, plan, listed=None, steps=None):
        """``(rows, head)``: every step as a history row, and what a next
        step builds on.

        Reads the index and the list of steps, fetches only the steps
        after the index's settled rows, fills in outcomes written since,
        and mends the index when it is not what the log says (not a
        ``read_only`` reader: then nothing is written).
        ``listed``: the plan's whole listing (``container.listing()``),
        when the caller has it: the steps and outcomes are taken from it.
        ``steps``: a ``steps()`` of that listing's step entries, to share
        the step objects read with later ``state_after`` calls.
        """
        if listed is None:
            found = self.listed_steps(plan)
        elif listed[1] is None or not layout.is_plan(listed[0]):
            found = None
        else:
            found = (listed[0].get('date'),
                     log.ordered(listed[1].values()))
        # The index changes after every step: the newest replica's (with
        # a lagging listing, a stale index would hide the steps it lacks)
        data = None if found is None else self.container.get(
            plan, log.PATH, newest=True)
        loaded = _load_index(data, plan) if data is not None else None
        if found is not None and listed is None and loaded:
            found = self._with_index_steps(plan, found, loaded[0])
        return self._history(plan, found, data, listed and listed[1], steps,
                             loaded)

    def _with_index_steps(self, plan, found, cache):
        """``found`` with the step objects the index names but the listing
        lacks, when they exist: a container replica that missed updates (a
        node down) lists behind, but every replica of an object answers
        for it. Steps are never rewritten, so what one read saw stays."""
        missing = _unlisted(found[1], cache)
        if not missing:
            return found
        seen = self._logged.setdefault(plan, {})
        for name, entry in self.container.entries(plan, missing).items():
            if entry is not None:
                seen[name] = entry
        return found[0], log.ordered(seen.values())

    def _history(self, plan, found, data, listing=None, steps=None,
                 loaded=None):
        if found is None or (data is None and not found[1]):
            raise self._missing(plan)
        date, entries = found
        fetch = steps if steps is not None else _Fetch(self, plan, entries)
        cached, state, through, imported = [], None, None, None
        if data is not None:
            cache, exc = loaded or _load_index(data, plan)
            if exc is None:
                cached, state, through, imported = cache
            elif not entries:
                raise exc       # a version 1 record is all there is
            else:
                # Only an index: the step objects tell it all again.
                LOG.warning('ignoring the index of plan %s: %s', plan, exc)
        if imported is None:
            imported = fetch(0).get('imported') or [] if entries else []
        ids = [log.id_of(e['name']) for e in entries]
        # Only settled rows are trusted without their step objects.
        ready = [r['id'] for r in cached]
        ready = ready[:ready.index(through) + 1] if through in ready else []
        keep = 0
        while keep < min(len(ready), len(ids)) and ready[keep] == ids[keep]:
            keep += 1
        if keep < len(cached) or (keep and through != ids[keep - 1]):
            # Provisional rows after the settled ones, or a step landed
            # before settled rows (a write in flight longer than the
            # settling time): the state after ``keep`` is replayed.
            state = None
        rows = list(imported) + cached[:keep]
        for i in range(keep, len(entries)):
            step = fetch(i)
            if log.trusted(step, i, ids):
                state = step['state']
            else:
                if state is None:
                    state = _replayed(fetch, i, ids)
                state = log.apply(state, step)
            rows.append(log.row(dict(step, state=state),
                                len(rows) + 1))
        if state is None:
            state = _replayed(fetch, keep, ids) if keep else \
                log.new_state()
        self._outcomes(plan, rows, listing)
        state = parameter_file.current(self.container, plan, state,
                                       self.read_only)
        frozen = index_mod.settled(rows[len(imported):], entries, date)
        head = log.Head(state, len(entries), ids[-1] if ids else None,
                        [] if entries else imported, rows,
                        ids[frozen - 1] if frozen else None)
        if entries and not self.read_only:
            mended = index_mod.dump_cache(plan, rows[len(imported):], state,
                                          head.through, imported)
            if mended != data:
                self.write_index(plan, mended)
        return rows, head

    def write_index(self, plan, data):
        """Write the index; a failure only warns (the next reader of the
        log mends it)."""
        try:
            self.container.request('put_object', plan, log.PATH, data)
        except container_mod.client_exception() as exc:
            LOG.warning('the index of plan %s is behind its log: %s', plan,
                        exc)

    def _outcomes(self, plan, rows, listing=None):
        """Outcomes written after their step (stack operations)."""
        open_rows = {r['id']: r for r in rows if r.get('stack') and
                     r['outcome']['status'] not in log.FINAL}
        if not open_rows:
            return
        if listing is None:
            _, listing = self.container.listing(plan,
                                                prefix=log.OUTCOME_PREFIX)
        names = [n for n in listing or ()
                 if n.startswith(log.OUTCOME_PREFIX)]
        best = {}
        for name in sorted(names or ()):       # final after partial
            step_id, _ = log.outcome_id(name)
            if step_id in open_rows:
                best[step_id] = name
        for step_id, name in best.items():
            log.merge_outcome(open_rows[step_id], log.load_outcome(
                self.container.get(plan, name), name, plan))

    def state_after(self, plan, entries, count, steps=None):
        """The plan's state after the first ``count`` steps (``entries``:
        the step objects' listing entries, in order; ``steps``: a
        ``steps()`` of them, when the caller keeps one)."""
        return _replayed(steps if steps is not None else
                         _Fetch(self, plan, entries), count,
                         [log.id_of(e['name']) for e in entries])

    def steps(self, plan, entries):
        """The step objects of ``entries`` (listing entries, in order) by
        index, each read at most once however often asked."""
        return _Fetch(self, plan, entries)


class _Fetch:
    """Step objects by their index in the order, each read at most once."""

    def __init__(self, reader, plan, entries):
        self._reader, self._plan, self._entries = reader, plan, entries
        self._steps = {}

    def __call__(self, i):
        if i not in self._steps:
            self._steps[i] = self._reader.step(self._plan, self._entries[i])
        return self._steps[i]


def _replayed(fetch, count, ids):
    """The state after the first ``count`` steps.

    The newest step whose writer saw exactly the steps before it stores
    that state (``log.trusted``); the steps after it (written side by
    side with others) are replayed on it. The first step always
    qualifies.
    """
    i = count - 1
    while i > 0 and not log.trusted(fetch(i), i, ids):
        i -= 1
    state = fetch(i)['state']
    for j in range(i + 1, count):
        state = log.apply(state, fetch(j))
    return state
