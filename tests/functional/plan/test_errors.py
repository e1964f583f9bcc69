"""Bad input: a clear error naming the input, rc != 0, nothing changed."""

import os

from tests.functional import base


class TestBadInput(base.BadInputTest):

    # A small templates tree keeps these tests quick (no roles data:
    # nothing to render); the THT 18.0.0 story is in test_plan.
    PREFIX = 'bad'
    TEMPLATES = {
        'overcloud.yaml': 'heat_template_version: wallaby\n',
        'deployment/a.yaml': 'heat_template_version: wallaby\n',
        'environments/e.j2.yaml': 'parameter_defaults: {}\n',
        'environments/plain.yaml': 'parameter_defaults: {}\n'}

    def amend(self, pattern, *args):
        return self.fail_with(pattern, 'overcloud', 'plan', 'amend',
                              self.plan, *args)

    def create(self, pattern, *args):
        return self.fail_with(pattern, 'overcloud', 'plan', 'create',
                              self.new_plan, '--templates', self.templates,
                              '--no-render', *args)

    def test_missing_environment_file(self):
        missing = os.path.join(self.tmp, 'missing.yaml')
        self.create('Environment file %s does not exist' % missing,
                    '-e', missing)
        self.amend('Environment file %s does not exist' % missing,
                   '-e', missing)

    def test_unreadable_environment_file(self):
        # Tests run as root, who reads any mode: a directory stands in.
        directory = os.path.join(self.tmp, 'a-directory.yaml')
        os.makedirs(directory, exist_ok=True)
        self.amend('is a directory', '-e', directory)

    def test_invalid_yaml(self):
        bad = self.write('bad.yaml', 'parameter_defaults:\n  A: [1, 2\n')
        self.create(r'bad.yaml is not valid YAML \(line \d+\)', '-e', bad)
        self.amend(r'bad.yaml is not valid YAML', '-e', bad)

    def test_environment_referencing_a_missing_file(self):
        env = self.write('refs.yaml', 'resource_registry:\n'
                         '  OS::TripleO::X: ./not-there.yaml\n')
        self.amend('refs.yaml references ./not-there.yaml', '-e', env)

    def test_j2_environment_suggests_rendered_name(self):
        self.amend(r'jinja2 source.*environments/e\.yaml', '-e',
                   os.path.join(self.templates, 'environments', 'e.j2.yaml'))

    def test_bad_plan_name(self):
        self.fail_with('Plan name .* is not valid', 'overcloud', 'plan',
                       'create', 'no_underscores!', '--templates',
                       self.templates)

    def test_create_of_existing_plan(self):
        self.fail_with('already exists', 'overcloud', 'plan', 'create',
                       self.plan, '--templates', self.templates)

    def test_unknown_plan(self):
        env = self.write('ok.yaml', 'parameter_defaults: {}\n')
        for args in (('amend', self.new_plan, '-e', env),
                     ('show-history', self.new_plan),
                     ('export', self.new_plan, '--output-file',
                      os.path.join(self.tmp, 'x.tar.gz')),
                     ('delete', '-y', self.new_plan)):
            self.fail_with('Plan %s does not exist' % self.new_plan,
                           'overcloud', 'plan', *args)

    def test_swift_unreachable(self):
        clouds = self.write('clouds.yaml', (
            'clouds:\n  down:\n    auth_type: none\n'
            '    object_store_endpoint_override: '
            'http://127.0.0.1:9/v1/AUTH_x\n'))
        env = dict(self.env, OS_CLIENT_CONFIG_FILE=clouds, OS_CLOUD='down')
        for args in (('show-history', self.plan),
                     ('create', self.new_plan, '--templates',
                      self.templates, '--no-render')):
            out, err = self.openstack('overcloud', 'plan', *args,
                                      fail=True, env=env)
            self.assertIn('Swift is unreachable at http://127.0.0.1:9', err)

    def test_export_onto_existing_file(self):
        target = self.write('existing.tar.gz', 'keep me')
        self.fail_with('exists; pass --force-overwrite', 'overcloud', 'plan',
                       'export', self.plan, '--output-file', target)
        with open(target) as f:
            self.assertEqual('keep me', f.read())

    def test_upload_file_escaping_the_plan(self):
        local = self.write('f.txt', 'x\n')
        for target in ('../outside', '/etc/passwd', 'a/../../b',
                       'user-environments/environments.yaml'):
            self.amend('--upload-file', '--upload-file',
                       '%s=%s' % (local, target))

    def test_delete_without_yes_and_no_terminal(self):
        self.fail_with('without --yes', 'overcloud', 'plan', 'delete',
                       self.plan)

    def test_partial_bulk_failure_does_not_write_the_record(self):
        # A byte quota with 100 bytes of room: Swift takes the small new
        # file and rejects the large one inside the same bulk request (the
        # large one is over the quota even when Swift's cached usage lags).
        _, headers, _ = self.swift.request('HEAD', self.plan)
        used = int(headers['X-Container-Bytes-Used'])
        self.swift.request('POST', self.plan, headers={
            'X-Container-Meta-Quota-Bytes': str(used + 100)})
        try:
            small = self.write('quota/small.yaml', 'parameter_defaults: {}\n')
            large = self.write('quota/large.yaml', 'parameter_defaults:\n'
                               + ''.join('  P%03d: %s\n' % (i, 'x' * 40)
                                         for i in range(20)))
            err = self.amend(r'Swift rejected 1 of 2 objects.*large\.yaml: '
                             r'413', '-e', small, '-e', large)
            self.assertIn('record was not changed', err)
            # As the snapshot sees it: the index is the record's to mend.
            landed = self.snapshot(self.plan)
        finally:
            self.swift.request('POST', self.plan, headers={
                'X-Remove-Container-Meta-Quota-Bytes': 'x'})
        # The small one did land; remove it so the snapshot check holds (a
        # rerun would simply write it again).
        extra = sorted(set(landed) - set(self.before))
        self.assertEqual(['user-files' + small], extra)
        self.swift.request('DELETE', '%s/%s' % (self.plan, extra[0]))
