"""Heat's preview of a plan's stack operation (the body of the preview
action): what a deploy, update or upgrade would do, with the changes its
step would make, and nothing written anywhere.

The step's changes are not in Swift: the request carries them as an
*overlay* (``protocol.encode_overlay``: the content of each object the
step would add or change) and a list of paths it would delete. They lie
on top of the plan as its step recorded it (``assembly.open_plan``); when
the step would render, the render runs here in memory and its outputs
join the overlay. Then Heat gets exactly what a deploy would give it
(``assembly.prepare`` and ``deploy.merged``), asked for a preview.

What Heat answers (read in Heat 27's ``heat/engine/service.py`` and
``heat/api/openstack/v1/stacks.py``):

* no stack yet, ``POST /stacks/preview``: the stack with ``resources``,
  each formatted like ``resource show`` (with its properties: passwords
  too; only name, type and stack are kept here). A resource with a nested
  stack (a template resource, a group) is replaced by the list of its
  nested stack's resources, so the list nests; every resource is one to
  be added. Nested stacks are named ``<parent stack>-<resource>``.
* a stack, ``PUT /stacks/<name>/<id>/preview[?show_nested=True]``:
  ``{'resource_changes': {added, deleted, replaced, unchanged, updated}}``,
  each a flat list of resources (``resource_name``, ``resource_type``,
  ``stack_name``, ``stack_identity``; ``parent_resource`` in a nested
  stack, ``nested_stack_id`` on a resource with a stack of its own). With
  ``show_nested`` Heat appends the resources of the nested stacks of
  updated, replaced, added and deleted resources to the same lists. An
  existing nested stack is named ``<parent stack>-<resource>-<short id>``.
* Heat 27 fails that ``show_nested`` preview (400 or 500 after the whole
  nested preview, ~28 s on THT 18) as soon as a nested stack it builds in
  memory holds a resource with a nested stack of its own: it formats that
  resource's ``nested_stack_id`` from ``nested_identifier()``, which is
  None for a stack not created (``dict(None)``, a TypeError). Nearly every
  THT change has such resources. Heat offers no other way to the nested
  detail: a nested stack cannot be previewed on its own (its template and
  parameters exist only inside the parent's update). So the preview asks
  with ``show_nested`` and, when Heat fails it, asks again at the top
  level only and says so (``nested``, ``nested_error``).

Where a resource belongs (``stack``) is a path of resource names from the
plan's stack: ``overcloud``, ``overcloud/Controller/0``; worked out from
the links Heat gives (``nested_stack_id``, ``parent_resource`` and the
stack names it builds, the nesting of a create preview's lists). A stack
it cannot place keeps Heat's name.
"""

import re

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import assembly
from tripleoplanclient.mistral import deploy
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.mistral import render
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol

KINDS = ('added', 'updated', 'replaced', 'deleted', 'unchanged')
# Heat's message when the nested preview fails, at most
NESTED_ERROR_CHARS = 300
_RENDER_INPUTS = ('roles_data', 'network_data')


def preview(store, heat, req, cache=None):
    """Heat's preview of the plan's stack operation; a summary.

    ``req``: the preview request (``protocol.ACTIONS['preview']``) with
    both endpoints known; ``cache``: as for ``deploy.deploy`` (only
    content read from Swift goes there, never the overlay's or the
    render's). Reads Swift and asks Heat; writes nothing. The summary::

        {'operation': 'CREATE' | 'UPDATE' | 'NONE',
         'stack_id': str or None (CREATE), 'fingerprint': str,
         'files': int, 'environment_files': int, 'swift_gets': int,
         'rendered': [output paths the render changed],
         'nested': bool (changes inside nested stacks included),
         'nested_error': Heat's message when it failed them, or None,
         'resources': {kind: [{'name', 'type', 'stack'}]}}

    ``kind``: each of KINDS; each list sorted by stack, name and type.
    NONE (the fingerprint and stack of ``req['unchanged']``): Heat is not
    asked for a preview, every list is empty.
    """
    plan, heat_url = req['container'], req['heat_url']
    added = overlay(req)
    deleted = _deleted(req, added)
    inputs = _render_inputs(req['render'])
    objects = plan_objects.Overlaid(assembly.open_plan(store, req, cache),
                                    added, deleted)
    rendered = []
    if inputs is not None:
        changes = render.changes(store, objects, inputs)
        if not changes.done:
            objects = objects.changed(changes.changed, changes.stale)
            rendered = sorted(changes.changed)
    fields, summary = assembly.prepare(objects, req)
    stack, unchanged = deploy.current_stack(heat, req, summary)
    result = {'fingerprint': summary['fingerprint'],
              'files': summary['files'],
              'environment_files': summary['environment_files'],
              'swift_gets': summary['swift_gets'], 'rendered': rendered,
              'nested': True, 'nested_error': None,
              'resources': {kind: [] for kind in KINDS}}
    if unchanged:
        result.update(operation='NONE', stack_id=stack.id)
        return result
    what = 'create' if stack is None else 'update'
    common = dict(deploy.merged(heat, heat_url, fields, what + ' preview'),
                  timeout_mins=int(req['timeout']), disable_rollback=True)
    if stack is None:
        found = assembly.heat_call(heat_url, 'create preview',
                                   heat.stacks.preview, stack_name=plan,
                                   **common)
        result.update(operation='CREATE', stack_id=None,
                      resources=_created(found.to_dict(), plan))
        return result
    changes, error = _update_changes(heat, heat_url, '%s/%s' % (
        plan, stack.id), common, req['show_nested'])
    result.update(operation='UPDATE', stack_id=stack.id,
                  nested=bool(req['show_nested']) and error is None,
                  nested_error=error, resources=_changed(changes, plan))
    return result


def overlay(req):
    """The request's overlay, decoded and checked: ``{plan path: bytes}``."""
    added = protocol.decode_overlay(req['overlay'])
    for path in added:
        _check(path, 'overlay')
    return added


def _check(path, what):
    # The record is never a step's; the plan's passwords file is when a new
    # release needs new passwords (and a preview writes nothing).
    problem = layout.path_problem(path, 'templates' if path ==
                                  layout.PLAN_ENVIRONMENT else 'user')
    if problem:
        raise exceptions.CommandError(
            'Bad preview request: %s: %s A preview changes no such path.'
            % (what, problem))


def _deleted(req, added):
    deleted = req['deleted'] or []
    if not isinstance(deleted, list):
        raise exceptions.CommandError(
            'Bad preview request: deleted is not a list of plan paths.')
    for path in deleted:
        _check(path, 'deleted')
        if path in added:
            raise exceptions.CommandError(
                'Bad preview request: %s is both in the overlay and '
                'deleted.' % path)
    return deleted


def _render_inputs(inputs):
    if inputs is None:
        return None
    if not isinstance(inputs, dict) or set(inputs) - set(_RENDER_INPUTS) \
            or not all(v is None or isinstance(v, str)
                       for v in inputs.values()):
        raise exceptions.CommandError(
            'Bad preview request: render is not a mapping of %s to plan '
            'paths.' % ' and '.join(_RENDER_INPUTS))
    return {k: inputs.get(k) for k in _RENDER_INPUTS}


def _update_changes(heat, heat_url, stack_id, common, show_nested):
    """``(Heat's resource_changes, why the nested detail is missing)``."""
    from heatclient import exc as heat_exc

    if show_nested:
        try:
            return heat.stacks.preview_update(
                stack_id, existing=False, show_nested=True,
                **common).get('resource_changes') or {}, None
        except heat_exc.HTTPException as exc:
            if getattr(exc, 'code', None) not in (400, 500):
                raise exceptions.CommandError(
                    'Heat refused the stack update preview: %s'
                    % assembly.heat_message(exc))
            error = ' '.join(assembly.heat_message(exc).split())
            if len(error) > NESTED_ERROR_CHARS:
                error = error[:NESTED_ERROR_CHARS - 3] + '...'
        except Exception as exc:
            if exceptions.unreachable(exc):
                raise exceptions.CommandError(
                    'Heat is unreachable at %s (%s).' % (
                        heat_url, type(exc).__name__))
            raise
    else:
        error = None
    body = assembly.heat_call(heat_url, 'update preview',
                              heat.stacks.preview_update, stack_id,
                              existing=False, **common)
    return body.get('resource_changes') or {}, error


class _Stacks:
    """Where each stack Heat names sits below the plan's stack."""

    # An existing nested stack: <parent>-<resource>-<short id>; one Heat
    # builds for a preview: <parent>-<resource>.
    _NAME = r'(.+)-%s(?:-[a-z0-9]{12})?\Z'

    def __init__(self, root):
        self.root = root
        self.parent = {}        # stack name -> (parent stack, resource)

    def link(self, child, parent, resource):
        if isinstance(child, str) and isinstance(parent, str) and \
                isinstance(resource, str) and child != self.root:
            self.parent.setdefault(child, (parent, resource))

    def learn(self, resource):
        """The links one resource (Heat's format) shows."""
        name = resource.get('stack_name')
        nested = resource.get('nested_stack_id')
        if isinstance(nested, dict):
            self.link(nested.get('stack_name'), name,
                      resource.get('resource_name'))
        parent = resource.get('parent_resource')
        if isinstance(parent, str) and isinstance(name, str):
            match = re.match(self._NAME % re.escape(parent), name)
            if match:
                self.link(name, match.group(1), parent)

    def path(self, name):
        parts = []
        seen = set()
        while name != self.root:
            if name in seen or name not in self.parent:
                return '/'.join([str(name)] + parts[::-1])
            seen.add(name)
            name, resource = self.parent[name]
            parts.append(resource)
        return '/'.join([self.root] + parts[::-1])

    def entry(self, resource):
        return {'name': resource.get('resource_name'),
                'type': resource.get('resource_type'),
                'stack': self.path(resource.get('stack_name'))}


def _sorted(entries):
    unique = {(e['stack'] or '', e['name'] or '', e['type'] or ''): e
              for e in entries}
    return [unique[k] for k in sorted(unique)]


def _changed(changes, root):
    """An update preview's changes, each resource ``{name, type, stack}``."""
    stacks = _Stacks(root)
    lists = {kind: [r for r in (changes.get(kind) or [])
                    if isinstance(r, dict)] for kind in KINDS}
    for resources in lists.values():
        for resource in resources:
            stacks.learn(resource)
    return {kind: _sorted(stacks.entry(r) for r in resources)
            for kind, resources in lists.items()}


def _flat(items):
    for item in items:
        if isinstance(item, list):
            yield from _flat(item)
        elif isinstance(item, dict):
            yield item


def _created(stack, root):
    """A create preview's resources, every one added."""
    items = stack.get('resources') or []
    stacks = _Stacks(root)
    for resource in _flat(items):
        stacks.learn(resource)
    _learn_lists(items, stacks)
    changes = {kind: [] for kind in KINDS}
    changes['added'] = _sorted(stacks.entry(r) for r in _flat(items))
    return changes


def _learn_lists(items, stacks, enclosing=None):
    """Links from a create preview's nesting: each list holds one stack's
    resources and lies in the list of its parent stack; a stack with no
    resource of its own (a group of nested stacks) is placed this way."""
    name = _list_stack(items, stacks)
    if name and enclosing and name.startswith(enclosing + '-'):
        stacks.link(name, enclosing, name[len(enclosing) + 1:])
    for item in items:
        if isinstance(item, list):
            _learn_lists(item, stacks, name)


def _list_stack(items, stacks):
    """The name of the stack whose resources ``items`` are, or None."""
    for item in items:
        if isinstance(item, dict) and item.get('stack_name'):
            return item['stack_name']
    for item in items:
        if isinstance(item, list):
            child = _list_stack(item, stacks)
            if child in stacks.parent:
                return stacks.parent[child][0]
    return None
