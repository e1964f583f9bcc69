"""tools/loopback/credentials.py: one random value per name and state
directory, private, stable, and never two values for one name when
several processes ask at once (no service is started)."""

import json
import multiprocessing
import os
import stat

import fixtures
import testtools


from loopback import common
from loopback import credentials


def _ask(state, names, queue):
    """In a process of its own: what secret() gives for each name."""
    os.environ['LOOPBACK_DIR'] = state
    credentials._CACHE.clear()
    queue.put({name: credentials.secret(name) for name in names})


class TestSecret(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('LOOPBACK_DIR',
                                                     self.state))
        self.addCleanup(credentials._CACHE.clear)
        self.path = os.path.join(self.state, credentials.FILE)

    def stored(self):
        with open(self.path) as f:
            return json.load(f)

    def test_random_long_and_plain(self):
        one = credentials.secret('keystone-admin')
        two = credentials.secret('rabbitmq-loopback')
        self.assertNotEqual(one, two)
        for value in (one, two):
            # 128 bits as hex: nothing to quote in a URL, an ini file or a
            # command line, and Heat's 32-character key
            self.assertEqual(32, len(value))
            int(value, 16)
        self.assertEqual({'keystone-admin': one, 'rabbitmq-loopback': two},
                         self.stored())

    def test_private_file(self):
        credentials.secret('keystone-admin')
        self.assertEqual(0o600, stat.S_IMODE(os.stat(self.path).st_mode))
        self.assertEqual([credentials.FILE, credentials.FILE + '.lock'],
                         sorted(n for n in os.listdir(self.state)
                                if n.startswith(credentials.FILE)))

    def test_a_file_made_readable_is_made_private_again(self):
        credentials.secret('keystone-admin')
        os.chmod(self.path, 0o644)
        credentials._CACHE.clear()
        credentials.secret('keystone-admin')
        self.assertEqual(0o600, stat.S_IMODE(os.stat(self.path).st_mode))

    def test_stable_across_processes(self):
        first = credentials.secret('postgres-heat')
        credentials._CACHE.clear()          # as a later ``start`` would
        self.assertEqual(first, credentials.secret('postgres-heat'))
        self.assertEqual(first, self.stored()['postgres-heat'])

    def test_state_directories_have_their_own(self):
        here = credentials.secret('keystone-admin')
        other = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('LOOPBACK_DIR', other))
        self.assertNotEqual(here, credentials.secret('keystone-admin'))

    def test_keep_records_an_existing_installation_value(self):
        self.assertEqual('tripleoplanclient-loopback-key32',
                         credentials.secret(
                             'heat-auth-encryption-key',
                             keep='tripleoplanclient-loopback-key32'))
        credentials._CACHE.clear()
        # recorded: asked later without it, the same
        self.assertEqual('tripleoplanclient-loopback-key32',
                         credentials.secret('heat-auth-encryption-key'))
        # and only the first time: a value once made stays
        made = credentials.secret('postgres-mistral')
        self.assertEqual(made, credentials.secret('postgres-mistral',
                                                  keep='other'))

    def test_processes_asking_at_once_agree(self):
        names = ['name-%d' % n for n in range(20)]
        queue = multiprocessing.get_context('fork').Queue()
        workers = [multiprocessing.get_context('fork').Process(
            target=_ask, args=(self.state, names, queue))
            for _ in range(6)]
        for w in workers:
            w.start()
        answers = [queue.get(timeout=60) for _ in workers]
        for w in workers:
            w.join(60)
        for answer in answers[1:]:
            self.assertEqual(answers[0], answer)
        self.assertEqual(answers[0], self.stored())
        self.assertEqual([], [n for n in os.listdir(self.state)
                              if n.endswith('.tmp')])

    def test_a_broken_file_is_named_not_replaced(self):
        with open(self.path, 'w') as f:
            f.write('{not json')
        e = self.assertRaises(common.LoopbackError, credentials.secret,
                              'keystone-admin')
        self.assertIn(self.path, str(e))
        self.assertIn('remove it', str(e))
        with open(self.path) as f:
            self.assertEqual('{not json', f.read())


class TestPrivateFiles(testtools.TestCase):

    def test_write_if_changed_with_a_mode(self):
        from pathlib import Path
        path = Path(self.useFixture(fixtures.TempDir()).path) / 'x.conf'
        path.write_text('old')
        os.chmod(path, 0o644)
        self.assertTrue(common.write_if_changed(path, 'new', mode=0o600))
        self.assertEqual(0o600, stat.S_IMODE(path.stat().st_mode))
        os.chmod(path, 0o644)
        # unchanged text: still made private
        self.assertFalse(common.write_if_changed(path, 'new', mode=0o600))
        self.assertEqual(0o600, stat.S_IMODE(path.stat().st_mode))
        self.assertEqual('new', path.read_text())


class TestServicesAskIt(testtools.TestCase):
    """What the services configure: the state directory's secrets, none
    of the fixed values every checkout once shared."""

    def setUp(self):
        super().setUp()
        state = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('LOOPBACK_DIR', state))
        self.addCleanup(credentials._CACHE.clear)

    def test_keystone(self):
        from loopback import keystone
        from loopback import keystone_service
        self.assertEqual(credentials.secret('keystone-admin'),
                         keystone.admin_password())
        self.assertEqual(keystone.admin_password(), keystone_service.Keystone(
            ).cloud()['auth']['password'])
        options = keystone.authtoken('swift')
        self.assertEqual(credentials.secret('keystone-user-swift'),
                         options['password'])
        self.assertNotIn('loopback-', options['password'])

    def test_rabbitmq(self):
        from loopback import rabbitmq
        url = rabbitmq.transport_url()
        self.assertNotIn('guest', url)
        self.assertIn('loopback:%s@' % credentials.secret(
            'rabbitmq-loopback'), url)
        shown = rabbitmq.transport_url(with_password=False)
        self.assertNotIn(credentials.secret('rabbitmq-loopback'), shown)
        self.assertIn(credentials.secret('rabbitmq-loopback'),
                      rabbitmq.RabbitMQ().configs()['rabbitmq.conf'])

    def test_postgres(self):
        from loopback import postgres
        for name in ('keystone', 'heat', 'mistral', 'ironic'):
            self.assertIn(':%s@' % credentials.secret('postgres-' + name),
                          postgres.database_url(name))
