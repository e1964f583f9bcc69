"""Mistral actions of the validations (``tripleoplanclient.validations``).

Each acts as its caller, in the caller's project: the validations and
the results are containers of the caller's Swift account. A run hands
its playbooks no credential at all (``validations.runner``): what a
validation needs from the services (the plan's problems, the stack's
servers) is asked here, as the caller, and passed in as values.
"""

import logging
import uuid

from tripleoplanclient import protocol
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import actions
from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import endpoints

LOG = logging.getLogger(__name__)
# the endpoints a validation is told (no credential goes with them)
SERVICE_TYPES = ('identity', 'object-store', 'orchestration',
                 'workflowv2', 'baremetal')


class _ValidationAction(actions._PlanAction):
    """Reads its request; ``act(store, req, context)`` on the caller's
    Swift."""

    def do(self, context, req):
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        return self.act(actions.plan_store(context, req['swift_url']), req,
                        context)


class InstallValidations(_ValidationAction):
    """The shipped validations into the caller's tripleo-validations."""

    request_name = 'validation_install'

    def act(self, store, req, context):
        from tripleoplanclient.validations import catalog
        from tripleoplanclient.validations import shipped
        return catalog.install(store, shipped.files())


class ListValidations(_ValidationAction):
    """The validations (with a plan, its own too) and their groups."""

    request_name = 'validation_list'

    def act(self, store, req, context):
        from tripleoplanclient.validations import catalog
        groups, found = catalog.collect(store, req['plan'])
        if req['group'] is not None and req['group'] not in groups:
            raise exceptions.CommandError(
                'No validation group %s; the groups are %s.' % (
                    req['group'], ', '.join(sorted(groups)) or 'none'))
        return {'groups': groups, 'validations': [
            catalog.row(v) for _, v in sorted(found.items())
            if req['group'] is None or req['group'] in v['groups']]}


class RunValidations(_ValidationAction):
    """Run validations with ansible-playbook here, in the executor; the
    run's id is the workflow execution's."""

    request_name = 'validation_run'

    def act(self, store, req, context):
        from tripleoplanclient.validations import runs
        if bool(req['names']) == bool(req['group']):
            raise exceptions.CommandError(
                'Bad validation_run request: give names or a group.')
        run_id = actions._workflow_execution(context) or str(uuid.uuid4())
        run, chosen = runs.start(store, req, run_id)
        return runs.execute(store, run, chosen, _Inputs(context, req, store),
                            req['timeout'], progress=LOG.info)


class StopValidations(_ValidationAction):
    """Stop a run: its process group killed, recorded STOPPED."""

    request_name = 'validation_stop'

    def act(self, store, req, context):
        from tripleoplanclient.validations import runs
        return runs.stop(store, req['run'])


class ValidationResults(_ValidationAction):
    """The project's runs (a plan's), or one run in full."""

    request_name = 'validation_results'

    def act(self, store, req, context):
        from tripleoplanclient.validations import results
        if req['run']:
            run = results.load_run(store, req['run'])
            run['results'] = [results.load_result(store, run['run'], v['id'])
                              for v in run['validations']]
            return run
        return {'runs': results.runs(store, req['plan'])}


class _Inputs(object):
    """What a validation may require, worked out as the caller."""

    def __init__(self, context, req, store):
        self.context, self.req, self.store = context, req, store

    def __call__(self, what):
        return getattr(self, what)()

    def endpoints(self):
        caller = auth.Caller(self.context)
        found = {}
        for kind in SERVICE_TYPES:
            urls = caller.endpoints(kind)
            if not urls and kind in endpoints._OPTIONS:
                urls = endpoints._configured(kind)
            if urls:
                found[kind] = urls[0]
        return found

    def _heat(self):
        req = {'heat_url': self.req['heat_url'],
               'swift_url': self.req['swift_url']}
        return actions._heat(self.context, req), req['heat_url']

    def plan_problems(self):
        from tripleoplanclient.mistral import library
        from tripleoplanclient.mistral import objects
        heat, heat_url = self._heat()
        req = protocol.read('validate', protocol.request(
            'validate', container=self.req['plan'],
            swift_url=self.req['swift_url'], heat_url=heat_url))
        plan = library.Plan(self.store, req, objects.CACHE.scoped(
            req['swift_url'], req['container']))
        found = library.validate(plan, heat, req)
        return ['%s %s: %s' % (p['kind'], p['what'], p['problem'])
                for p in found.get('problems') or []]

    def servers(self):
        from heatclient import exc as heat_exc

        from tripleoplanclient.validations import inventory
        heat, _ = self._heat()
        try:
            stack = heat.stacks.get(self.req['plan'])
        except heat_exc.HTTPNotFound:
            return {}
        return inventory.servers(getattr(stack, 'outputs', None) or [])
