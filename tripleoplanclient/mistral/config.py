"""Every ``[tripleoplan]`` option of Mistral's configuration (mistral.conf),
which our actions read in Mistral's executor.

``list_opts`` is this package's ``oslo.config.opts`` entry point
(namespace ``tripleoplanclient``): ``oslo-config-generator`` writes the
sample configuration from it, and the documentation shows the options
from it. The actions read them through ``options()``, which registers
them on first use: Mistral parsed its configuration files before it
loaded our actions, and oslo.config finds an option registered later in
the files already parsed. oslo.config is imported only here, when asked:
it is Mistral's, not the client's.
"""

from tripleoplanclient.plan import rendering
from tripleoplanclient.validations import inventory

GROUP = 'tripleoplan'
# service type -> the option listing the endpoints of that type our
# actions may call besides those of the caller's catalog
ENDPOINT_OPTIONS = {'object-store': 'swift_urls',
                    'orchestration': 'heat_urls',
                    'baremetal': 'ironic_urls'}
_MIB = 1024 * 1024
# built once: registering the same objects again is a no-op for oslo.config
_OPTIONS = []


def _render_options(cfg):
    defaults = rendering.LIMITS
    return [
        cfg.IntOpt('render_max_output_mb', min=1,
                   default=defaults.output // _MIB,
                   help='MiB of output all the templates of one render of '
                   'a plan may produce together; a render past it fails, '
                   'naming the template.'),
        cfg.IntOpt('render_timeout', min=1, default=defaults.seconds,
                   help='Seconds of wall time one render of a plan may '
                   'take (its CPU time is limited too); a render past it '
                   'is killed and fails, naming the template.'),
        cfg.IntOpt('render_max_memory_mb', min=16,
                   default=defaults.memory // _MIB,
                   help='MiB of memory one render of a plan may add to the '
                   'executor\'s (the render runs in a child process).'),
    ]


def _endpoint_options(cfg):
    names = {'object-store': 'Swift', 'orchestration': 'Heat',
             'baremetal': 'Ironic'}
    return [
        cfg.ListOpt(option, default=[],
                    help='Comma-separated %s (%s) endpoint URLs the '
                    'tripleoplan actions may call besides those of the '
                    'service catalog in the caller\'s token: for a Mistral '
                    'without Keystone, or a second %s. A request naming '
                    'any other URL is refused.'
                    % (names[kind], kind, names[kind]))
        for kind, option in ENDPOINT_OPTIONS.items()]


def _validation_options(cfg):
    return [
        cfg.StrOpt('validation_ssh_user', default=inventory.SSH['user'],
                   help='User the validations and config-download log in '
                   'to the deployed servers as, unless the plan records '
                   'its servers\' login user (overcloud node provision '
                   '--overcloud-ssh-user).'),
        cfg.StrOpt('validation_ssh_key', default=None,
                   help='Private key file (no passphrase) the validations '
                   'log in to the deployed servers with, held by an '
                   'ssh-agent outside their sandbox (no playbook reads '
                   'it). {project_id} in the path is replaced by the '
                   'caller\'s project id: a key per project. Unset: the '
                   'validations are given no key.'),
        cfg.PortOpt('validation_ssh_port', default=inventory.SSH['port'],
                    help='TCP port of the deployed servers\' SSH server.'),
        cfg.IntOpt('validation_ssh_timeout', min=1,
                   default=inventory.SSH['timeout'],
                   help='Seconds a validation waits for a server\'s SSH '
                   'connection before the server is unreachable.'),
        cfg.MultiStrOpt('validation_servers', default=[],
                        help='PROJECT_ID:PLAN=NETWORK[,NETWORK...] (an '
                        'address or a CIDR; "*" for any project or plan), '
                        'repeated: the servers a plan\'s validations may '
                        'reach. A stack\'s outputs, which any member of '
                        'its project may write, only name the servers; a '
                        'server in no network given here is not reached.'),
        cfg.ListOpt('validation_hidden_paths', default=[],
                    help='Comma-separated directories of the executor\'s '
                    'host that hold secrets (service state, credentials): '
                    'no validation playbook sees them, nor the executor\'s '
                    'home, /root, /etc/mistral and the directories of '
                    'Mistral\'s configuration files, which are always '
                    'hidden.'),
    ]


def _config_download_options(cfg):
    return [
        cfg.StrOpt('config_ansible_playbook', default=None,
                   help='The ansible-playbook that runs config-download\'s '
                   'playbooks (in the validations\' sandbox, logging in '
                   'with the validation_ssh_* settings to the servers '
                   'validation_servers lets a plan reach), e.g. that of a '
                   'virtualenv with ansible-core 2.14 and tripleo-ansible. '
                   'Unset: the one beside the Python Mistral runs with, '
                   'else the one on PATH.'),
        cfg.ListOpt('config_skip_tags', default=[],
                    help='Comma-separated Ansible tags every config-download '
                    'run of this undercloud skips, besides those a deploy '
                    'asks to skip.'),
        cfg.BoolOpt('config_become', default=True,
                    help='Whether config-download\'s plays may become root '
                    '(as their become keywords say). False: every play runs '
                    'as the login user (the extra variable ansible_become: '
                    'false), for servers whose user has no sudo.'),
    ]


def _all():
    if not _OPTIONS:
        from oslo_config import cfg
        _OPTIONS.extend(_render_options(cfg) + _endpoint_options(cfg) +
                        _validation_options(cfg) +
                        _config_download_options(cfg))
    return _OPTIONS


def list_opts():
    """``[(group, [options])]``: the ``oslo.config.opts`` entry point."""
    return [(GROUP, list(_all()))]


def options(conf=None):
    """The ``[tripleoplan]`` group of ``conf`` (default: the configuration
    Mistral runs with), every option registered, unset ones at their
    defaults."""
    if conf is None:
        from oslo_config import cfg
        conf = cfg.CONF
    conf.register_opts(_all(), group=GROUP)
    return conf[GROUP]
