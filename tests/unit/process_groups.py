"""Whether a killed process group is gone: its members killed with it
are reaped by init when it gets to them, and until then kill(0) still
finds their zombies."""

import os
import time


def gone(pgid, seconds=10):
    """True once no process of group ``pgid`` is left (within
    ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
