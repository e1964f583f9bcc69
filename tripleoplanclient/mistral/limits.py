"""The bounds of one render in this Mistral (``rendering.Limits``).

mistral.conf, group ``[tripleoplan]``: ``render_max_output_mb`` (all
outputs of one render together), ``render_timeout`` (seconds of wall
time), ``render_max_memory_mb`` (what one render may add to the
executor's memory), defined in ``config``. The defaults are
``rendering.LIMITS``.
"""

from tripleoplanclient.mistral import config
from tripleoplanclient.plan import rendering

_MIB = 1024 * 1024


def render_limits():
    """The configured bounds, defaults for options not set."""
    conf = config.options()
    return rendering.Limits(output=conf.render_max_output_mb * _MIB,
                            seconds=conf.render_timeout,
                            memory=conf.render_max_memory_mb * _MIB)
