"""The plan record: one immutable object per step, ordered by Swift.

Swift has no lock (``If-None-Match: *`` is checked before the write, so
two PUTs in flight both succeed), so the record rests only on what Swift
does guarantee:

* a step is one object under a name no other step has
  (``user-environments/log/<time>-<id>.yaml``), written once and never
  overwritten: nothing a concurrent writer does can remove it;
* Swift stamps each write with its own time; the order of the steps is the
  order of those timestamps (ties: by id), the same for every reader;
* a step records its *change* (environment files added or removed, user
  files written with their MD5, inputs), so the plan's state is the replay
  of every change in that order, whoever wrote them and whenever. Each
  step also stores the state its writer computed and how many steps that
  writer saw: when the count matches the step's position, no step landed
  unseen before it and its state is the replay (one GET, not thousands).

The outcome of a stack operation is known only later: it goes in its own
object, ``user-environments/outcomes/<id>.yaml``, written by whoever sees
the end. ``user-environments/environments.yaml`` is the plan's index for
GUIs and scripts, written with every step (``index``); it never decides
anything our readers cannot check against the log. Version 1 records
(one ``environments.yaml`` with numbered steps) are read as they are and
carried into the first version 2 step.

The command line and the user a step records are given by its writer
(``make_step``, ``writer.HistoryWriter``'s actor): nothing here reads
the process.
"""

import calendar
import collections
import copy
import datetime
import re
import time
import uuid

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import parameter_file
from tripleoplanclient.plan import schema
from tripleoplanclient.plan import templates as templates_mod
from tripleoplanclient.plan import tree as tree_mod

VERSION = 2
PATH = layout.RECORD_DIR + 'environments.yaml'
LOG_PREFIX = layout.RECORD_DIR + 'log/'
OUTCOME_PREFIX = layout.RECORD_DIR + 'outcomes/'
# Statuses after which a step's outcome no longer changes.
FINAL = ('SUCCESS', 'FAILED', 'INTERRUPTED')

# What a writer saw: the state after the last step, how many steps there
# were, the last one's id, the history of a version 1 record (to carry
# into the first version 2 step), and, when known, every history row and
# the id of the newest settled one (to write the index: ``index``).
Head = collections.namedtuple('Head', 'state count last_id imported rows '
                              'through', defaults=(None, None))

_NAME = re.compile(r'^%s\d{8}T\d{12}Z-([0-9a-f]{12})\.yaml$'
                   % re.escape(LOG_PREFIX))


# -- state -------------------------------------------------------------

def new_state(templates=None):
    """The state of a plan before its first step."""
    return {'environments': [], 'files': {}, 'inputs': {},
            'templates': templates, 'render': None, 'stack': None,
            'created': False, 'tree': None}


def amended(current, add, remove, first=()):
    """The environment list after adding ``add`` and removing ``remove``.

    A file already in the list keeps its place; new ones go last, but
    those of ``first`` (the root environment) go first.
    """
    result = [e for e in current if e not in remove]
    result.extend(e for e in add if e not in result)
    ahead = [e for e in first if e in result]
    return ahead + [e for e in result if e not in ahead]


def apply(state, step):
    """The state after ``step``: its change replayed on ``state``.

    Whatever the outcome: a step's files are in Swift once it is recorded,
    and its environment list is what the plan asks for from then on (the
    outcome of a stack operation says what Heat made of it).
    """
    state = copy.deepcopy(state)
    change = step.get('change') or {}
    envs = change.get('environments') or {}
    if 'set' in envs:
        state['environments'] = list(envs['set'])
    else:
        state['environments'] = amended(
            state['environments'], envs.get('add') or (),
            envs.get('remove') or (), envs.get('first') or ())
    state['files'].update(change.get('files') or {})
    if step['action'] != 'restore':
        # What the client last read from each local source: a restore puts
        # stored copies back, it reads nothing (plan.sources).
        state.setdefault('read', {}).update(change.get('files') or {})
    for path in change.get('drop_files') or ():
        state['files'].pop(path, None)
    state['inputs'].update(change.get('inputs') or {})
    for kind in change.get('drop_inputs') or ():
        state['inputs'].pop(kind, None)
    state['tree'] = tree_mod.after(state.get('tree'), change)
    parameter_file.replay(state, change)
    if change.get('templates'):
        state['templates'] = change['templates']
    if 'release' in change:
        state['release'] = change['release']
    if 'render_state' in change:
        state['render'] = change['render_state']
    elif step.get('render'):
        state['render'] = step['render'].get('state')
    if step.get('stack'):
        state['stack'] = step['id']
    if step['action'] == 'create' and step['outcome']['status'] == 'SUCCESS':
        state['created'] = True
    return state


# -- steps -------------------------------------------------------------

def new_id():
    return uuid.uuid4().hex[:12]


def make_step(action, change, added=(), changed=(), removed=(),
              outcome='SUCCESS', argv=(), command=None, user='unknown',
              **details):
    """A step; ``seen``, ``base`` and ``state`` are set when committed.

    ``change``: what the step does to the plan's state (see ``apply``).
    ``command``: the command line to record, masked by its writer (else
    ``argv``'s, masked by option names only); ``user``: who acted, unless
    the store that commits it knows (``store.writer.write_step``).
    """
    now = datetime.datetime.now(datetime.timezone.utc)
    step = {
        'version': VERSION,
        'id': new_id(),
        'action': action,
        'time': now.strftime('%Y-%m-%dT%H:%M:%SZ'),
        'user': user,
        'command': command or sanitize_argv(argv),
        'change': change,
        'objects': {'added': len(added), 'changed': len(changed),
                    'removed': len(removed)},
        'paths': {'added': sorted(added), 'changed': sorted(changed),
                  'removed': sorted(removed)},
        'outcome': {'status': outcome},
    }
    step['name'] = '%s%s-%s.yaml' % (
        LOG_PREFIX, now.strftime('%Y%m%dT%H%M%S%fZ'), step['id'])
    step.update(details)
    return step


def trusted(step, index, ids):
    """Whether ``step``, at ``index`` of the log (``ids``: every step id
    in order), stores the replay: its writer saw exactly the steps before
    it (their number, and the newest of them)."""
    return step['seen'] == index and step.get('base') == (
        ids[index - 1] if index else None)


def seal(step, head):
    """Fix what the writer saw (``head``) and the state after the step."""
    step['seen'] = head.count
    step['base'] = head.last_id
    step['state'] = apply(head.state, step)
    if head.imported and not head.count:
        step['imported'] = head.imported
    return step


def outcome_path(step_id, final=True):
    """``<id>.yaml`` (final) sorts after ``<id>.partial.yaml``."""
    return '%s%s%s.yaml' % (OUTCOME_PREFIX, step_id,
                            '' if final else '.partial')


def outcome_id(name):
    """``(step id, final)`` of an outcome object name."""
    stem = name[len(OUTCOME_PREFIX):-len('.yaml')]
    if stem.endswith('.partial'):
        return stem[:-len('.partial')], False
    return stem, True


def merge_outcome(row, found):
    """Fill a history row with an outcome object's content."""
    row['outcome'] = dict(row['outcome'], **(found.get('outcome') or {}))
    if row['outcome'].get('status') in FINAL:
        # the step object said its servers were still to configure
        row['outcome'].pop('configuring', None)
    if found.get('stack'):
        row['stack'] = dict(row.get('stack') or {}, **found['stack'])
    if found.get('config'):
        row['config'] = dict(row.get('config') or {}, **found['config'])
    return row


def seconds(text):
    """Epoch seconds of an ISO time as the record and Heat write it, or
    None."""
    try:
        return calendar.timegm(time.strptime(text[:19], '%Y-%m-%dT%H:%M:%S'))
    except (TypeError, ValueError):
        return None


def id_of(name):
    """The step id in a log object name, or None (not a step object)."""
    match = _NAME.match(name)
    return match.group(1) if match else None


def ordered(entries):
    """Listing entries of step objects in the record's order: Swift's
    timestamp of each write, then the id."""
    return sorted((e for e in entries if id_of(e['name'])),
                  key=lambda e: (e['last_modified'], id_of(e['name'])))


def damaged(what, plan, detail):
    return exceptions.CommandError(
        '%s of plan %s is damaged (%s); restore it from an export.' % (
            what, plan, detail))


def load_object(data, what, plan, spec=None):
    """A YAML mapping stored by the record (of ``spec``'s shape, see
    ``schema``), or a clear error. Read by ``content.StoredLoader``:
    aliases bounded (older clients wrote PyYAML's), at most
    ``content.MAX_STORED_BYTES``."""
    try:
        value = content.parse(data, content.StoredLoader,
                              content.MAX_STORED_BYTES)
    except content.StructureError as exc:
        raise damaged(what, plan, content.problem(exc))
    except (yaml.YAMLError, ValueError, TypeError, AttributeError):
        value = None        # not YAML text at all (None, bad bytes...)
    if not isinstance(value, dict):
        raise damaged(what, plan, 'not a YAML mapping')
    return checked(value, spec, what, plan)


def checked(value, spec, what, plan):
    try:
        return schema.check(value, spec or schema.Fields({}))
    except schema.Damaged as exc:
        raise damaged(what, plan, exc)


def load_step(data, plan, name):
    what = 'Step object %s' % name
    step = load_object(data, what, plan)
    if step.get('version') != VERSION or not isinstance(
            step.get('state'), dict):
        raise exceptions.CommandError(
            'Step object %s of plan %s has version %r; this client reads '
            'version %d. Upgrade tripleoplanclient.' % (
                name, plan, step.get('version'), VERSION))
    return checked(step, schema.STEP, what, plan)


def load_outcome(data, name, plan):
    """An outcome object (``{'outcome': ..., 'stack': ...}``)."""
    return load_object(data, 'Outcome %s' % name, plan,
                       schema.OUTCOME_OBJECT)


def dump(value):
    """A record object's bytes: no alias (an object met twice is written
    twice), so that readers need accept none of their own."""
    return content.dump_yaml(value, aliases=False)


def row(step, number):
    """A history row: the step without its bulky parts, and its number."""
    out = {k: v for k, v in step.items()
           if k not in ('paths', 'state', 'change', 'seen', 'base',
                        'version', 'imported')}
    out['step'] = number
    out['environments'] = list(step['state']['environments'])
    # The templates release the plan was at after the step.
    out['templates'] = templates_mod.name(step['state'].get('release'))
    names = given_names(step['state'], heat_environments(out))
    if names:
        out['names'] = names
    return out


def given_names(state, paths):
    """``{plan path: name as the user gave it}`` of those ``paths`` that
    have one in ``state`` (a step before names were recorded: none)."""
    files = state['files']
    return {p: files[p]['name'] for p in paths
            if (files.get(p) or {}).get('name')}


def shown_names(paths, names):
    """``paths`` as people are shown them: each by its given name
    (``names``, a row's or ``given_names``), else its plan path."""
    return [(names or {}).get(p) or p for p in paths]


def heat_environments(row):
    """The environment list Heat received in a stack step (its lifecycle
    file included), or the plan's list after any other step."""
    stack = row.get('stack') or {}
    if 'environments' in stack:
        return list(stack['environments'])
    return list(row['environments'])


def last_stack(history):
    """``{'fingerprint', 'updated'}`` when the newest stack step succeeded.

    What the deploy action compares with to leave an unchanged, untouched
    stack alone; None after a failed or unfinished stack operation.
    """
    for row in reversed(history):
        if row.get('stack'):
            if row['outcome']['status'] != 'SUCCESS':
                return None
            return {'fingerprint': row['stack'].get('fingerprint'),
                    'updated': row['stack'].get('updated')}
    return None


# -- the command line --------------------------------------------------

def masked_argv(argv, parsers=()):
    """The arguments as typed, every secret value masked: ``parsers`` are
    those that read them (``--os-passw`` is ``--os-password``); without
    them, by option names only."""
    # Bytes of sys.argv that are not UTF-8 (lone surrogates) would stop
    # the step's YAML: they are recorded as escapes.
    argv = [str(a).encode('utf-8', 'backslashreplace').decode('utf-8')
            for a in argv]
    return masking.mask_argv(argv, [p for p in parsers if p is not None])


def sanitize_argv(argv, parsers=()):
    """The command line as typed, with every secret value masked."""
    return ' '.join(['openstack'] + masked_argv(argv, parsers))
