"""A validation's metadata, read and checked: TripleO's form.

A validation is an Ansible playbook whose first play has
``vars.metadata: {name, description, groups}`` (``categories`` and
``products``: tripleo-validations' further labels; ``requires``: what
the run must hand it, ours); its id is its file name without ``.yaml``.
The groups are described by ``groups.yaml`` (``{group:
[{description}]}``). The first play's other ``vars`` are the
validation's parameters (what ``--extra-vars`` may set).
A playbook that does not parse, or whose metadata is wrong, is listed
with the reason and never run.

Playbooks and groups.yaml are read by ``content.PlainLoader`` (anyone
who can write the container or a plan writes them): no YAML anchor or
alias, at most ``content.MAX_PLAYBOOK_BYTES``; a playbook refused for it
is listed with the reason, like any other problem.
"""

import re

# what a validation may ask the run for (``runner``): the plan's problems
# (Heat's validation, as the caller), an inventory of the plan's servers
REQUIRES = ('plan_problems', 'inventory')
SUFFIX = '.yaml'
ID_PATTERN = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$')


def validation_id(path):
    """The id of the validation at ``path`` (``dir/<id>.yaml``), or None
    when the file is no validation (another suffix, a bad name)."""
    name = path.rsplit('/', 1)[-1]
    if not name.endswith(SUFFIX) or name == 'groups.yaml':
        return None
    found = name[:-len(SUFFIX)]
    return found if ID_PATTERN.match(found) else None


def read(vid, text, groups=None):
    """``{id, name, description, groups, categories, products,
    parameters, requires, problem}`` of the playbook ``text`` (bytes or
    str); ``problem`` None when it may run. ``groups``: the known group
    names (None: any)."""
    out = {'id': vid, 'name': vid, 'description': '', 'groups': [],
           'categories': [], 'products': [], 'parameters': {},
           'requires': [], 'problem': None}
    problem = _check(out, text, groups)
    if problem:
        out['problem'] = problem
    return out


def _parse(text):
    """The value of ``text``; ValueError saying why it is refused."""
    import yaml

    from tripleoplanclient.common import content

    try:
        return content.parse(text, content.PlainLoader,
                             content.MAX_PLAYBOOK_BYTES)
    except content.StructureError as exc:
        raise ValueError(content.problem(exc))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValueError('not YAML: %s' % ' '.join(str(exc).split()))


def _check(out, text, groups):
    try:
        plays = _parse(text)
    except ValueError as exc:
        return str(exc)
    if not isinstance(plays, list) or not plays or not all(
            isinstance(p, dict) for p in plays):
        return 'not a playbook: a YAML list of plays is expected'
    if any('hosts' not in p and 'import_playbook' not in p for p in plays):
        return 'a play has no hosts'
    meta = (plays[0].get('vars') or {}).get('metadata') \
        if isinstance(plays[0].get('vars'), dict) else None
    if not isinstance(meta, dict):
        return 'no vars.metadata mapping in its first play'
    for key in ('name', 'description'):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            return 'metadata.%s must be text' % key
    found = meta.get('groups')
    # tripleo-validations has validations in no group (run by name)
    if found is None:
        found = []
    labels = {}
    for key in ('groups', 'categories', 'products'):
        value = found if key == 'groups' else meta.get(key) or []
        if not isinstance(value, list) or not all(
                isinstance(v, str) for v in value):
            return 'metadata.%s must list names' % key
        labels[key] = list(value)
    unknown = sorted(set(found) - set(groups)) if groups is not None \
        else []
    if unknown:
        return 'unknown group(s) %s (groups.yaml has %s)' % (
            ', '.join(unknown), ', '.join(sorted(groups)) or 'none')
    requires = meta.get('requires') or []
    if not isinstance(requires, list) or not all(
            isinstance(r, str) and r in REQUIRES for r in requires):
        return 'metadata.requires may list only %s' % ', '.join(REQUIRES)
    out.update(labels, name=meta['name'].strip(),
               description=' '.join(meta['description'].split()),
               parameters={str(k): v for k, v in plays[0]['vars'].items()
                           if k != 'metadata'},
               requires=list(requires))
    return None


def read_groups(text):
    """``{group: description}`` of a groups.yaml; ValueError naming what
    is wrong."""
    try:
        found = _parse(text) or {}
    except ValueError as exc:
        raise ValueError('groups.yaml: %s' % exc)
    if not isinstance(found, dict):
        raise ValueError('groups.yaml must map group names to '
                         '[{description: ...}]')
    out = {}
    for name, entries in found.items():
        entry = entries[0] if isinstance(entries, list) and entries else {}
        text = entry.get('description') if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(text, str):
            raise ValueError('groups.yaml: group %r needs [{description: '
                             'text}]' % (name,))
        out[name] = ' '.join(text.split())
    return out
