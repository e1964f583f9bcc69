"""Where the validations are: the ``tripleo-validations`` container of
the caller's project, in tripleo-validations' own layout (``LAYOUT``:
the playbooks in ``validation-playbooks/``, beside groups.yaml and the
trees a run uses: roles, modules, plugins), written in one pass
(``install``), and a plan's own ``custom-validations/``, which add or
override by id.

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
PLAYBOOKS = 'validation-playbooks/'
# what a run mounts for ansible-playbook (``support``)
SUPPORT = ('roles/', 'library/', 'module_utils/', 'lookup_plugins/',
           'filter_plugins/', 'callback_plugins/')
LAYOUT = (PLAYBOOKS,) + SUPPORT
_INSTALL = 'run "openstack overcloud validation install"'


def install(store, files):
    """Write ``files`` (``{name: bytes}`` in ``LAYOUT``,
    ``sources.merge``'s) into the container, creating it: only the new
    or changed ones are sent (the listing's hashes), in one bulk request
    when the cluster has bulk upload. Older versions installed the
    validations at the top (``<id>.yaml``): each of an id now in
    ``PLAYBOOKS`` is removed. Other objects the sources do not hold stay
    (``kept``: an operator's own), and so do the groups of the installed
    groups.yaml (``files``' describe theirs): no validation loses its
    groups to an install of fewer sources.
    ``{written, removed, kept: [name], unchanged, validations: n}``."""
    _, listing = store.container.listing(CONTAINER)
    if listing is None:
        store.container.create_container(CONTAINER, headers=USAGE)
        listing = {}
    if GROUPS in listing and GROUPS in files:
        try:
            there = metadata.read_groups(
                store.container.get(CONTAINER, GROUPS) or b'{}')
        except ValueError:
            there = {}      # what is restored
        files = dict(files, **{GROUPS: merged_groups(
            [groups_text(there), files[GROUPS]])})
    old = sorted(n for n in listing if '/' not in n and
                 metadata.validation_id(n) and PLAYBOOKS + n in files)
    changed = {name: data for name, data in files.items()
               if (listing.get(name) or {}).get('hash') != content.md5(data)}
    _send(store.container, changed)
    store.container.delete_objects(CONTAINER, old)
    return {'written': sorted(changed), 'removed': old,
            'unchanged': len(files) - len(changed),
            'kept': sorted(set(listing) - set(files) - set(old)),
            'validations': sum(1 for n in files if _playbook(n))}


def groups_text(groups):
    """groups.yaml's bytes of ``{group: description}``."""
    import yaml
    return yaml.safe_dump({g: [{'description': d}]
                           for g, d in groups.items()},
                          default_flow_style=False, width=72).encode()


def merged_groups(texts):
    """One groups.yaml of ``texts`` (each a groups.yaml's bytes or
    None; a later description wins); ValueError naming what is wrong in
    one."""
    groups = {}
    for text in texts:
        groups.update(metadata.read_groups(text or b'{}'))
    return groups_text(groups)


def _send(container, objects):
    """``objects`` in one extract-archive request when they fit one (a
    cluster without bulk upload answers without verdict: then PUTs)."""
    from tripleoplanclient.plan import bulk
    container.checked(CONTAINER, objects)
    if len(objects) > 1 and len(objects) <= bulk.MAX_OBJECTS and \
            sum(len(d) for d in objects.values()) <= bulk.MAX_BYTES:
        failed = bulk.extract_archive(container.connection(), CONTAINER,
                                      objects)
        if not failed:
            return
        if not bulk.no_verdict(failed):
            raise exceptions.CommandError(
                'Swift rejected %d of the %d objects written to %s (%s); '
                'run the install again.' % (len(failed), len(objects),
                                            CONTAINER, '; '.join(
                                                '%s: %s' % f
                                                for f in failed[:5])))
        container.without_bulk()
    container.write(CONTAINER, objects)


def _playbook(name):
    """The validation id of object ``name`` in ``PLAYBOOKS`` (or at
    the top, where older versions installed them), or None."""
    rest = name[len(PLAYBOOKS):] if name.startswith(PLAYBOOKS) else name
    return metadata.validation_id(rest) if '/' not in rest else None


def collect(store, plan=None, cache=None):
    """``(groups, {id: validation})`` of the installed validations and,
    with ``plan``, its ``custom-validations/`` (overriding by id). Each
    validation is ``metadata.read``'s (the container's at its top too,
    an operator's own where older versions installed them), with
    ``source`` (``installed`` or ``plan``), ``object`` (container, name)
    and ``text`` (bytes). ``cache(container)``: where the bytes of that
    container's objects are kept by MD5 (Mistral's executor: a list and
    the run that follows it read each playbook once)."""
    _, listing = store.container.listing(CONTAINER)
    if listing is None:
        raise exceptions.CommandError(
            'No validations are installed in this project (no %s '
            'container): %s first.' % (CONTAINER, _INSTALL))
    texts = _read(store, CONTAINER, listing, [
        n for n in listing if n == GROUPS or _playbook(n)], cache)
    try:
        groups = metadata.read_groups(texts.pop(GROUPS, b'') or b'{}')
    except ValueError as exc:
        raise exceptions.CommandError('%s/%s: %s; %s to restore it.' % (
            CONTAINER, GROUPS, exc, _INSTALL))
    # ``PLAYBOOKS``' after those at the top: theirs win
    sources = [(CONTAINER, name, 'installed', data) for name, data in
               sorted(texts.items(), key=lambda i: '/' in i[0])]
    if plan is not None:
        headers, found = store.container.listing(plan, prefix=CUSTOM)
        if found is None:
            raise exceptions.CommandError(
                'Plan %s does not exist; see "openstack overcloud plan '
                'list".' % plan)
        own = [n for n in found if metadata.validation_id(n) and
               '/' not in n[len(CUSTOM):]]
        sources += [(plan, name, 'plan', data) for name, data in
                    sorted(_read(store, plan, found, own, cache).items())]
    out = {}
    for container, name, source, data in sources:
        vid = metadata.validation_id(name)
        found = metadata.read(vid, data, groups)
        found.update(source=source, object=[container, name], text=data)
        out[vid] = found
    return groups, out


def _read(store, container, listing, names, cache):
    """``{name: bytes}`` of objects ``names`` of ``container``: from
    ``cache(container)`` by the ``listing``'s MD5 when it holds them, the
    others from Swift (kept when their bytes are those the listing
    says)."""
    if cache is None:
        return store.container.get_many(container, names)
    kept = cache(container)
    found = {n: kept.get(listing[n]['hash']) for n in names}
    missing = [n for n, data in found.items() if data is None]
    for name, data in store.container.get_many(container, missing).items():
        found[name] = data
        if content.md5(data) == listing[name]['hash']:
            kept.put(data)
    return found


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
