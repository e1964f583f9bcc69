"""``python3 tools/loopback ...``: run the package as a program."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Python put this directory first on sys.path; its modules (cli, heat, ...)
# are the package's, reachable only as loopback.<name>: import them from
# tools/ instead.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != HERE]
sys.path.insert(0, os.path.dirname(HERE))

from loopback import cli  # noqa: E402

sys.exit(cli.main())
