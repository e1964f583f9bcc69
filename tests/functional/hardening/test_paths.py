"""Issue 13 (paths): reserved and hostile plan paths, export members, plan
names; a clear error, rc != 0, the stored plan and its record unchanged."""

import io
import os
import tarfile

import yaml

from tests.functional import base


class TestHardeningPaths(base.BadInputTest):

    PREFIX = 'paths'
    TEMPLATES = {
        'overcloud.yaml': 'heat_template_version: wallaby\n'
                          'parameters:\n  AdminPassword:\n'
                          '    type: string\n    hidden: true\n',
        'plan-environment.yaml': 'version: 1.0\nname: overcloud\n'
                                 'template: overcloud.yaml\n'}

    def passwords(self):
        return yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords']

    def test_upload_cannot_replace_plan_environment_or_the_record(self):
        generated = self.passwords()
        self.assertIn('AdminPassword', generated)
        mine = self.write('mine.yaml', 'version: 1.0\n')
        for target in ('plan-environment.yaml',
                       'user-environments/environments.yaml', '.', '..',
                       'a//b', '/abs', 'dir/'):
            self.fail_with(r'--upload-file %s=.*Nothing was changed'
                           % mine, 'overcloud', 'plan', 'amend', self.plan,
                           '--upload-file', '%s=%s' % (mine, target))
        self.fail_with('generated passwords', 'overcloud', 'plan', 'amend',
                       self.plan, '--upload-file',
                       os.path.join(self.templates, 'plan-environment.yaml'))
        self.assertEqual(generated, self.passwords())

    def test_a_tree_with_a_record_path_is_refused_naming_the_file(self):
        tree = base.write_tree(os.path.join(self.tmp, 'bad-tree'), {
            'overcloud.yaml': 'heat_template_version: wallaby\n',
            'user-environments/log/x.yaml': '{}\n'})
        bad = os.path.join(tree, 'user-environments/log/x.yaml')
        self.fail_with('%s.*Remove or rename it in the templates tree'
                       % bad, 'overcloud', 'plan', 'create', self.new_plan,
                       '--templates', tree, '--no-render')
        self.fail_with('%s.*Remove or rename it' % bad, 'overcloud',
                       'deploy', '--stack', self.plan, '--templates', tree,
                       '--dry-run')

    def test_a_roles_file_inside_the_record_dir_is_refused(self):
        roles = os.path.join(self.templates, 'user-environments', 'r.yaml')
        os.makedirs(os.path.dirname(roles), exist_ok=True)
        with open(roles, 'w') as f:
            f.write('- name: Controller\n')
        try:
            self.fail_with('--roles-file', 'overcloud', 'plan', 'amend',
                           self.plan, '--no-render', '-r', roles)
        finally:
            os.unlink(roles)
            os.rmdir(os.path.dirname(roles))

    def test_a_plan_name_with_a_newline_is_refused(self):
        self.fail_with('is not valid', 'overcloud', 'plan', 'create',
                       self.new_plan + '\n', '--templates', self.templates,
                       '--no-render')

    def test_hostile_object_names_refuse_the_export(self):
        out = os.path.join(self.tmp, 'export.tar.gz')
        for name in ('../../x', '/abs/x'):
            # Swift takes such names as they are (%2F for the leading /).
            status, _, _ = self.swift.request(
                'PUT', '%s/%s' % (self.plan, name.replace('/', '%2F', 1)
                                  if name.startswith('/') else name),
                data=b'evil')
            self.assertIn(status, (201, 202))
            try:
                self.fail_with('cannot be exported: object.*Rename or '
                               'delete that object', 'overcloud', 'plan',
                               'export', self.plan, '--output-file', out)
                self.assertFalse(os.path.exists(out))
            finally:
                self.swift.request('DELETE', '%s/%s' % (
                    self.plan, name.replace('/', '%2F', 1)
                    if name.startswith('/') else name))

    def test_an_export_has_only_plain_member_names(self):
        out = os.path.join(self.tmp, 'ok.tar.gz')
        self.openstack('overcloud', 'plan', 'export', self.plan,
                       '--output-file', out, '--force-overwrite')
        with open(out, 'rb') as f:
            names = tarfile.open(fileobj=io.BytesIO(f.read())).getnames()
        self.assertIn('plan-environment.yaml', names)
        for name in names:
            self.assertFalse(name.startswith('/'), name)
            self.assertNotIn('..', name.split('/'), name)
