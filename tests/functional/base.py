"""Run the real ``openstack`` CLI against the loopback services.

The services are started by ``tools/loopback start`` (``tox -e
functional`` and ``.ci/run`` do it); these tests fail, never skip, when they
are not running.  Ironic's tests skip without Ironic (see ironic_url).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# templates and environments the rooms' tests share
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'fixtures')
_THT = {}


def started_execution(line):
    """The id of the Mistral execution a progress line says started
    ("Deploying overcloud: started in Mistral (execution <id>)"), else
    None: the one parser of that line."""
    found = re.search(r': started in Mistral \(execution ([0-9a-f-]+)\)',
                      line)
    return found.group(1) if found else None


def default_sigint():
    """``preexec_fn`` of a command a test interrupts: Ctrl-C acts as at a
    terminal even when this run was started in the background of a shell
    without job control, which starts it with SIGINT ignored (inherited,
    and Python then keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def write_tree(root, files):
    """Write ``{relative path: text}`` under ``root``; returns ``root``."""
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
    return root


def read_tree(root):
    """``{relative path: bytes}`` of every file under ``root``."""
    files = {}
    for top, dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(top, name)
            with open(path, 'rb') as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def loopback_env():
    out = subprocess.run(
        ['python3', os.path.join(REPO, 'tools', 'loopback'), 'env'],
        check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        if line.startswith('export '):
            key, _, value = line[len('export '):].partition('=')
            env[key] = value.strip('\'"')
    return env


def admin_password(env):
    """The loopback admin's password: random per state directory
    (tools/loopback/credentials.py), read where the CLI reads it, the
    cloud's clouds.yaml (None without Keystone)."""
    import yaml
    with open(env['OS_CLIENT_CONFIG_FILE']) as f:
        cloud = yaml.safe_load(f)['clouds'][env['OS_CLOUD']]
    return (cloud.get('auth') or {}).get('password')


def tht_dir(version='18.0.0'):
    """A tripleo-heat-templates release from its PyPI sdist (cached);
    ``THT_DIR`` names an 18.0.0 tree already at hand."""
    if version not in _THT:
        _THT[version] = (
            version == '18.0.0' and os.environ.get('THT_DIR') or
            subprocess.run(
                ['bash', os.path.join(REPO, 'tools', 'fetch-tht.sh'),
                 version], check=True, capture_output=True,
                text=True).stdout.strip())
    return _THT[version]


def ironic_url(env):
    """The loopback Ironic's URL (unversioned), once it answers.  Ironic
    is started only where its tests run (``tools/loopback start ironic``):
    without it a node test is skipped, unless ``FUNCTIONAL_REQUIRE_IRONIC``
    is set (``tools/run-tests.sh`` sets it where it starts Ironic), where a
    silent Ironic fails the test instead: a skip would hide it."""
    url = env.get('LOOPBACK_IRONIC_URL', '').rstrip('/')
    try:
        urllib.request.urlopen(url + '/', timeout=5).close()
    except (OSError, ValueError) as exc:
        why = 'Ironic does not answer at %r (%s): python3 tools/loopback ' \
              'start ironic' % (url, exc)
        if os.environ.get('FUNCTIONAL_REQUIRE_IRONIC'):
            raise AssertionError(why + ' (FUNCTIONAL_REQUIRE_IRONIC is set)')
        raise unittest.SkipTest(why)
    return url


def unmarked(value, key):
    """A record's ``files`` without the marks a CLI gives the sources it
    read (``record.origin``: its machine and a tag only it can make, so that
    it reads them again later) and the names its user gave them; a GUI has
    none to give."""
    if key != 'files':
        return value
    return {path: {k: v for k, v in entry.items()
                   if k not in ('machine', 'tag', 'name')}
            for path, entry in value.items()}


RECORD_CACHE = 'user-environments/environments.yaml'
# The services' logs (variables of ``tools/loopback env``) that must not
# hold a secret of our requests
SERVICE_LOGS = ('LOOPBACK_KEYSTONE_LOG', 'LOOPBACK_KEYSTONE_ACCESS_LOG',
                'LOOPBACK_SWIFT_ACCESS_LOG', 'LOOPBACK_HEAT_ENGINE_LOG',
                'LOOPBACK_HEAT_API_LOG', 'LOOPBACK_HEAT_ACCESS_LOG',
                'LOOPBACK_MISTRAL_LOG')


def keystone_session(env):
    """A keystoneauth session of the cloud the CLI uses (its token renewed
    as needed), or None when the services run without Keystone."""
    if not env.get('LOOPBACK_KEYSTONE_URL'):
        return None
    import openstack.config
    config = openstack.config.OpenStackConfig(
        config_files=[env['OS_CLIENT_CONFIG_FILE']])
    return config.get_one(cloud=env['OS_CLOUD']).get_session()


_DEFAULT = {}


def default_session():
    """keystone_session() of the loopback cloud, made once."""
    if 'session' not in _DEFAULT:
        _DEFAULT['session'] = keystone_session(loopback_env())
    return _DEFAULT['session']


def http(method, url, body=None, data=None, token=None):
    """(status, body) of a JSON request as the loopback cloud's user (or
    with ``token``)."""
    if body is not None:
        data = json.dumps(body).encode()
    if token is None:
        session = default_session()
        # Without Keystone, Heat's noauth context passes the token on to
        # its Swift client, which refuses a request without one
        token = session.get_token() if session else 'loopback-noauth'
    req = urllib.request.Request(url, data=data, method=method, headers={
        'Content-Type': 'application/json', 'Accept': 'application/json',
        'X-Auth-Token': token})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class Swift:
    """Plain HTTP against the loopback Swift, to look behind the CLI (as
    the CLI's user, when there is Keystone)."""

    def __init__(self, url, session=None):
        self.url = url.rstrip('/')
        self.session = session

    def request(self, method, path, data=None, headers=None):
        headers = dict(headers or {})
        if self.session is not None:
            headers.setdefault('X-Auth-Token', self.session.get_token())
        req = urllib.request.Request(self.url + '/' + path, data=data,
                                     method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def listing(self, container, prefix=''):
        """{name: md5} of every object, or None when there is no container."""
        result, marker = {}, ''
        while True:
            status, _, body = self.request(
                'GET', '%s?format=json&prefix=%s&marker=%s' % (
                    container, prefix, marker))
            if status == 404:
                return None
            page = json.loads(body)
            if not page:
                return result
            result.update((o['name'], o['hash']) for o in page)
            marker = urllib.request.quote(page[-1]['name'])

    def get(self, container, name):
        status, _, body = self.request('GET', '%s/%s' % (container, name))
        return body if status == 200 else None


class FunctionalTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.env = dict(os.environ)
        cls.env.update(loopback_env())
        cls.tmp = tempfile.mkdtemp(prefix='tpc-func-')
        cls.session = keystone_session(cls.env)
        other = os.environ.get('FUNCTIONAL_SWIFT_URL')
        if other:
            cls.use_swift(other)
        cls.swift = Swift(cls.env['LOOPBACK_SWIFT_URL'], cls.session)

    @classmethod
    def use_swift(cls, url):
        """Point the CLI (and Mistral's actions, which the client asks for
        its endpoint: Mistral's configuration must allow it) at another
        Swift, e.g. one with three replicas:
        ``FUNCTIONAL_SWIFT_URL=http://127.0.0.1:28080/v1/AUTH_tripleo``."""
        import yaml
        with open(cls.env['OS_CLIENT_CONFIG_FILE']) as f:
            clouds = yaml.safe_load(f)
        clouds['clouds'][cls.env['OS_CLOUD']][
            'object_store_endpoint_override'] = url
        path = os.path.join(cls.tmp, 'clouds.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump(clouds, f)
        cls.env.update(OS_CLIENT_CONFIG_FILE=path, LOOPBACK_SWIFT_URL=url)

    @classmethod
    def cloud_env(cls, name, auth=None, **keys):
        """The environment of a cloud ``name``: the loopback cloud with
        ``keys`` set and its ``auth`` updated with ``auth`` (None values
        drop keys), in a clouds.yaml of its own."""
        import yaml
        with open(cls.env['OS_CLIENT_CONFIG_FILE']) as f:
            cloud = yaml.safe_load(f)['clouds'][cls.env['OS_CLOUD']]
        cloud.update(keys)
        cloud['auth'] = dict(cloud.get('auth') or {}, **(auth or {}))
        for where in (cloud, cloud['auth']):
            for key in [k for k, v in where.items() if v is None]:
                del where[key]
        path = os.path.join(cls.tmp, 'clouds-%s.yaml' % name)
        with open(path, 'w') as f:
            yaml.safe_dump({'clouds': {name: cloud}}, f)
        return dict(cls.env, OS_CLIENT_CONFIG_FILE=path, OS_CLOUD=name)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        super().tearDownClass()

    @classmethod
    def cli(cls, *args, env=None):
        """Run ``openstack args`` from a class fixture; its stdout (an
        AssertionError with stderr when it fails)."""
        proc = subprocess.run(['openstack'] + list(args), env=env or cls.env,
                              capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)
        assert proc.returncode == 0, (args, proc.stderr)
        return proc.stdout

    def openstack(self, *args, fail=False, env=None, timeout=600):
        """Run ``openstack args``; returns (stdout, stderr)."""
        proc = subprocess.run(['openstack'] + [str(a) for a in args],
                              capture_output=True, text=True,
                              env=env or self.env, stdin=subprocess.DEVNULL,
                              timeout=timeout)
        if fail:
            self.assertNotEqual(0, proc.returncode,
                                'expected a failure:\n' + proc.stdout)
            self.assertNotIn('Traceback', proc.stderr)
        else:
            self.assertEqual(0, proc.returncode, proc.stderr)
        return proc.stdout, proc.stderr

    def openstack_json(self, *args, timeout=600):
        out, _ = self.openstack(*(args + ('-f', 'json')), timeout=timeout)
        return json.loads(out)

    def killed_once_started(self, *args, until=None):
        """Run ``openstack args`` and kill it (SIGKILL, its whole process
        group) once it says its Mistral execution started
        (``started_execution``), or prints a line holding ``until``: the
        files are written and Mistral has the request, the client never
        sees the answer. Returns its stderr
        lines up to then."""
        proc = subprocess.Popen(
            ['openstack'] + [str(a) for a in args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, env=self.env, text=True,
            start_new_session=True)
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if (until in line) if until else started_execution(line):
                break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        self.assertTrue(lines and ((until in lines[-1]) if until else
                                   started_execution(lines[-1])), lines)
        self.assertEqual(-signal.SIGKILL, proc.returncode)
        return lines

    def gui_workflow(self, name, request, timeout=300):
        """Start our workflow ``name`` with ``request`` as a GUI does (the
        CLI's ``workflow execution create``) and wait for its end:
        ``(id, execution as shown)``."""
        from tripleoplanclient import protocol
        created = self.openstack_json(
            'workflow', 'execution', 'create', protocol.workflow(name),
            json.dumps({'request': request}))
        deadline = time.monotonic() + timeout
        while True:
            shown = self.openstack_json('workflow', 'execution', 'show',
                                        created['ID'])
            if shown['State'] not in ('IDLE', 'RUNNING', 'PAUSED') or \
                    time.monotonic() > deadline:
                return created['ID'], shown
            time.sleep(0.5)

    def resources(self, stack):
        """Top-level resource name -> physical id of a Heat stack."""
        out, _ = self.openstack('stack', 'resource', 'list', stack,
                                '-f', 'json')
        return {r['resource_name']: r['physical_resource_id']
                for r in json.loads(out)}

    def fail_with(self, pattern, *args):
        """Run a command that must fail with ``pattern`` on stderr."""
        out, err = self.openstack(*args, fail=True)
        self.assertRegex(err, pattern)
        self.assert_not_done(out)
        return err

    def assert_not_done(self, out, status='[A-Z_]+'):
        """stdout of a command that did not succeed: nothing, or (one that
        changes or waits, issue 28) its row, ``status`` saying what went
        wrong (REFUSED, FAILED...), as a table or JSON."""
        if out:
            self.assertRegex(out, r'(\| status +\| |"status": ")(%s)\b'
                             % status)
            self.assertNotRegex(out, r'(\| status +\| |"status": ")SUCCESS')

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def snapshot(self, plan):
        """Everything stored for a plan: the listing (its steps and
        outcomes too) with hashes, but not the record's cache, which any
        reader may mend."""
        listing = self.swift.listing(plan)
        if listing is not None:
            listing.pop(RECORD_CACHE, None)
        return listing

    def plan_record(self, plan):
        """The plan's record as the client reads it: history rows, and the
        state after the last step (environments, files, inputs...)."""
        from swiftclient import client as swift_client

        from tripleoplanclient.record import plan_store

        url = self.env['LOOPBACK_SWIFT_URL']
        token = self.session.get_token() if self.session else 'functional'
        rows, head = plan_store.PlanStore(lambda: swift_client.Connection(
            preauthurl=url, preauthtoken=token)).reader.history(plan)
        return dict(head.state, history=rows)


class PlanTest(FunctionalTest):
    """Tests on one small plan made for the class: ``TEMPLATES``, created
    without rendering, deleted after; ``PREFIX`` starts its name."""

    TEMPLATES = {}
    PREFIX = 'plan'

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = write_tree(os.path.join(cls.tmp, 'templates'),
                                   cls.TEMPLATES)
        cls.plan = '%s-%s' % (cls.PREFIX, uuid.uuid4().hex[:8])
        subprocess.run(['openstack', 'overcloud', 'plan', 'create', cls.plan,
                        '--templates', cls.templates, '--no-render'],
                       check=True, env=cls.env, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        cls.plan], env=cls.env, capture_output=True)
        super().tearDownClass()


class BadInputTest(PlanTest):
    """Each test's input is refused: whatever it did, the stored plan and
    its record are intact, and no failed create of ``self.new_plan`` left
    a container behind."""

    def setUp(self):
        super().setUp()
        self.before = self.snapshot(self.plan)
        self.new_plan = 'new-%s' % uuid.uuid4().hex[:8]

    def tearDown(self):
        self.assertEqual(self.before, self.snapshot(self.plan))
        self.assertIsNone(self.swift.listing(self.new_plan))
        super().tearDown()
