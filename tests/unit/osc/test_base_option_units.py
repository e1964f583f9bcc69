"""Every option that takes a duration, a size or a count names its unit:
in its metavar, in its help, and in the argparse type that reads it (the
table of units: doc/source/guide/coming-from-tripleoclient.rst)."""

import argparse
import configparser
import importlib
import os
import unittest

from tripleoplanclient.osc import base
from tripleoplanclient import protocol

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
# metavar -> the word its help says, and the argparse types that read it
UNITS = {
    '<minutes>': ('minutes', (base.minutes, base.stack_minutes)),
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
                self.assertIn(action.type, types, msg=where)
                seen.add(action.metavar)
        self.assertEqual(set(UNITS), seen)


# commands whose --timeout a follow task in Mistral waits out: the
# workflow whose follow it is
FOLLOWED = {
    'overcloud deploy': 'deploy', 'overcloud update': 'deploy',
    'overcloud upgrade': 'deploy', 'overcloud node delete': 'deploy',
    'overcloud delete': 'overcloud_delete',
    'overcloud node provision': 'node_provision',
    'overcloud node unprovision': 'node_unprovision',
    'overcloud node introspect': 'node_introspect',
    'overcloud node provide': 'node_provide',
}


class TestTimeoutsWithinTheFollow(unittest.TestCase):
    """A timeout longer than its follow task can look would outlive the
    record of the operation's end: refused when parsed."""

    def test_the_longest_timeout_is_within_each_follow(self):
        found = dict((n.replace('_', ' '), c) for n, c in commands())
        for name, workflow in sorted(FOLLOWED.items()):
            parser = found[name](None, None).get_parser(name)
            action = next(a for a in parser._actions
                          if '--timeout' in a.option_strings)
            most = {base.stack_minutes: base.STACK_TIMEOUT_MAX * 60,
                    base.node_seconds: base.NODE_TIMEOUT_MAX}[action.type]
            follows = protocol.FOLLOW_ROUNDS * protocol.FOLLOW_DELAYS.get(
                workflow, protocol.FOLLOW_DELAY)
            self.assertLess(most, follows, name)
            unit = 60 if action.type is base.stack_minutes else 1
            self.assertEqual(most // unit, action.type(str(most // unit)))
            with self.assertRaises(argparse.ArgumentTypeError, msg=name):
                action.type(str(most // unit + 1))
