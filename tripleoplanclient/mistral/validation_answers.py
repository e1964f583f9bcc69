"""What each validation action answers: their bodies
(``mistral.validation_actions`` runs them in Mistral; unit tests run them
on fake services), each on the caller's Swift (``store``) and the
request as read."""

from tripleoplanclient.common import exceptions


def answer(name, store, req, inputs=None, run_id=None, later=None,
           sealer=None, cache=None):
    """What the action of request ``name`` answers; a run writes its
    start on ``store`` and the rest on ``later`` (the same, or the
    caller's trust: the run may outlive the caller's token) and opens
    its sealed extra vars with ``sealer`` (``auth.Sealer``).
    ``cache(container)``: the executor's objects of that container
    (``catalog.collect``)."""
    from tripleoplanclient.validations import catalog
    from tripleoplanclient.validations import results
    from tripleoplanclient.validations import runs
    from tripleoplanclient.validations import sources

    if name == 'validation_install':
        return catalog.install(store, sources.merge(
            [('the shipped validations', sources.ours())]))
    if name == 'validation_list':
        groups, found = catalog.collect(store, req['plan'], cache)
        if req['group'] is not None and req['group'] not in groups:
            raise exceptions.CommandError(
                'No validation group %s; the groups are %s.' % (
                    req['group'], ', '.join(sorted(groups)) or 'none'))
        if req['names']:
            return {'groups': groups, 'validations': [
                dict(catalog.row(v), parameters=catalog.parameters(store, v))
                for v in catalog.select(found, req['names'])]}
        labels = [req['group']] if req['group'] else [], \
            req['categories'], req['products']
        return {'groups': groups, 'validations': [
            catalog.row(v) for v in (catalog.select_labels(found, *labels)
                                     if any(labels) else
                                     [v for _, v in sorted(found.items())])]}
    if name == 'validation_run':
        if bool(req['names']) == bool(req['group'] or req.get('categories')
                                      or req.get('products')):
            raise exceptions.CommandError(
                'Bad validation_run request: give names, or a group, '
                'categories or products.')
        if req.get('sealed_vars'):
            req = dict(req, extra_vars=dict(req['extra_vars'] or {},
                                            **sealer.unseal(
                                                req['sealed_vars'])))
        run, chosen = runs.start(store, req, run_id, cache)
        return runs.execute(later or store, run, chosen, inputs,
                            req['timeout'], extra_vars=req.get('extra_vars'))
    if name == 'validation_stop':
        return runs.stop(store, req['run'],
                         inputs('project') if inputs else None)
    if name == 'validation_results':
        if req['run']:
            run = results.load_run(store, req['run'])
            run['results'] = [results.load_result(store, run['run'], v['id'])
                              for v in run['validations']]
            return run
        found, more = results.runs(store, req['plan'], req['limit'])
        return {'runs': found, 'more': more}
    raise ValueError('no validation action %s' % name)


def seal(req, sealer):
    """``validation_seal``: the secret extra vars sealed for the caller."""
    from tripleoplanclient.validations import parameters
    return {'sealed': sealer.seal(parameters.check_extra_vars(
        req['extra_vars']))}
