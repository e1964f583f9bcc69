"""Running a node command as ``openstack`` would, for the node command
tests."""

import argparse
import io
import json

from tests.unit import fakes


def run_json(cls, endpoints, *argv):
    """``(exit status, rows parsed, stderr)`` of command ``cls`` run on
    ``argv`` with ``-f json``; ``endpoints``: service type -> URL."""
    app = fakes.make_app(endpoints)
    app.stdout = io.StringIO()
    cmd = cls(app, argparse.Namespace(verbose_level=1))
    parsed = cmd.get_parser('openstack').parse_args(
        list(argv) + ['-f', 'json'])
    code = cmd.run(parsed)
    return code, json.loads(app.stdout.getvalue()), app.stderr.getvalue()
