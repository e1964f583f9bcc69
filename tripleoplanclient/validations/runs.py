"""One validation run, from the request to its kept results.

The run's id is its Mistral workflow execution's. The validations run
one after the other, each given what its metadata ``requires`` (asked of
``inputs``, which the Mistral side answers as the caller), each result
kept as it ends (``results``); a stop request or the run's time budget
ends the one running and skips the rest.
"""

import socket
import sys
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import child
from tripleoplanclient.validations import egress
from tripleoplanclient.validations import inventory
from tripleoplanclient.validations import parameters
from tripleoplanclient.validations import results
from tripleoplanclient.validations import runner
from tripleoplanclient.validations import support


def start(store, req, run_id, cache=None):
    """Select the validations (read through ``cache``:
    ``catalog.collect``) and write the run (RUNNING); ``(run,
    chosen)``. CommandError (nothing written) for an unknown validation,
    group or plan, or a bad extra var, limit or skiplist. The run keeps
    what it was given, its secret extra vars masked."""
    extra_vars = parameters.check_extra_vars(req.get('extra_vars'))
    limit = parameters.check_limit(req.get('limit'))
    skiplist = parameters.check_skiplist(req.get('skiplist') or {})
    categories, products = req.get('categories'), req.get('products')
    for key, names in (('categories', categories), ('products', products)):
        if not isinstance(names or [], list) or not all(
                isinstance(n, str) for n in names or []):
            raise exceptions.CommandError(
                'Bad validation_run request: %s must list names.' % key)
    _, found = catalog.collect(store, req['plan'], cache)
    if req['names'] or not (categories or products):
        chosen = catalog.select(found, req['names'], req['group'])
    else:
        selection = ([req['group']] if req['group'] else [], categories,
                     products)
        chosen = catalog.select_labels(found, *selection)
        if not chosen:
            raise exceptions.CommandError(
                'No validation in %s; see "openstack overcloud validation '
                'list".' % parameters.labels(*selection))
    run = {'run': run_id, 'plan': req['plan'], 'group': req['group'],
           'names': req['names'], 'categories': categories,
           'products': products,
           'extra_vars': parameters.masked(extra_vars), 'limit': limit,
           'skiplist': skiplist or None, 'status': 'RUNNING',
           'started': results.now(), 'ended': None, 'duration': None,
           'host': socket.gethostname(), 'pgid': None, 'current': None,
           'validations': [{'id': v['id'], 'source': v['source'],
                            'status': 'PENDING', 'started': None,
                            'duration': None, 'failed_hosts': [],
                            'message': None} for v in chosen]}
    results.create(store, run)
    return run, chosen


def execute(store, run, chosen, inputs, timeout, clock=time.monotonic,
            progress=None, extra_vars=None):
    """Run each chosen validation, keep its result; the run's summary.

    ``extra_vars``: as the request gave them (``run`` keeps them
    masked); every value of a secret one is masked in what is kept.

    ``inputs(name)``: ``endpoints`` (``{service type: url}``),
    ``plan_problems`` ([text]), ``servers`` (``inventory.servers``),
    ``services`` (``inventory.services``),
    ``server_networks`` (where the operator lets the plan's validations
    reach servers: ``inventory.networks``), ``ssh`` (how to log in to
    them, ``inventory.SSH``'s keys; None for the defaults),
    ``project`` (the caller's, as Keystone validated it),
    ``hidden_paths`` (directories the sandbox hides besides those it
    always does; None for none) or ``support_cache`` (where the
    executor keeps the container's roles and modules, ``support``;
    None: a run uses none); a CommandError there is that validation's
    ERROR.
    """
    progress = progress or (lambda line: None)
    deadline = clock() + timeout
    endpoints = inputs('endpoints')
    project = inputs('project')
    hidden = inputs('hidden_paths') or ()
    secrets = parameters.secret_values(extra_vars)
    skiplist = run.get('skiplist') or {}
    tree = _support(store, project, inputs('support_cache'))

    def stop_requested():
        return results.stop_requested(store, run['run'])

    for summary, validation in zip(run['validations'], chosen):
        summary['started'] = results.now()
        left = deadline - clock()
        if run['status'] != 'RUNNING' or stop_requested() or left <= 0:
            if run['status'] == 'RUNNING':
                run['status'] = 'STOPPED' if left > 0 else 'TIMEOUT'
            outcome = runner.run_result(run['status'], 0, message=(
                'not run: the run ended first (%s)' % run['status']))
        elif validation['problem']:
            outcome = runner.run_result('INVALID', 0, message=(
                'not run: %s' % validation['problem']))
        elif validation['id'] in skiplist and \
                skiplist[validation['id']]['hosts'] is None:
            outcome = runner.run_result('SKIPPED', 0, message=(
                parameters.skipped(skiplist[validation['id']])))
        else:
            outcome = parameters.scrub(_one(
                store, run, summary, validation, endpoints, inputs, left,
                stop_requested, project, hidden, extra_vars or {}, tree),
                secrets)
            if outcome['status'] in ('STOPPED', 'TIMEOUT'):
                run['status'] = outcome['status']
        progress('Validation %s: %s' % (validation['id'], outcome['status']))
        outcome.update(run=run['run'], validation=validation['id'],
                       source=validation['source'],
                       started=summary['started'])
        results.save_result(store, run['run'], validation['id'], outcome)
        summary.update((k, outcome[k]) for k in (
            'status', 'duration', 'failed_hosts', 'message'))
        run.update(pgid=None, current=None)
        results.save_run(store, run)
    statuses = {v['status'] for v in run['validations']}
    if run['status'] == 'RUNNING':
        run['status'] = 'PASSED' if statuses <= {'PASSED', 'SKIPPED'} \
            else 'FAILED'
    run.update(ended=results.now(), duration=round(
        timeout - (deadline - clock()), 2))
    results.save_run(store, run)
    return run


def _support(store, project, cache):
    """``(directory, problem)`` of the container's support trees for
    the run: one listing, the objects its cache lacks fetched."""
    if not cache:
        return None, None
    try:
        return support.prepare(store, project, cache), None
    except (exceptions.CommandError, OSError) as exc:
        return None, 'the roles and modules of %s: %s' % (
            catalog.CONTAINER, exc)


def _one(store, run, summary, validation, endpoints, inputs, left,
         stop_requested, project, hidden, given, tree):
    extra = dict(given, tripleoplan_endpoints=endpoints,
                 tripleoplan_plan=run['plan'])
    roles, networks, ssh, services = None, [], dict(inventory.SSH), None
    try:
        if 'plan_problems' in validation['requires']:
            extra['tripleoplan_plan_problems'] = _needs_plan(
                run, validation, inputs, 'plan_problems')
        if tree[1]:
            raise exceptions.CommandError(tree[1])
        if 'inventory' in validation['requires']:
            roles = _needs_plan(run, validation, inputs, 'servers')
            if not roles:
                raise exceptions.CommandError(
                    'plan %s has no deployed servers (no stack of that name, '
                    'or its outputs list none)' % run['plan'])
        elif run['plan']:
            # tripleo-validations' playbooks name no requirement: with a
            # plan, its servers (if it has any) are theirs to target
            try:
                roles = inputs('servers')
            except exceptions.CommandError:
                roles = None
        if roles:
            services = inputs('services')
            networks = inputs('server_networks') or []
            # asked only of a run that targets servers
            ssh.update(inputs('ssh') or {})
    except exceptions.CommandError as exc:
        return runner.run_result('ERROR', 0, message='not run: %s' % exc)

    def started(pgid):
        run.update(pgid=pgid, current=validation['id'])
        summary['status'] = 'RUNNING'
        results.save_run(store, run)

    limit = parameters.host_limit(run.get('limit'), (
        run.get('skiplist') or {}).get(validation['id'], {}).get('hosts'))
    hosts = inventory.build(sys.executable, roles, ssh, run['plan'],
                            services)
    servers, refused = inventory.split(hosts, networks, run['plan'])
    outcome = runner.run(
        validation['text'], extra, hosts, left, run['run'],
        started=started, stop_requested=stop_requested,
        ssh_key=ssh['key'] if servers else None,
        targets=reachable(endpoints, servers), refused=refused,
        project=project, hidden=hidden, limit=limit,
        support_tree=tree[0])
    if limit and not outcome['stats'] and (
            outcome['status'] == 'PASSED' or 'no hosts to target' in (
                outcome['message'] or '')):
        # ansible-playbook skips a play none of whose hosts is left, or
        # refuses an inventory the limit leaves empty
        outcome.update(status='SKIPPED', message=(
            'none of its hosts is in --limit %s' % limit))
    if not ssh['key'] and any(f.get('status') == 'unreachable'
                              for f in outcome['failures']):
        outcome['message'] = (outcome['message'] or 'unreachable') + (
            ' (Mistral is given no SSH key for the servers: set '
            '[tripleoplan] validation_ssh_key in its configuration)')
    return outcome


def reachable(endpoints, servers):
    """What a run's playbook may connect to: each endpoint of the
    catalog, and each of ``servers`` ((address, SSH port) pairs)."""
    return [egress.target(url) for url in (endpoints or {}).values()] + \
        sorted(set(servers))


def _needs_plan(run, validation, inputs, what):
    if not run['plan']:
        raise exceptions.CommandError(
            'validation %s needs a plan: run it with --plan'
            % validation['id'])
    return inputs(what)


def stop(store, run_id, project=None, kill=child.kill, owns=runner.owns,
         wait=10.0, sleep=time.sleep, clock=time.monotonic):
    """Ask run ``run_id`` to stop and kill its ``ansible-playbook``'s
    process group (when it runs on this host for the caller's
    ``project``, as the process itself says: the run record is the
    caller's to write, and names any group; the run's own process would
    kill it within seconds anyway); the run as it ended. A run that is
    no longer there to record its end (Mistral restarted) is recorded
    STOPPED here."""
    run = results.load_run(store, run_id)
    if run['status'] != 'RUNNING':
        raise exceptions.CommandError(
            'Validation run %s already ended (%s): nothing to stop.'
            % (run_id, run['status']))
    results.request_stop(store, run_id)
    pgid = run.get('pgid')
    if pgid and run.get('host') == socket.gethostname() and \
            owns(pgid, run_id, project):
        kill(pgid)
    deadline = clock() + wait
    while clock() < deadline:
        run = results.load_run(store, run_id)
        if run['status'] != 'RUNNING':
            return run
        sleep(0.5)
    run.update(status='STOPPED', ended=results.now(), pgid=None)
    for summary in run['validations']:
        if summary['status'] in ('PENDING', 'RUNNING'):
            summary.update(status='STOPPED', message='stopped')
    results.save_run(store, run)
    return run
