"""A mistral.conf of a test's own, parsed as Mistral parses its own
before our actions register their options."""

import os
import shutil
import tempfile
from unittest import mock

from oslo_config import cfg


def parsed(text):
    """A configuration that parsed a mistral.conf of ``text``."""
    place = tempfile.mkdtemp()
    try:
        path = os.path.join(place, 'mistral.conf')
        with open(path, 'w') as f:
            f.write(text)
        conf = cfg.ConfigOpts()
        conf(args=[], default_config_files=[path])
        return conf
    finally:
        shutil.rmtree(place)


def used(text):
    """A patch that makes ``parsed(text)`` the process's configuration."""
    return mock.patch.object(cfg, 'CONF', parsed(text))
