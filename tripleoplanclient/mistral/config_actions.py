"""Mistral actions of the configuration (``protocol.config``): the
download of a stack step's Ansible tree, and the deploy workflow's
configure task (``mistral.configure`` holds their bodies).

Each acts as its caller: the download with the caller's token, the
configure task on the trust the deploy task sealed (the run may outlast
the token; ``follow_trust``).
"""

from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import follow_trust


def _ssh(context, store, plan):
    from tripleoplanclient.mistral import validation_config
    return validation_config.plan_ssh(auth.Caller(context).project_id,
                                      store, plan)


class DownloadConfig(base.PlanAction):
    """The Ansible tree of a stack step, kept as one archive with it."""

    request_name = 'config_download'

    def do(self, context, req):
        from tripleoplanclient.mistral import configure
        heat = base.heat_client(context, req)
        store = base.plan_store(context, req['swift_url'])
        return configure.download(
            store, heat, req, configure.build,
            ssh_user=_ssh(context, store, req['container'])['user'])


class Configure(base.PlanAction):
    """Configure the servers of the stack step the deploy task recorded,
    once its follow task saw Heat's end (``mistral.configure``): runs
    ansible-playbook here, in the executor, for up to the request's
    ``config_timeout``; records the step's end."""

    request_name = 'deploy'

    def __init__(self, request, started=None, followed=None):
        super().__init__(request)
        self.started = started
        self.followed = followed

    def do(self, context, req):
        from tripleoplanclient.mistral import configure
        if not (self.followed or {}).get('configure'):
            return {'done': True, 'configured': False}

        def work(session):
            from tripleoplanclient.config import ansible_run
            from tripleoplanclient.mistral import ansible_options
            from tripleoplanclient.mistral import node_access
            heat = base.heat_client(context, req, session)
            store = base.plan_store(context, req['swift_url'], session)
            stack = heat.stacks.get(req['container'])
            inputs = {
                'ssh': _ssh(context, store, req['container']),
                'networks': node_access.server_networks(
                    context, auth.Caller(context).project_id,
                    req['container'], session),
                'outputs': getattr(stack, 'outputs', None) or [],
                'ansible_playbook': ansible_options.ansible_playbook(),
                'skip_tags': ansible_options.skip_tags(),
                'become': ansible_options.become()}
            return configure.configure(store, heat, req, self.started,
                                       self.followed, ansible_run.run,
                                       inputs)

        return follow_trust.last(context, base.workflow_execution(context),
                                 self.started or {}, work)
