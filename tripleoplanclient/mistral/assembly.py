"""What Heat is given for a plan, assembled from its objects in Swift.

The template, every file it reaches and the environment files come from
the plan in Swift; heatclient's template utilities resolve the references.
Parameters: generated passwords < the plan's ``parameter_defaults`` < the
environments. Used by the deploy (``deploy``) and by the library's reads
and checks (``library``), and Heat's answers are turned into our errors
here (``heat_call``).
"""

import hashlib
import json
from urllib import parse

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import objects as plan_objects
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import passwords


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
    headers, listing = store.container.listing(plan)
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
