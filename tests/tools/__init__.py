"""Tests of the scripts under tools/ (no service started).

tools/ is not a package: its scripts run as ``python3 tools/x.py`` and
``python3 tools/loopback``, and import each other by their own names. Its
directory goes on sys.path here, once, before any test module of this
package imports ``functional_workers`` or ``loopback``.
"""

import os
import sys

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'tools')
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
