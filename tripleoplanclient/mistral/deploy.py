"""Create or update a plan's Heat stack (the body of the deploy action).

The template, every file it reaches and the environment files come from
the plan in Swift; heatclient's template utilities resolve the references,
and Heat merges the environments itself (``environment_files``), in the
recorded order. Parameters: generated passwords < the plan's
``parameter_defaults`` < the environments. The stack is then given that
merged environment, not the files (``merged``): passwords stay out of the
stack's files map.
"""

import hashlib
import json
from urllib import parse

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import passwords
from tripleoplanclient.stack import status


def _load(objects, path, what):
    # Not quoted: plan environments hold the passwords.
    data = content.load_yaml(objects.read(path), '%s %s of plan %s' % (
        what, path, objects.plan), quote=False) or {}
    if not isinstance(data, dict):
        raise exceptions.CommandError(
            '%s %s of plan %s is not a mapping.' % (what, path, objects.plan))
    return data


def parameter_defaults(objects, plan_environment=None):
    """Generated passwords, overridden by the plan's parameter_defaults."""
    loaded = [_load(objects, path, 'Plan environment')
              for path in (layout.PLAN_ENVIRONMENT, plan_environment)
              if path and path in objects]
    return passwords.parameter_defaults(loaded)


def _reader(objects, base_url):
    """heatclient's ``object_request``: the text of a plan object by its
    URL under ``base_url``; a reference outside the plan, or to an
    object it lacks, is a CommandError naming it."""
    plan = objects.plan
    texts = {}

    def object_request(method, url):
        if not url.startswith(base_url):
            raise exceptions.CommandError(
                'Plan %s references %s, which is outside the plan; store the '
                'file in the plan (-e or --upload-file).' % (plan, url))
        path = parse.unquote(url[len(base_url):])
        if path not in texts:
            if path not in objects:
                raise exceptions.CommandError(
                    'Plan %s references %s, which it does not hold; store '
                    'the file in the plan (-e or --upload-file).'
                    % (plan, path))
            # Heat's files map carries text (its JSON body cannot hold
            # bytes).
            texts[path] = objects.read(path).decode('utf-8')
        return texts[path]
    return object_request


def _environment(object_request, base_url, path):
    """``(url, files, env)`` of one environment of the plan."""
    from heatclient.common import template_utils

    url = base_url + parse.quote(path)
    files, env = template_utils.process_environment_and_files(
        env_path=url, env_path_is_object=lambda u: True,
        object_request=object_request)
    return url, files, env


def _failed(plan, path, exc):
    if isinstance(exc, exceptions.CommandError):
        return exc
    # heatclient's parse errors do not always name the file.
    return exceptions.CommandError(
        'Plan %s, %s (or a file it references): %s' % (plan, path, exc))


def assemble(objects, base_url, environments, plan_environment=None,
             template=layout.TEMPLATE):
    """The create/update fields Heat needs, all from the plan.

    ``base_url``: the container's URL; the keys of ``files`` are object URLs
    under it, as heatclient names them.
    """
    from heatclient.common import template_utils

    plan = objects.plan
    environments = layout.parameter_environments(environments, objects)
    for path in [template] + environments:
        if path not in objects:
            raise exceptions.CommandError(
                'Plan %s has no %s; add it with "openstack overcloud plan '
                'amend" or fix the environment list.' % (plan, path))
    object_request = _reader(objects, base_url)
    path = template
    try:
        files, body = template_utils.get_template_contents(
            template_object=base_url + template,
            object_request=object_request)
        env_urls = []
        for path in environments:
            url, env_files, env = _environment(object_request, base_url,
                                               path)
            files.update(env_files)
            # heatclient leaves an object environment out of the files map
            # (it does so only for local ones); Heat reads it from there,
            # with its registry paths made absolute as above.
            files[url] = json.dumps(env)
            env_urls.append(url)
    except Exception as exc:
        raise _failed(plan, path, exc)
    # The plan's parameters go first in the list, as the parameter_defaults
    # of plan-environment.yaml (its other keys are not Heat environment
    # sections); ``merged`` keeps this file from the stack.
    first = base_url + layout.PLAN_ENVIRONMENT
    files[first] = json.dumps({'parameter_defaults': parameter_defaults(
        objects, plan_environment)})
    return {'template': body, 'files': files,
            'environment_files': [first] + env_urls}


def environment_problems(objects, base_url, environments):
    """``[(path, message)]``: each environment of ``environments`` the
    plan lacks, cannot parse, or whose references it does not hold (all
    of them, where ``assemble`` stops at the first)."""
    object_request = _reader(objects, base_url)
    problems = []
    for path in environments:
        if path not in objects:
            problems.append((path, 'Plan %s has no %s; add it with '
                                   '"openstack overcloud plan amend" or fix '
                                   'the environment list.'
                             % (objects.plan, path)))
            continue
        try:
            _environment(object_request, base_url, path)
        except Exception as exc:
            problems.append((path, str(_failed(objects.plan, path, exc))))
    return problems


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
    result = heat_call(heat_url, operation, heat.stacks.validate,
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


def fingerprint(fields):
    """One digest of everything Heat is given: equal means no change."""
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def heat_message(exc):
    """Heat's own message out of a heatclient HTTPException."""
    error = getattr(exc, 'error', None)
    inner = error.get('error') if isinstance(error, dict) else None
    if isinstance(inner, dict) and inner.get('message'):
        return str(inner['message'])
    return str(exc)


def heat_call(heat_url, what, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``; Heat's refusal or absence a CommandError
    naming ``what`` (create, update...)."""
    from heatclient import exc as heat_exc
    try:
        return fn(*args, **kwargs)
    except heat_exc.HTTPException as exc:
        raise exceptions.CommandError('Heat refused the stack %s: %s' % (
            what, heat_message(exc)))
    except Exception as exc:
        if exceptions.unreachable(exc):
            raise exceptions.CommandError(
                'Heat is unreachable at %s (%s).' % (heat_url,
                                                     type(exc).__name__))
        raise


def open_plan(store, req, cache=None):
    """The objects of plan ``req['container']`` as its step recorded them
    (``req['tree']``), read through ``cache`` (as for
    ``render.render_plan``); a PlanObjects."""
    plan = req['container']
    headers, listing = store.listing(plan)
    if listing is None or not layout.is_plan(headers):
        raise exceptions.CommandError('Plan %s does not exist.' % plan)
    # What the step recorded, not what a replica lists right now.
    cache = plan_objects.ContentCache() if cache is None else cache
    listing = plan_objects.recorded(store, plan, listing, req['tree'], cache)
    return plan_objects.PlanObjects(store, plan, listing, cache)


def container_url(req):
    """The URL of the request's plan container with a trailing slash:
    the base of every file URL Heat is given (``assemble``)."""
    return '%s/%s/' % (req['swift_url'].rstrip('/'),
                       parse.quote(req['container']))


def prepare(objects, req):
    """``(fields, summary)``: what Heat gets for the request's
    environments (``assemble``), and the summary's counts and
    fingerprint."""
    base_url = container_url(req)
    fields = assemble(objects, base_url, req['environments'],
                      req['plan_environment'])
    summary = {'fingerprint': fingerprint(fields), 'swift_gets': objects.gets,
               'cache_hits': objects.hits, 'files': len(fields['files']),
               'environment_files': len(fields['environment_files'])}
    return fields, summary


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
        return prepare(objects, req)
    except exceptions.CommandError:
        if req['validate']:
            found = environment_problems(objects, container_url(req),
                                         req['environments'])
            if len(found) > 1:
                raise exceptions.CommandError(
                    'Plan %s is not ready to deploy: %s' % (
                        objects.plan, ' '.join(m for _, m in found)))
        raise


def _check(objects, req, fields):
    from tripleoplanclient.mistral import library

    def check(result):
        library.refuse_to_deploy(objects, req, fields, result)
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
    busy since is refused by Heat itself), else looked up here.
    """
    plan, heat_url = req['container'], req['heat_url']
    objects = open_plan(store, req, cache)
    fields, summary = _prepared(objects, req)
    stack, unchanged = current_stack(heat, req, summary, stack)
    if unchanged:
        return summary
    check = _check(objects, req, fields) if req['validate'] else None
    try:
        common = dict(merged(heat, heat_url, fields,
                             'create' if stack is None else 'update', check),
                      timeout_mins=int(req['timeout']),
                      disable_rollback=True)
        if stack is None:
            result = heat_call(heat_url, 'create', heat.stacks.create,
                               stack_name=plan, **common)
            summary.update(operation='CREATE',
                           stack_id=result['stack']['id'])
        else:
            heat_call(heat_url, 'update', heat.stacks.update, stack.id,
                      existing=False, **common)
            summary.update(operation='UPDATE', stack_id=stack.id)
    except exceptions.CommandError as exc:
        # Heat quotes the value it refuses, a hidden one too; the
        # workflow's answer is kept.
        from tripleoplanclient.mistral import library
        raise exceptions.CommandError(library.unquoted(
            str(exc), objects, req['environments'], req['plan_environment'],
            fields)) from None
    return summary
