"""The plan's own life cycle in Mistral: the bodies of the plan_create,
plan_amend, plan_list and plan_delete actions, the same for every client.

The files reach Swift from whoever has them (the CLI writes them in one
pass, ``record.steps``; a GUI may PUT them itself) and never travel through
Mistral. The request names what was written (``tree``: path -> MD5) and
what to make of it: the create action checks that Swift holds exactly that,
decides the step against the plan's newest record (``builder``),
generates the passwords of a new plan, renders here when the step needs
it, and records the step as the caller (``store.writer.write_step``). A
client that dies after asking still gets its step on record.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient import protocol
from tripleoplanclient.record import log
from tripleoplanclient.record import steps


def renderer(store, cache, execution=None):
    """The render hook of ``builder.render_step``, here in Mistral: a failed
    render is an entry on record, not a lost step. ``execution``: the
    workflow execution rendering, named in the entry."""
    from tripleoplanclient.mistral import render as render_mod

    def render(plan, inputs, tree):
        try:
            entry = protocol.render_entry(render_mod.render_plan(
                store, plan, inputs, tree=tree, cache=cache))
        except exceptions.CommandError as exc:
            entry = {'state': 'ERROR', 'info': str(exc)}
        if execution:
            entry['execution'] = execution
        return entry
    return render


def _answer(plan, step):
    """The step's summary, with why it failed and how its render went."""
    out = protocol.result(plan, step, step['state'])
    if step['outcome'].get('reason'):
        out['reason'] = step['outcome']['reason']
    render = step.get('render') or {}
    out['render'] = {k: render[k] for k in (
        'state', 'outputs', 'written', 'removed', 'info') if k in render}
    # What a next step of the same client builds on (log.Head).
    out['seen'], out['state'] = step['seen'], step['state']
    return out


def create(store, req, cache, execution=None):
    """Record the creation of a plan whose files are in its container:
    passwords generated (those a stopped create left stay), the tree's
    snapshot, the render, the step."""
    from tripleoplanclient.plan import passwords
    from tripleoplanclient.plan import templates

    plan = layout.check_name(req['container'])
    headers, listing = store.container.listing(plan)
    if listing is None:
        raise exceptions.CommandError(
            'Plan %s has no container: write the plan\'s files to a '
            'container of that name first ("openstack overcloud plan '
            'create" does), then ask again.' % plan)
    head = store.reader.head(plan, required=False) if layout.is_plan(headers) \
        else None
    steps.refuse_created(plan, head)
    environments, inputs = builder.paths(plan, req, 'environments'), \
        builder.inputs(plan, req)
    names = passwords.named(req['passwords'], plan)
    if head is None:
        head = log.Head(log.new_state(), 0, None, [])
    full = builder.claimed(plan, req) if req['tree'] is not None else \
        tree_mod.of_listing(listing)
    if not full:
        raise exceptions.CommandError(
            'Plan %s: its container holds no files; write the templates '
            'first.' % plan)
    manifest = builder.manifest(plan, req, full)
    where = builder.where(builder.directory(plan, req), manifest)
    builder.landed(store, plan, full, listing)
    if not layout.is_plan(headers):
        store.container.create_container(plan)  # marks the container a plan
    objects = plan_objects.PlanObjects(store, plan, {
        p: {'name': p, 'hash': m} for p, m in full.items()}, cache)
    if names is None:
        # No names (a GUI that wrote its own tree, an older client): every
        # template is read here, once, to find them. Names given are
        # trusted for which values to generate, and for nothing else: the
        # caller could write plan-environment.yaml itself, so a lie only
        # spoils its own plan. A name no template needs gets a value Heat
        # never sees (a deploy gives Heat only the parameters its
        # templates declare); a need left out is a parameter without
        # value at the deploy's validation, as for a password taken out
        # of plan-environment.yaml. Every value is still generated here.
        searched = [p for p in full if passwords.searched(p)]
        names = passwords.needed(dict(zip(searched, store.container.map(
            objects.read, searched))))
    path = layout.PLAN_ENVIRONMENT
    stored = objects.read(path) if path in full else None
    data = passwords.plan_environment(stored, passwords.generate(
        names, passwords.stored(stored)), plan=plan)
    release = req['release'] or templates.release_of(
        {p: m for p, m in full.items() if not p.startswith(
            layout.USER_FILES)}, objects.read)
    full[path] = cache.put(data)
    name, snapshot, base = tree_mod.snapshot(full)
    store.container.write(plan, {path: data, name: snapshot})
    step = builder.build(
        'create', {'environments': {'set': environments},
                   'files': manifest,
                   'inputs': inputs,
                   'templates': req['templates'],
                   'release': release,
                   'tree_base': base},
        command_line.command(req, 'tripleoplan.plan_create'), sorted(full),
        **where)
    render = renderer(store, cache, execution) if req['render'] else None
    builder.render_step(render, plan, step, inputs,
                        tree_mod.View.of_full(full))
    builder.write_step(store, plan, step, head)
    return _answer(plan, step)


def amend(store, req, cache, execution=None):
    """Record a change of the plan's environment list, inputs and files
    (those the request names, written already); render when a rendering
    input changed. UNCHANGED when the record has it all already.

    Two Swift requests: the index (the head) and one archive (the step and
    the index). Swift is not asked again whether the files landed: the
    client's own writes were checked by Swift (MD5), and a render or a
    deploy checks each file it reads against its recorded MD5."""
    plan = layout.check_name(req['container'])
    head = store.reader.head(plan)
    change = builder.change(store, plan, req, head, landed_check=False)
    if change.empty:
        return protocol.result(plan, None, head.state)
    step = builder.step(change, 'amend', command=command_line.command(
        req, 'tripleoplan.plan_amend'))
    builder.adopt(store, plan, step, head.state)
    if change.renders:
        render = renderer(store, cache, execution) if req['render'] \
            else None
        builder.render_step(render, plan, step, change.render_inputs,
                            change.view)
    builder.write_step(store, plan, step, head)
    return _answer(plan, step)


def plans(store):
    """Every plan of the caller's account: objects and bytes (container
    HEADs are exact; an account listing's counts may lag)."""
    return {'plans': [
        {'name': name, 'objects': int(h.get('x-container-object-count', 0)),
         'bytes': int(h.get('x-container-bytes-used', 0))}
        for name, h in store.container.plans()]}


def delete(store, heat, req):
    """Delete plans, each with every object in it, none while a Heat stack
    of its name exists: all are checked before any is deleted (only
    checked with ``check_only``)."""
    names = req['containers']
    if not isinstance(names, list) or not names:
        raise exceptions.CommandError(
            'Bad plan_delete request: containers must list plan names. '
            'Nothing was deleted.')
    found = {}
    for plan in names:
        plan = layout.check_name(plan)
        headers, listing = store.container.listing(plan)
        if listing is None or not layout.is_plan(headers):
            raise exceptions.CommandError(
                'Plan %s does not exist; see "openstack overcloud plan '
                'list". Nothing was deleted.' % plan)
        if status.lookup(heat, plan, req['heat_url']) is not None:
            raise exceptions.CommandError(
                'Stack %s exists: delete the stack before its plan. Nothing '
                'was deleted.' % plan)
        unsafe = store.container.unsafe(plan)
        if unsafe:
            # Left alone by the listing: a DELETE of such a name would
            # reach another object (another container's, through "..").
            raise exceptions.CommandError(
                'Plan %s holds %d object(s) whose names no request may carry '
                '(%s): no request is sent for them, so the container cannot '
                'be emptied. Remove them with a tool that sends the name as '
                'it is (curl --path-as-is), then run the command again. '
                'Nothing was deleted.' % (
                    plan, len(unsafe), '; '.join(
                        '%r: %s' % item for item in sorted(unsafe.items())[
                            :5])))
        found[plan] = listing
    if not req['check_only']:
        for plan, listing in found.items():
            store.container.delete(plan, listing)
    return {'plans': [{'name': p, 'objects': len(listing)}
                      for p, listing in found.items()],
            'deleted': not req['check_only']}
