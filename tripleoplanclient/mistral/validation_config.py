"""Mistral's configuration of the validation runs: how they log in to
the deployed servers, which servers they may reach and what their
sandbox hides (``[tripleoplan]`` options of mistral.conf, defined in
``config``)."""

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import config


def ssh(project=None):
    """``inventory.SSH``'s keys from Mistral's configuration; the key's
    ``{project_id}`` is ``project``'s."""
    conf = config.options()
    key = conf.validation_ssh_key or None
    if key and '{project_id}' in key:
        # Keystone's ids are hex; nothing else names a file here
        if not project or not project.replace('-', '').isalnum():
            raise exceptions.CommandError(
                '[tripleoplan] validation_ssh_key names a key per project '
                '({project_id}) and the caller has none (Mistral runs '
                'without Keystone)')
        key = key.replace('{project_id}', project)
    return {'user': conf.validation_ssh_user, 'key': key,
            'timeout': conf.validation_ssh_timeout,
            'port': conf.validation_ssh_port}


def plan_ssh(project, store, plan):
    """``ssh(project)``, its user the plan's recorded login user when it
    has one (``nodes.login``: what ``overcloud node provision`` put on
    its servers); config-download and the validations log in so."""
    from tripleoplanclient.nodes import login
    found = ssh(project)
    user = login.read(store, plan)
    return dict(found, user=user) if user else found


def servers():
    """The ``validation_servers`` entries, as written."""
    return list(config.options().validation_servers)


def hidden_paths():
    """The ``validation_hidden_paths`` entries: directories the sandbox
    hides besides those it always does (``sandbox.secret_places``)."""
    return list(config.options().validation_hidden_paths)
