"""The bounds of one render in this Mistral (``rendering.Limits``).

mistral.conf, group ``[tripleoplan]``: ``render_max_output_mb`` (all
outputs of one render together), ``render_timeout`` (seconds of wall
time), ``render_max_memory_mb`` (what one render may add to the
executor's memory). The defaults are ``rendering.LIMITS``.
"""

from tripleoplanclient.plan import rendering

_MIB = 1024 * 1024


def render_limits():
    """The configured bounds, defaults for options not set."""
    from oslo_config import cfg

    # Registered on first use, as endpoints does: Mistral parsed its files
    # already, and oslo.config finds options registered later in them.
    defaults = rendering.LIMITS
    cfg.CONF.register_opts([
        cfg.IntOpt('render_max_output_mb', min=1,
                   default=defaults.output // _MIB,
                   help='MiB of output one render of a plan may produce'),
        cfg.IntOpt('render_timeout', min=1, default=defaults.seconds,
                   help='seconds of wall time one render of a plan may take'),
        cfg.IntOpt('render_max_memory_mb', min=16,
                   default=defaults.memory // _MIB,
                   help='MiB of memory one render of a plan may add to the '
                   'executor'),
    ], group='tripleoplan')
    conf = cfg.CONF.tripleoplan
    return rendering.Limits(output=conf.render_max_output_mb * _MIB,
                            seconds=conf.render_timeout,
                            memory=conf.render_max_memory_mb * _MIB)
