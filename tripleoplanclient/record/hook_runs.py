"""The validation runs a stack step's post hook started
(``--run-post-validations``), in the plan's record.

A step is written once, before its end; the post hook runs after it, by
the client. So each run has objects of its own,
``user-environments/validations/<step id>/<run id>.partial.yaml`` once
the run has its id (status RUNNING: a client that dies waiting still
leaves the run's id with its step) and ``<run id>.yaml`` when it ended,
each written once (``If-None-Match``: no writer overwrites another's),
never touching the step. The readers of a step's history merge them
into its row's ``validations``, after the pre hook's (which the step
itself records, ``mistral.stack_step``).
"""

import re

from tripleoplanclient.plan import layout
from tripleoplanclient.plan import schema
from tripleoplanclient.record import log

PREFIX = layout.RECORD_DIR + 'validations/'
# a Mistral execution's id is a UUID
_NAME = re.compile(r'%s([0-9a-f]{12})/([A-Za-z0-9_-]{1,64})(\.partial)?'
                   r'\.yaml\Z' % re.escape(PREFIX))
FOUND = schema.Fields({'hook': str, 'group': str, 'run': str,
                       'status': str})


def path(step_id, run_id, final=True):
    """``<run id>.yaml`` (final) sorts after ``<run id>.partial.yaml``."""
    return '%s%s/%s%s.yaml' % (PREFIX, step_id, run_id,
                               '' if final else '.partial')


def merge(container, plan, rows, listing=None):
    """Add to ``rows`` (history rows) the post hooks' runs of their
    steps: one listing (none when the caller has the plan's whole
    ``listing``), and one GET per run."""
    if listing is None:
        _, listing = container.listing(plan, prefix=PREFIX)
    best = {}
    for name in sorted(listing or ()):          # final after partial
        match = _NAME.match(name)
        if match:
            best[match.group(1), match.group(2)] = name
    by_id = {r['id']: r for r in rows}
    for (step_id, run_id), name in sorted(best.items()):
        if step_id not in by_id:
            continue
        data = container.get(plan, name)
        if data is None:
            continue            # listed, then gone with its plan
        found = log.load_object(data, 'Validation run object %s' % name,
                                plan, FOUND)
        row = by_id[step_id]
        row['validations'] = list(row.get('validations') or []) + [
            {'hook': found['hook'], 'group': found['group'], 'run': run_id,
             'status': found['status']}]
    return rows
