"""The command line our actions record in a step: the caller's, masked
again here whoever sent it (the same for every writer: ``settings``,
``lifecycle``, ``stack_step``)."""

import re

from tripleoplanclient.common import masking
from tripleoplanclient.record import log

# What a Heat parameter's name looks like (NAME=VALUE of parameters set).
_PARAMETER = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')


def parameter_assignment(arg, hidden=None):
    """The name of a ``NAME=VALUE`` argument whose value is not to be
    recorded, or None: a parameter of ``hidden`` (the names the plan's
    templates declare hidden), or whose name looks secret; when
    ``hidden`` is None (not known), any name a parameter may have."""
    name, sep, _ = arg.partition('=')
    if not sep:
        return None
    if masking.secret_key(name) or (
            name in hidden if hidden is not None
            else _PARAMETER.match(name)):
        return name
    return None


def command(req, action, hidden=None):
    """The command line to record: the client's masked again here, by
    the names of its options (the parsers that read it are the client's:
    any prefix of a secret option counts, ``masking.secret_option``) and
    the values of its NAME=VALUE parameter assignments
    (``parameter_assignment``), whoever sent it; else the action's name
    (a client that gave none, through Mistral's API)."""
    argv = [str(a) for a in req['command'] or []]
    if not argv:
        return 'mistral action %s' % action
    out = []
    for arg in argv:
        name = parameter_assignment(arg, hidden)
        out.append(arg if name is None else '%s=%s' % (name, masking.MASK))
    return log.sanitize_argv(out, parsers=())
