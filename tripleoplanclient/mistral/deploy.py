"""Create or update a plan's Heat stack (the body of the deploy action).

What Heat is given comes from the plan (``assembly``); Heat merges the
environments itself, in the recorded order. The stack is then given that
merged environment, not the files (``merged``): passwords stay out of the
stack's files map.
"""

import json

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import assembly
from tripleoplanclient.mistral import library


def merged(heat, heat_url, fields, operation, check=None):
    """The create/update fields, with no secret in a file.

    Heat ignores a request's environment once ``environment_files`` are
    given, and keeps every file it is given where anyone who can show the
    stack reads it (``openstack stack file list``). So Heat merges the
    environments (its merge strategies included) in a template
    validation, which stores nothing, and the stack gets that merged
    environment as its own: there a hidden parameter (every generated
    password) is masked. The files map keeps the templates and the files
    they reach, but no environment file: an operator's own password in an
    ``-e`` file would be readable there. ``operation`` (create, update):
    what Heat refuses when the validation fails. ``check``: called with
    Heat's validation, its nested stacks' parameters included
    (``library.refuse_to_deploy``).
    """
    result = assembly.heat_call(
        heat_url, operation, heat.stacks.validate,
        template=fields['template'], files=fields['files'],
        environment_files=fields['environment_files'],
        show_nested=check is not None)
    if check is not None and isinstance(result, dict):
        check(result)
    environment = (result or {}).get('Environment')
    if not isinstance(environment, dict):
        raise exceptions.CommandError(
            'Heat at %s returned no merged environment from its template '
            'validation; this client needs a Heat that does (Pike or '
            'later).' % heat_url)
    # No environment file goes into the stack's files: Heat has their
    # merge, and a file would show a hidden value (the passwords, the
    # values of "parameters set", an operator's own) in clear.
    environments = set(fields['environment_files'])
    files = {url: text for url, text in fields['files'].items()
             if url not in environments}
    # Heat masks a hidden parameter only where a template of the stack
    # declares it: a default no template declares (a password of a service
    # not deployed) is not used, and not given.
    declared = _declared([fields['template']] + list(files.values()))
    defaults = environment.get('parameter_defaults') or {}
    environment['parameter_defaults'] = {
        name: value for name, value in defaults.items() if name in declared}
    return {'template': fields['template'], 'environment': environment,
            'files': files}


def _declared(templates):
    """The parameter names these templates declare: parsed, or the JSON
    heatclient serialized every template it resolved to (a file that is
    not JSON is no template, a script for get_file say)."""
    names = set()
    for template in templates:
        if isinstance(template, str):
            if 'heat_template_version' not in template:
                continue
            try:
                template = json.loads(template)
            except ValueError:
                continue
        if isinstance(template, dict) and 'heat_template_version' in \
                template and isinstance(template.get('parameters'), dict):
            names.update(template['parameters'])
    return names


_LOOK_UP = object()


def current_stack(heat, req, summary, stack=_LOOK_UP):
    """``(stack or None, unchanged)``: the plan's stack, refused while an
    operation runs on it; ``unchanged`` when the fields have the
    fingerprint of the last successful deploy (``req['unchanged']``) and
    the stack is COMPLETE and untouched since: then ``summary`` says
    operation NONE. ``stack``: as the caller just looked it up (None: no
    stack), else it is looked up here."""
    plan = req['container']
    if stack is _LOOK_UP:
        stack = status.lookup(heat, plan, req['heat_url'])
    stack = status.check_idle(stack, plan)
    unchanged = req['unchanged']
    if stack is not None and unchanged and \
            unchanged.get('fingerprint') == summary['fingerprint'] and \
            stack.stack_status in status.DONE and \
            unchanged.get('updated') == status.updated(stack):
        summary.update(operation='NONE', stack_id=stack.id,
                       status=stack.stack_status,
                       updated=status.updated(stack))
        return stack, True
    return stack, False


def _prepared(objects, req):
    """``prepare``; when it fails on an environment and the request
    validates, every environment's problem in one error."""
    try:
        return assembly.prepare(objects, req)
    except exceptions.CommandError:
        if req['validate']:
            found = assembly.environment_problems(
                objects, assembly.container_url(req), req['environments'])
            if len(found) > 1:
                raise exceptions.CommandError(
                    'Plan %s is not ready to deploy: %s' % (
                        objects.plan, ' '.join(m for _, m in found)))
        raise


def _check(objects, req, fields, summary):
    def check(result):
        # Overrides are allowed, and told: the client prints them.
        warnings = library.refuse_to_deploy(objects, req, fields, result)
        if warnings:
            summary['warnings'] = warnings
    return check


def deploy(store, heat, req, cache=None, stack=_LOOK_UP):
    """Create or update stack ``container`` from the plan; a summary.

    ``req``: what the recorded step gives Heat (``stack_step.run``:
    container, endpoints, environments, plan_environment, tree, timeout,
    validate, unchanged). ``unchanged`` is ``{'fingerprint', 'updated'}``
    of the last successful deploy: when the assembled fields have that
    fingerprint and the stack is COMPLETE and untouched since, Heat is not
    called (operation NONE). ``cache``: as for ``render.render_plan``.
    ``stack``: the plan's stack as the caller just found it idle (a stack
    busy since is refused by Heat itself), else looked up here. An
    update's summary has ``marker``: the stack's newest event before it.
    """
    plan, heat_url = req['container'], req['heat_url']
    objects = assembly.open_plan(store, req, cache)
    fields, summary = _prepared(objects, req)
    stack, unchanged = current_stack(heat, req, summary, stack)
    if unchanged:
        return summary
    check = _check(objects, req, fields, summary) if req['validate'] \
        else None
    try:
        common = dict(merged(heat, heat_url, fields,
                             'create' if stack is None else 'update', check),
                      timeout_mins=int(req['timeout']),
                      disable_rollback=True)
        if stack is None:
            result = assembly.heat_call(heat_url, 'create', heat.stacks.create,
                                        stack_name=plan, **common)
            summary.update(operation='CREATE',
                           stack_id=result['stack']['id'])
        else:
            # The newest event before the update: whoever follows it
            # (the client, a GUI) reads only the events after it.
            events = assembly.heat_call(
                heat_url, 'update', heat.events.list, '%s/%s' % (
                    plan, stack.id), sort_dir='desc', limit=1)
            assembly.heat_call(heat_url, 'update', heat.stacks.update,
                               stack.id, existing=False, **common)
            summary.update(operation='UPDATE', stack_id=stack.id,
                           marker=events[0].id if events else None)
    except exceptions.CommandError as exc:
        # Heat quotes the value it refuses, a hidden one too; the
        # workflow's answer is kept.
        raise exceptions.CommandError(library.unquoted(
            str(exc), objects, req['environments'], req['plan_environment'],
            fields)) from None
    return summary
