"""Where the validations are: the ``tripleo-validations`` container of
the caller's project (the shipped playbooks, installed in one pass) and
a plan's own ``custom-validations/``, which add or override by id.

Works on a ``record.plan_store.PlanStore`` (as the caller).
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.validations import metadata

CONTAINER = 'tripleo-validations'
# marks the container (never a plan: ``layout.is_plan`` is false)
USAGE = {'x-container-meta-usage-tripleo': 'validations'}
CUSTOM = 'custom-validations/'
GROUPS = 'groups.yaml'
_INSTALL = 'run "openstack overcloud validation install"'


def install(store, files):
    """Write ``files`` (``{name: bytes}``, ``shipped.files()``) into the
    container, creating it; only the new or changed ones are sent (the
    listing's hashes). Objects the package does not ship stay.
    ``{written: [name], unchanged: n}``."""
    _, listing = store.container.listing(CONTAINER)
    if listing is None:
        store.container.create_container(CONTAINER, headers=USAGE)
        listing = {}
    changed = {name: data for name, data in files.items()
               if (listing.get(name) or {}).get('hash') != content.md5(data)}
    store.container.write(CONTAINER, changed)
    return {'written': sorted(changed),
            'unchanged': len(files) - len(changed)}


def collect(store, plan=None):
    """``(groups, {id: validation})`` of the installed validations and,
    with ``plan``, its ``custom-validations/`` (overriding by id). Each
    validation is ``metadata.read``'s, with ``source`` (``installed`` or
    ``plan``), ``object`` (container, name) and ``text`` (bytes)."""
    _, listing = store.container.listing(CONTAINER)
    if listing is None:
        raise exceptions.CommandError(
            'No validations are installed in this project (no %s '
            'container): %s first.' % (CONTAINER, _INSTALL))
    texts = store.container.get_many(CONTAINER, [
        n for n in listing if n == GROUPS or metadata.validation_id(n)])
    try:
        groups = metadata.read_groups(texts.pop(GROUPS, b'') or b'{}')
    except ValueError as exc:
        raise exceptions.CommandError('%s/%s: %s; %s to restore it.' % (
            CONTAINER, GROUPS, exc, _INSTALL))
    sources = [(CONTAINER, name, 'installed', data)
               for name, data in texts.items()]
    if plan is not None:
        headers, found = store.container.listing(plan, prefix=CUSTOM)
        if found is None:
            raise exceptions.CommandError(
                'Plan %s does not exist; see "openstack overcloud plan '
                'list".' % plan)
        own = [n for n in found if metadata.validation_id(n) and
               '/' not in n[len(CUSTOM):]]
        sources += [(plan, name, 'plan', data) for name, data in
                    sorted(store.container.get_many(plan, own).items())]
    out = {}
    for container, name, source, data in sources:
        vid = metadata.validation_id(name)
        found = metadata.read(vid, data, groups)
        found.update(source=source, object=[container, name], text=data)
        out[vid] = found
    return groups, out


def select(validations, names=None, group=None):
    """The validations a run asks for, in its order (a group's by id);
    CommandError naming each unknown id or group. A group's invalid
    members are kept (each a result saying why it did not run)."""
    if names:
        unknown = [n for n in names if n not in validations]
        if unknown:
            raise exceptions.CommandError(
                'No validation %s; see "openstack overcloud validation '
                'list".' % ', '.join(unknown))
        return [validations[n] for n in dict.fromkeys(names)]
    chosen = [v for _, v in sorted(validations.items())
              if group in v['groups']]
    if not chosen:
        raise exceptions.CommandError(
            'No validation in group %s; see "openstack overcloud validation '
            'list" (its groups column).' % group)
    return chosen


def row(validation):
    """What ``list`` shows of a validation (no text)."""
    return {k: validation[k] for k in (
        'id', 'name', 'groups', 'categories', 'products', 'source',
        'description', 'problem', 'requires')}


def select_labels(validations, groups=(), categories=(), products=()):
    """The validations in any of ``groups``, ``categories`` or
    ``products`` (validations-libs' selection), by id."""
    wanted = [('groups', g) for g in groups or ()] + \
        [('categories', c) for c in categories or ()] + \
        [('products', p) for p in products or ()]
    return [v for _, v in sorted(validations.items())
            if any(label in v[key] for key, label in wanted)]


# a role its plays name: ``roles/<role>/`` of the container
_ROLE = metadata.ID_PATTERN
_MAX_ROLES = 50


def parameters(store, validation):
    """``{name: default}`` of what a validation reads: the defaults of
    the roles its plays name (``roles/<role>/defaults/main.yml`` or
    ``.yaml`` in the container), then its first play's vars; bounded
    as playbooks are. A role's defaults that do not parse are left out."""
    out = {}
    for role in _roles(validation['text'])[:_MAX_ROLES]:
        for suffix in ('yml', 'yaml'):
            data = store.container.get(CONTAINER, 'roles/%s/defaults/main.%s'
                                       % (role, suffix))
            if data is not None:
                break
        found = _parsed(data or b'{}')
        if isinstance(found, dict):
            out.update((str(k), v) for k, v in found.items())
    out.update(validation['parameters'])
    return out


def _roles(text):
    """The roles a playbook's plays name (``roles:`` and top-level
    ``include_role``/``import_role`` tasks), once each, in order."""
    plays = _parsed(text)
    names = []
    for play in plays if isinstance(plays, list) else []:
        if not isinstance(play, dict):
            continue
        for entry in play.get('roles') or []:
            names.append(entry.get('role') or entry.get('name')
                         if isinstance(entry, dict) else entry)
        for task in play.get('tasks') or []:
            for key in ('include_role', 'import_role',
                        'ansible.builtin.include_role',
                        'ansible.builtin.import_role'):
                found = task.get(key) if isinstance(task, dict) else None
                if isinstance(found, dict):
                    names.append(found.get('name'))
    return list(dict.fromkeys(
        n for n in names if isinstance(n, str) and _ROLE.match(n)))


def _parsed(data):
    """The value of YAML ``data`` read as a playbook is; None when it is
    refused (``metadata`` says why of a playbook)."""
    import yaml
    try:
        return content.parse(data, content.PlainLoader,
                             content.MAX_PLAYBOOK_BYTES)
    except (yaml.YAMLError, UnicodeDecodeError):
        return None
