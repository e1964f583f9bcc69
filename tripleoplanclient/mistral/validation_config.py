"""Mistral's configuration of the validation runs: how they log in to
the deployed servers and which servers they may reach (``[tripleoplan]``
options of mistral.conf)."""

from tripleoplanclient.common import exceptions


def _options():
    from oslo_config import cfg

    from tripleoplanclient.validations import inventory
    # Registered on first use, as ``endpoints`` does: Mistral parsed its
    # files already, and oslo.config finds options registered later.
    cfg.CONF.register_opts([
        cfg.StrOpt('validation_ssh_user', default=inventory.SSH['user'],
                   help='user the validations log in to the deployed '
                   'servers as'),
        cfg.StrOpt('validation_ssh_key', default=None,
                   help='private key file (no passphrase) the validations '
                   'log in to the deployed servers with, held by an '
                   'ssh-agent outside their sandbox; "{project_id}" in it '
                   'is the caller\'s project (a key per project); unset: '
                   'they are given none'),
        cfg.PortOpt('validation_ssh_port', default=inventory.SSH['port'],
                    help='port of the deployed servers\' SSH server'),
        cfg.IntOpt('validation_ssh_timeout', min=1,
                   default=inventory.SSH['timeout'],
                   help='seconds a validation waits for a server\'s SSH '
                   'connection before it is unreachable'),
        cfg.MultiStrOpt('validation_servers', default=[],
                        help='PROJECT_ID:PLAN=NETWORK[,NETWORK...] (an '
                        'address or a CIDR; "*" for any project or plan), '
                        'repeated: the servers a plan\'s validations may '
                        'reach. A stack\'s outputs, which any member of '
                        'its project may write, only name the servers; '
                        'one in no network given here is not reached')],
        group='tripleoplan')
    return cfg.CONF.tripleoplan


def ssh(project=None):
    """``inventory.SSH``'s keys from Mistral's configuration; the key's
    ``{project_id}`` is ``project``'s."""
    conf = _options()
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


def servers():
    """The ``validation_servers`` entries, as written."""
    return list(_options().validation_servers)
