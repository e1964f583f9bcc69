"""Mistral's configuration of the config-download runs: which
ansible-playbook runs them and which tags they always skip
(``[tripleoplan]`` options of mistral.conf, defined in ``config``). The
login and the servers a plan may reach are the validations'
(``validation_config``)."""

from tripleoplanclient.mistral import config


def ansible_playbook():
    """The configured ansible-playbook; None: ``ansible_run``'s default
    (beside Mistral's Python, else on PATH)."""
    return config.options().config_ansible_playbook or None


def skip_tags():
    """The tags every run skips, as configured."""
    return [t for t in config.options().config_skip_tags if t]


def become():
    """False when no play may become root (``config_become``)."""
    return bool(config.options().config_become)
