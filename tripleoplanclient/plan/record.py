"""The plan record: ``user-environments/environments.yaml``.

It holds the current ordered environment list, the rendering inputs, the
user files with their local source and MD5, and the append-only history
of every step. Each step is also stored once, create-only, as
``user-environments/steps/<id>.yaml``: that object is what makes two
concurrent writers unable to lose each other's step (see ``store``).
"""

import datetime
import getpass
import re
import sys

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

VERSION = 1
PATH = layout.RECORD_DIR + 'environments.yaml'
STEPS_PREFIX = layout.RECORD_DIR + 'steps/'

# Command-line options whose value must never be recorded.
_SECRET_OPTION = re.compile(r'^--?[\w-]*(password|secret|token|key)[\w-]*$',
                            re.IGNORECASE)
_SECRET_ASSIGNMENT = re.compile(
    r'^(--?[\w-]*(?:password|secret|token|key)[\w-]*=).*$', re.IGNORECASE)


def new(plan, templates=None):
    return {'version': VERSION, 'plan': plan, 'templates': templates,
            'inputs': {}, 'environments': [], 'files': {}, 'history': []}


def load(data, plan):
    try:
        record = yaml.safe_load(data)
    except yaml.YAMLError as exc:
        raise exceptions.CommandError(
            'The record of plan %s (%s) is not valid YAML: %s' % (
                plan, PATH, exc))
    if not isinstance(record, dict) or record.get('version') != VERSION:
        raise exceptions.CommandError(
            'The record of plan %s (%s) has version %r; this client reads '
            'version %d. Upgrade tripleoplanclient.' % (
                plan, PATH, (record or {}).get('version')
                if isinstance(record, dict) else None, VERSION))
    for key, default in new(plan).items():
        record.setdefault(key, default)
    return record


def load_step(data, plan, name):
    """A step object, or None when it is missing or not a step."""
    if data is None:
        return None
    try:
        step = yaml.safe_load(data)
    except yaml.YAMLError:
        step = None
    if not isinstance(step, dict) or not isinstance(step.get('id'), int):
        raise exceptions.CommandError(
            'Step object %s of plan %s is damaged; restore it from an '
            'export or remove it.' % (name, plan))
    return step


def dump(record):
    return content.dump_yaml(record)


def step_path(step_id):
    return '%s%06d.yaml' % (STEPS_PREFIX, step_id)


def last_id(record):
    return max((s['id'] for s in record['history']), default=0)


def last_success_id(record):
    """Id of the newest step that succeeded (0: none)."""
    return max((s['id'] for s in record['history']
                if s['outcome']['status'] == 'SUCCESS'), default=0)


def sanitize_argv(argv):
    """The command line as typed, with every secret value masked."""
    out = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append('***')
            hide_next = False
        elif _SECRET_ASSIGNMENT.match(arg):
            out.append(_SECRET_ASSIGNMENT.sub(r'\1***', arg))
        else:
            out.append(arg)
            hide_next = bool(_SECRET_OPTION.match(arg))
    return ' '.join(['openstack'] + out)


def make_step(action, environments, added=(), changed=(), removed=(),
              outcome='SUCCESS', argv=None, **details):
    """A history step; ``id`` is set when the step is committed."""
    step = {
        'id': None,
        'action': action,
        'time': datetime.datetime.now(datetime.timezone.utc).strftime(
            '%Y-%m-%dT%H:%M:%SZ'),
        'user': _user(),
        'command': sanitize_argv(sys.argv[1:] if argv is None else argv),
        'environments': list(environments),
        'objects': {'added': len(added), 'changed': len(changed),
                    'removed': len(removed)},
        'outcome': {'status': outcome},
    }
    step.update(details)
    # The full path lists live only in the step object, written once.
    step['paths'] = {'added': sorted(added), 'changed': sorted(changed),
                     'removed': sorted(removed)}
    return step


def apply(record, step):
    """Append a committed step to the record.

    Only a successful step changes the current state (environment list,
    files, inputs); a failed one is history only.
    """
    summary = {k: v for k, v in step.items() if k not in ('paths', 'files')}
    record['history'].append(summary)
    if step['outcome']['status'] == 'SUCCESS':
        record['environments'] = list(step['environments'])
        record['files'].update(step.get('files') or {})
        record['inputs'].update(step.get('inputs') or {})
        if step.get('templates'):
            record['templates'] = step['templates']
    return record


def heat_environments(step):
    """The environment list a stack step gave Heat: the plan's list plus
    the lifecycle file of that step only (update/upgrade stages)."""
    return list(step['environments']) + (
        [step['lifecycle']] if step.get('lifecycle') else [])


def last_stack(record):
    """``{'fingerprint', 'updated'}`` when the newest stack step succeeded.

    What the deploy action compares with to leave an unchanged, untouched
    stack alone; None after a failed or unfinished stack operation.
    """
    for step in reversed(record['history']):
        if step.get('stack'):
            if step['outcome']['status'] != 'SUCCESS':
                return None
            return {'fingerprint': step['stack'].get('fingerprint'),
                    'updated': step['stack'].get('updated')}
    return None


def render_state(record):
    """State of the last render a step attempted (None: never rendered)."""
    for step in reversed(record['history']):
        if step.get('render'):
            return step['render'].get('state')
    return None


def succeeded(record):
    """True once any step of the plan succeeded."""
    return any(s['outcome']['status'] == 'SUCCESS' for s in record['history'])


def _user():
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return 'unknown'
