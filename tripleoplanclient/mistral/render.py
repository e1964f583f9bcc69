"""Render a plan in place in Swift (the body of the render action).

Reads only what rendering needs (the jinja sources, the includes they pull,
roles, networks and excludes), renders once, writes the outputs that
changed in one batch and removes the outputs of the previous render that
are no longer produced (a role or a network was removed). What it replaces
or removes is kept first (``plan.tree``), so earlier steps stay
reproducible. ``changes`` is that render without the writes (the preview
action renders in memory what a step would render).
"""

import concurrent.futures
import logging

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import limits
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.plan import copies
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import render_process
from tripleoplanclient.plan import rendering
from tripleoplanclient.plan import schema
from tripleoplanclient.plan import tree as plan_tree

LOG = logging.getLogger(__name__)
# The manifest as a render writes it: inputs and outputs, path -> MD5.
_MANIFEST = schema.Fields({}, {'inputs': schema.DATA,
                               'outputs': (None, schema.Map(str, schema.MD5))})


def render_plan(store, plan, inputs=None, workers=8, cache=None, tree=None):
    """Render ``plan``; returns a summary dict (counts and paths).

    ``inputs`` names the roles and networks files (``roles_data``,
    ``network_data`` plan paths); the client passes them, as the record
    may not hold the step being made yet. ``tree``: the plan's tree with
    the step's writes (``plan.tree``), read instead of the container's
    listing for those paths. ``cache``: content already read, for this
    plan only (``objects.ContentCache.scoped``); none kept without.
    """
    headers, listing = store.container.listing(plan)
    if listing is None or not layout.is_plan(headers):
        raise exceptions.CommandError('Plan %s does not exist.' % plan)
    cache = plan_objects.ContentCache() if cache is None else cache
    listing = plan_objects.recorded(store, plan, listing, tree, cache)
    render = changes(store, plan_objects.PlanObjects(
        store, plan, listing, cache), inputs, workers)
    if render.done:
        # Same inputs, outputs untouched since: the render is done.
        return _summary(render.hashes, {}, [], render.roles,
                        render.networks, render.ignored)
    changed, stale = render.changed, render.stale
    # What earlier steps rendered stays reproducible.
    copies.keep(store.container, plan, {
        p: listing[p]['hash'] for p in list(changed) + stale
        if p in listing}, plan_tree.kept(listing))
    store.container.write(plan, changed)
    for data in changed.values():     # the deploy that follows reads them
        cache.put(data)
    store.container.delete_objects(plan, stale)
    store.container.write(plan, {layout.RENDER_MANIFEST: yaml.dump(
        {'inputs': render.fingerprint, 'outputs': render.hashes},
        Dumper=content.PlainDumper).encode('utf-8')})
    return _summary(render.hashes, changed, stale, render.roles,
                    render.networks, render.ignored)


class Changes:
    """What one render of a plan's objects changes (nothing written).

    ``done``: nothing to render (same inputs as the last render, its
    outputs untouched since); else ``changed`` (output path -> bytes
    unlike the object's), ``stale`` (outputs of the last render no longer
    produced, to remove). ``hashes``: every output's MD5; ``fingerprint``:
    the inputs', for the manifest. ``ignored``: what of the last manifest
    was not trusted (why, naming it): nothing is removed on its word.
    """

    def __init__(self, roles, networks, fingerprint, hashes, changed=None,
                 stale=(), done=False, ignored=()):
        self.roles = roles
        self.networks = networks
        self.fingerprint = fingerprint
        self.hashes = hashes
        self.changed = changed or {}
        self.stale = list(stale)
        self.done = done
        self.ignored = list(ignored)


def changes(store, objects, inputs=None, workers=8):
    """Render ``objects`` (a PlanObjects, or objects.Overlaid: what a step
    would leave) in memory; a ``Changes``. Reads the objects rendering
    needs and the last render's manifest; writes nothing."""
    plan, listing = objects.plan, objects.listing
    roles, (networks,) = rendering.data_paths(inputs or {}, listing)
    if roles not in listing:
        raise exceptions.CommandError(
            'Plan %s has no roles data (%s).' % (plan, roles))

    data_inputs = {'roles_data': roles, 'network_data': networks}
    fingerprint = {p: e['hash'] for p, e in listing.items()
                   if rendering.is_input(p, data_inputs)}
    last, ignored = _last_render(store, plan, listing)
    last_outputs = last.get('outputs') or {}
    if not ignored and last.get('inputs') == fingerprint and all(
            listing.get(p, {}).get('hash') == md5
            for p, md5 in last_outputs.items()):
        return Changes(roles, networks, fingerprint, dict(last_outputs),
                       done=True)

    def read(path):
        if path not in listing:
            raise KeyError(path)
        return objects.read(path)

    # Everything known to be needed, fetched side by side; includes are
    # fetched when the renderer asks for them.
    wanted = [p for p in listing if rendering.is_source(p)] + [
        p for p in (roles, networks, rendering.EXCLUDES) if p in listing]
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(objects.read, wanted))

    try:
        # In a child process, bounded in output, time and memory.
        outputs = render_process.render(listing, read, roles, networks,
                                        limits.render_limits())
    except rendering.RenderError as exc:
        raise exceptions.CommandError(str(exc))

    hashes = {p: content.md5(d) for p, d in outputs.items()}
    changed = {p: outputs[p] for p in outputs
               if listing.get(p, {}).get('hash') != hashes[p]}
    stale = sorted(p for p in set(last_outputs) - set(outputs)
                   if p in listing and not rendering.is_source(p))
    return Changes(roles, networks, fingerprint, hashes, changed, stale,
                   ignored=ignored)


def _last_render(store, plan, listing):
    """``(manifest, ignored)``: the last render's manifest as far as it
    can be trusted, and why any of it was not.

    The manifest decides what a render removes, and anyone who can write
    the container can write it: a manifest that is not what a render
    writes is no manifest (nothing is removed on its word, and it is
    written anew); an output no render could have written (outside the
    plan, in its record, its passwords...) is left alone and named.
    """
    name = layout.RENDER_MANIFEST
    if name not in listing:
        return {}, []
    try:
        last = content.parse(store.container.get(plan, name) or b'',
                             content.StoredLoader, content.MAX_STORED_BYTES)
        if not isinstance(last, dict):
            raise schema.Damaged('it is not a YAML mapping')
        schema.check(last, _MANIFEST)
    except (yaml.YAMLError, ValueError, TypeError, AttributeError,
            RecursionError, schema.Damaged) as exc:
        # (libyaml raises AttributeError on "!!timestamp x")
        why = str(exc) if isinstance(exc, schema.Damaged) else \
            content.problem(exc) if isinstance(
                exc, content.StructureError) else 'it is not YAML text'
        LOG.warning('plan %s: %s is damaged: %s', plan, name, why)
        return {}, ['%s is not what a render writes (%s): nothing was '
                    'removed on its word, and it was written anew'
                    % (name, why)]
    outputs, ignored = {}, []
    for path, md5 in (last.get('outputs') or {}).items():
        problem = layout.path_problem(path)
        if problem:
            LOG.warning('plan %s: %s names %r: %s', plan, name, path,
                        problem)
            ignored.append('%s names an output no render writes, left '
                           'alone: %s' % (name, problem))
        else:
            outputs[path] = md5
    return dict(last, outputs=outputs), ignored


def _summary(outputs, written, removed, roles, networks, ignored=()):
    """``hashes``: every output's MD5, for the step's record of the tree;
    ``ignored``: what of the last manifest was not trusted."""
    out = {'outputs': len(outputs), 'written': sorted(written),
           'removed': removed, 'roles_data': roles,
           'network_data': networks, 'hashes': dict(outputs)}
    if ignored:
        out['ignored'] = list(ignored)
    return out
