"""Mistral actions of the validations (``tripleoplanclient.validations``).

Each acts as its caller, in the caller's project: the validations and
the results are containers of the caller's Swift account. A run hands
its playbooks no credential at all (``validations.runner``): what a
validation needs from the services (the plan's problems, the stack's
servers) is asked here, as the caller, and passed in as values.
"""

import uuid

from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import endpoints
from tripleoplanclient import protocol

# the endpoints a validation is told (no credential goes with them)
SERVICE_TYPES = ('identity', 'object-store', 'orchestration',
                 'workflowv2', 'baremetal')


class _ValidationAction(base.PlanAction):
    """Reads its request; answers it (``mistral.validation_answers``) on the
    caller's Swift."""

    def do(self, context, req):
        from tripleoplanclient.mistral import validation_answers
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        store = base.plan_store(context, req['swift_url'])
        return validation_answers.answer(
            self.request_name, store, req, _Inputs(context, req, store),
            base.workflow_execution(context) or str(uuid.uuid4()),
            cache=_cache(req))


def _cache(req):
    """The executor's objects of a container of the caller's Swift
    account (``mistral.objects``): a list and the run after it read each
    playbook once."""
    from tripleoplanclient.mistral import objects
    return lambda container: objects.CACHE.scoped(req['swift_url'],
                                                  container)


class InstallValidations(_ValidationAction):
    """The shipped validations into the caller's tripleo-validations."""

    request_name = 'validation_install'


class ListValidations(_ValidationAction):
    """The validations (with a plan, its own too) and their groups."""

    request_name = 'validation_list'


class RunValidations(_ValidationAction):
    """Run validations with ansible-playbook here, in the executor; the
    run's id is the workflow execution's.

    The run may outlive the caller's token: it is written RUNNING with
    the token, then everything after (each result, the end, what the
    validations need of Heat) goes through a trust from the caller to
    Mistral's service user, opened while the token is fresh, for the
    run's time budget, and deleted at its end. It never leaves this
    action, so it is not sealed (the deploy workflow seals its own for
    the follow task)."""

    request_name = 'validation_run'

    def do(self, context, req):
        from tripleoplanclient.mistral import validation_answers
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        store = base.plan_store(context, req['swift_url'])
        execution = base.workflow_execution(context)
        caller = auth.Caller(context)
        trust = auth.open_trust(caller, -(-int(req['timeout']) // 60)) \
            if execution else None
        session = None
        try:
            session = auth.trust_session(caller, trust) if trust else None
            later = base.plan_store(context, req['swift_url'], session) \
                if session else store
            return validation_answers.answer(
                self.request_name, store, req,
                _Inputs(context, req, later, session),
                execution or str(uuid.uuid4()), later=later,
                sealer=auth.Sealer(caller), cache=_cache(req))
        finally:
            auth.close_trust(caller, trust, session=session)


class SealValidationVars(base.PlanAction):
    """A run's secret extra vars sealed for the caller (run unsaved)."""

    request_name = 'validation_seal'

    def do(self, context, req):
        from tripleoplanclient.mistral import validation_answers
        return validation_answers.seal(req, auth.Sealer(auth.Caller(
            context)))


class StopValidations(_ValidationAction):
    """Stop a run: its process group killed, recorded STOPPED."""

    request_name = 'validation_stop'


class ValidationResults(_ValidationAction):
    """The project's runs (a plan's), or one run in full."""

    request_name = 'validation_results'


class _Inputs:
    """What a validation may require, worked out as the caller, once a
    run: every validation of it that requires the same is given the same
    answer (one Heat stack read, one Ironic listing, not one each)."""

    def __init__(self, context, req, store, session=None):
        self.context, self.req, self.store = context, req, store
        # a trust's, for what is asked of Heat after the run started
        self.session = session
        self._found = {}

    def __call__(self, what):
        if what not in self._found:
            self._found[what] = getattr(self, what)()
        return self._found[what]

    def endpoints(self):
        caller = auth.Caller(self.context)
        found = {}
        for kind in SERVICE_TYPES:
            urls = caller.endpoints(kind) or \
                endpoints.configured_urls(kind)
            if urls:
                found[kind] = urls[0]
        return found

    def project(self):
        """The caller's project, as Keystone validated it (None without
        Keystone)."""
        return auth.Caller(self.context).project_id

    def ssh(self):
        """How the validations log in to the servers: mistral.conf's
        ``[tripleoplan] validation_ssh_user``, ``validation_ssh_key``
        (a private key file, held by the run's ssh-agent: no playbook
        reads it; ``{project_id}`` in it is the caller's project, for a
        key per project), ``validation_ssh_port`` and
        ``validation_ssh_timeout``; the plan's recorded login user
        (``nodes.login``) in place of the configuration's when it has
        one."""
        from tripleoplanclient.mistral import validation_config
        return validation_config.plan_ssh(self.project(), self.store,
                                          self.req['plan'])

    def hidden_paths(self):
        """Directories the sandbox hides besides those it always does:
        mistral.conf's ``[tripleoplan] validation_hidden_paths``."""
        from tripleoplanclient.mistral import validation_config
        return validation_config.hidden_paths()

    def support_cache(self):
        """Where this executor keeps the roles and modules of the
        validations containers (``validations.support``)."""
        from tripleoplanclient.validations import support
        return support.default_cache()

    def server_networks(self):
        """Where this plan's validations may reach servers
        (``node_access.server_networks``)."""
        from tripleoplanclient.mistral import node_access
        return node_access.server_networks(
            self.context, self.project(), self.req['plan'], self.session)

    def _heat(self):
        req = {'heat_url': self.req['heat_url'],
               'swift_url': self.req['swift_url']}
        return base.heat_client(self.context, req, self.session), \
            req['heat_url']

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

    def outputs(self):
        """The plan's stack's outputs (none without a stack)."""
        from heatclient import exc as heat_exc
        heat, _ = self._heat()
        try:
            stack = heat.stacks.get(self.req['plan'])
        except heat_exc.HTTPNotFound:
            return []
        return getattr(stack, 'outputs', None) or []

    def servers(self):
        from tripleoplanclient.validations import inventory
        return inventory.servers(self('outputs'))

    def services(self):
        from tripleoplanclient.validations import inventory
        return inventory.services(self('outputs'))
