"""The one error type of the shared modules.

On the client it is osc-lib's CommandError (cliff prints the message, no
traceback, exit status 1). Inside Mistral, where osc-lib is not installed,
the same modules raise a plain exception with the same name.
"""

try:
    from osc_lib.exceptions import CommandError
except ImportError:  # Mistral's environment
    class CommandError(Exception):
        pass

__all__ = ['CommandError']
