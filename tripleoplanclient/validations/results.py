"""Validation runs and their results, kept in Swift.

The ``tripleo-validations-results`` container of the caller's project
(so walled per project as the plans are) holds, per run:

- ``<run>/run.json``: the run as a whole, rewritten by the run as it
  goes (status RUNNING until it ends; the process group and host of its
  ``ansible-playbook`` while one runs) with one summary per validation:
  what ``results`` and ``show`` list;
- ``<run>/<validation>.json``: one validation's whole result (plays,
  per-host stats, each failed task's output);
- ``<run>/stop``: written by ``validation stop``; the run ends there.
"""

import datetime
import json
import re

from tripleoplanclient.common import exceptions

CONTAINER = 'tripleo-validations-results'
USAGE = {'x-container-meta-usage-tripleo': 'validation-results'}
RUN = 'run.json'
STOP = 'stop'
# the end of a run, or of one of its validations
ENDED = ('PASSED', 'FAILED', 'TIMEOUT', 'STOPPED', 'ERROR', 'INVALID',
         'SKIPPED')
# a run's id: its Mistral workflow execution's, a UUID (a validation's
# id may be anything else: ``validation show`` tells them apart by it)
RUN_ID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                    r'[0-9a-f]{12}', re.IGNORECASE)


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def _json(data):
    return json.dumps(data, indent=1, sort_keys=True).encode()


def create(store, run):
    """Write a new run (``{run, plan, validations, ...}``)."""
    if store.container.listing(CONTAINER, prefix='-')[1] is None:
        store.container.create_container(CONTAINER, headers=USAGE)
    save_run(store, run)


def save_run(store, run):
    store.container.write(CONTAINER, {'%s/%s' % (run['run'], RUN): _json(run)})


def save_result(store, run_id, vid, result):
    store.container.write(CONTAINER, {
        '%s/%s.json' % (run_id, vid): _json(result)})


def request_stop(store, run_id):
    store.container.write(CONTAINER, {
        '%s/%s' % (run_id, STOP): now().encode()})


def stop_requested(store, run_id):
    return store.container.get(CONTAINER, '%s/%s' % (run_id, STOP)) is not None


def _checked_id(run_id):
    from tripleoplanclient.validations import metadata
    if not isinstance(run_id, str) or not metadata.ID_PATTERN.match(run_id):
        raise exceptions.CommandError(
            'No validation run %r: give a run id as "openstack overcloud '
            'validation results" lists it.' % (run_id,))
    return run_id


def is_run_id(text):
    """True when ``text`` is a run's id (not a validation's)."""
    return bool(RUN_ID.fullmatch(text or ''))


def load_run(store, run_id):
    """The run's record; CommandError when this project has none."""
    data = store.container.get(
        CONTAINER, '%s/%s' % (_checked_id(run_id), RUN)) \
        if store.container.listing(CONTAINER, prefix='-')[1] is not None \
        else None
    if data is None:
        raise exceptions.CommandError(
            'No validation run %s in this project; see "openstack '
            'overcloud validation results".' % run_id)
    return json.loads(data)


def load_result(store, run_id, vid):
    """One validation's whole result in a run, or None."""
    data = store.container.get(CONTAINER, '%s/%s.json' % (
        _checked_id(run_id), vid))
    return json.loads(data) if data is not None else None


def runs(store, plan=None, limit=None):
    """``(runs, more)``: the runs of this project (of ``plan`` only,
    with it), oldest first: the ``limit`` last written (all without),
    read newest first in batches of ``limit`` until that many are found
    (the plan is in the run's JSON, not in the listing); ``more``: older
    ones were left unread."""
    _, listing = store.container.listing(CONTAINER)
    names = [n for n, e in sorted(
        (listing or {}).items(), reverse=True,
        key=lambda item: (item[1].get('last_modified') or '', item[0]))
        if n.endswith('/' + RUN)]
    batch = limit or len(names)
    found = []
    while names and not (limit and len(found) >= limit):
        read, names = names[:batch], names[batch:]
        data = store.container.get_many(CONTAINER, read)
        # newest first, as listed: the last batch is cut at ``limit``
        found += [r for r in (json.loads(data[n]) for n in read)
                  if plan is None or r.get('plan') == plan]
    more = bool(names) or (limit is not None and len(found) > limit)
    return sorted(found[:limit] if limit else found,
                  key=lambda r: (r.get('started') or '', r['run'])), more


def rows(run):
    """What ``results`` shows of a run: one row per validation."""
    return [{'run': run['run'], 'validation': v['id'],
             'plan': run.get('plan'), 'time': v.get('started'),
             'status': v.get('status'), 'duration': v.get('duration'),
             'failed_hosts': v.get('failed_hosts') or [],
             'message': v.get('message')}
            for v in run.get('validations') or []]
