"""The one error type of the package, and how to tell an unreachable service.

On the client it is osc-lib's CommandError (cliff prints the message, no
traceback, exit status 1). Inside Mistral, where osc-lib is not installed,
the same modules raise a plain exception with the same name.
"""

try:
    from osc_lib.exceptions import CommandError
except ImportError:  # Mistral's environment
    class CommandError(Exception):
        pass

# Exception class names (keystoneauth, requests, heatclient, the standard
# library) that mean the service could not be reached at all: matched by
# name so that no client library has to be imported to ask.
_UNREACHABLE = frozenset([
    'ConnectFailure', 'ConnectTimeout', 'RetriableConnectionFailure',
    'ConnectionError', 'CommunicationError', 'ConnectionRefusedError'])


def unreachable(exc):
    """True when ``exc`` says the service did not answer at all."""
    return any(c.__name__ in _UNREACHABLE for c in type(exc).__mro__)


__all__ = ['CommandError', 'unreachable']
