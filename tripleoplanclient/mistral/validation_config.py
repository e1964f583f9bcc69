"""Mistral's configuration of the validation runs: how they log in to
the deployed servers (``[tripleoplan]`` options of mistral.conf)."""


def ssh():
    """``inventory.SSH``'s keys from Mistral's configuration."""
    from oslo_config import cfg

    from tripleoplanclient.validations import inventory
    # Registered on first use, as ``endpoints`` does: Mistral parsed its
    # files already, and oslo.config finds options registered later.
    cfg.CONF.register_opts([
        cfg.StrOpt('validation_ssh_user', default=inventory.SSH['user'],
                   help='user the validations log in to the deployed '
                   'servers as'),
        cfg.StrOpt('validation_ssh_key', default=None,
                   help='private key file the validations log in to the '
                   'deployed servers with (bound read-only in their '
                   'sandbox); unset: they are given none'),
        cfg.PortOpt('validation_ssh_port', default=inventory.SSH['port'],
                    help='port of the deployed servers\' SSH server'),
        cfg.IntOpt('validation_ssh_timeout', min=1,
                   default=inventory.SSH['timeout'],
                   help='seconds a validation waits for a server\'s SSH '
                   'connection before it is unreachable')],
        group='tripleoplan')
    conf = cfg.CONF.tripleoplan
    return {'user': conf.validation_ssh_user,
            'key': conf.validation_ssh_key or None,
            'timeout': conf.validation_ssh_timeout,
            'port': conf.validation_ssh_port}
