"""Every option that takes a duration, a size or a count names its unit:
in its metavar, in its help, and in the argparse type that reads it (the
table of units: doc/source/guide/coming-from-tripleoclient.rst)."""

import configparser
import importlib
import os
import unittest

from tripleoplanclient.osc import base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
# metavar -> the word its help says, and the argparse types that read it
UNITS = {
    '<minutes>': ('minutes', (base.minutes,)),
    '<seconds>': ('seconds', (base.seconds, base.node_seconds)),
    '<GiB>': ('GiB', (int,)),
    '<runs>': ('runs', (base.count,)),
}
# What reads a number of something: its metavar must be one of UNITS.
OPTIONS = ('--timeout', '--interval', '--limit', '--root-device-minimum-size')
# ... but deploy's --limit, as tripleoclient's, names Ansible's hosts
HOSTS = '<hosts>'


def commands():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, 'setup.cfg'))
    for line in cfg['entry_points']['openstack.tripleoplan.v1'].split('\n'):
        if line.strip():
            name, target = (p.strip() for p in line.split('=', 1))
            module, cls = target.split(':')
            yield name, getattr(importlib.import_module(module), cls)


class TestOptionUnits(unittest.TestCase):

    def test_each_option_names_its_unit(self):
        seen = set()
        for name, cls in commands():
            parser = cls(None, None).get_parser(name)
            for action in parser._actions:
                option = [o for o in action.option_strings if o in OPTIONS]
                if not option or (option == ['--limit'] and
                                  action.metavar == HOSTS and
                                  action.type is None):
                    continue
                where = '%s %s' % (name, option[0])
                self.assertIn(action.metavar, UNITS, msg=where)
                word, types = UNITS[action.metavar]
                self.assertIn(word.lower(), action.help.lower(), msg=where)
                # node_provision reads its week-long --timeout itself
                if not (action.metavar == '<seconds>' and
                        action.type.__name__ == '_seconds'):
                    self.assertIn(action.type, types, msg=where)
                seen.add(action.metavar)
        self.assertEqual(set(UNITS), seen)
