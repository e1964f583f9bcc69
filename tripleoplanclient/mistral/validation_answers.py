"""What each validation action answers: their bodies
(``mistral.validation_actions`` runs them in Mistral; unit tests run them
on fake services), each on the caller's Swift (``store``) and the
request as read."""

from tripleoplanclient.common import exceptions


def answer(name, store, req, inputs=None, run_id=None, later=None):
    """What the action of request ``name`` answers; a run writes its
    start on ``store`` and the rest on ``later`` (the same, or the
    caller's trust: the run may outlive the caller's token)."""
    from tripleoplanclient.validations import catalog
    from tripleoplanclient.validations import results
    from tripleoplanclient.validations import runs
    from tripleoplanclient.validations import sources

    if name == 'validation_install':
        return catalog.install(store, sources.merge(
            [('the shipped validations', sources.ours())]))
    if name == 'validation_list':
        groups, found = catalog.collect(store, req['plan'])
        if req['group'] is not None and req['group'] not in groups:
            raise exceptions.CommandError(
                'No validation group %s; the groups are %s.' % (
                    req['group'], ', '.join(sorted(groups)) or 'none'))
        return {'groups': groups, 'validations': [
            catalog.row(v) for _, v in sorted(found.items())
            if req['group'] is None or req['group'] in v['groups']]}
    if name == 'validation_run':
        if bool(req['names']) == bool(req['group']):
            raise exceptions.CommandError(
                'Bad validation_run request: give names or a group.')
        run, chosen = runs.start(store, req, run_id)
        return runs.execute(later or store, run, chosen, inputs,
                            req['timeout'])
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
