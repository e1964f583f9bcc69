"""nodes/instance_info.py: a baremetal file's image and sizes checked
with every problem named (no Glance, checksums in their forms, kernel
and ramdisk together, swap only on a partition image), and the
instance_info Ironic is given."""

import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import instance_info

MD5 = 'a' * 32
SHA256 = 'B' * 64
SHA512 = 'c' * 128


def fields(image=None, node=None, **sizes):
    return instance_info.fields(dict({'image': image}, **sizes),
                                node or {'properties': {}})


class TestImageChecks(unittest.TestCase):

    def test_every_problem_named_before_anything(self):
        with self.assertRaises(exceptions.CommandError) as cm:
            baremetal_file.read([
                {'name': 'Controller', 'defaults': {
                    'image': {'href': 'overcloud-full', 'colour': 'red'},
                    'root_size_gb': 0}},
                {'name': 'Compute', 'instances': [
                    {'hostname': 'k0', 'image': {
                        'href': 'https://img.test/oc.qcow2'},
                     'swap_size_mb': 'lots'},
                    {'hostname': 'k1', 'image': {
                        'href': 'file:///i/oc.raw',
                        'kernel': 'file:///i/k'}},
                    {'hostname': 'k2', 'image': {
                        'href': 'http://img.test/oc', 'checksum': 'xyz',
                        'kernel': 'file:///k', 'ramdisk': 'file:///r'}},
                    {'hostname': 'k3', 'image': 'oc.qcow2'}]}])
        text = str(cm.exception)
        for part in (
                "Controller defaults image href 'overcloud-full': give an "
                "http://, https:// or file:/// location (no Glance here)",
                'Controller defaults image: unknown field(s) colour',
                'Controller defaults root_size_gb must be a whole number '
                'of GiB from 4 to 1048576',
                'k0 image: an http(s) image needs a checksum',
                'k0 swap_size_mb must be a whole number of MiB',
                'k1 image: give both kernel and ramdisk',
                'k2 image kernel: a http image takes a http kernel too',
                'k2 image checksum: give md5, sha256 or sha512',
                'k3 image must be a mapping',
                'nothing was provisioned'):
            self.assertIn(part, text)

    def test_swap_needs_a_partition_image(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'k0: swap_size_mb needs a partition'):
            baremetal_file.read([{'name': 'Compute', 'instances': [
                {'hostname': 'k0', 'swap_size_mb': 512}]}])
        # on the role's defaults: only when instances come from them
        partition = {'href': 'file:///i/oc', 'kernel': 'file:///i/k',
                     'ramdisk': 'file:///i/r'}
        roles = baremetal_file.read([{
            'name': 'Compute', 'count': 1,
            'defaults': {'swap_size_mb': 512},
            'instances': [{'hostname': 'k0', 'image': partition}]}])
        self.assertEqual(512, roles[0]['swap_size_mb'])

    def test_instance_settings_over_the_role_defaults(self):
        roles = baremetal_file.read([{'name': 'Compute', 'count': 2,
                                      'defaults': {
                                          'image': {'href': 'file:///a'},
                                          'root_size_gb': 40},
                                      'instances': [{'hostname': 'k0',
                                                     'root_size_gb': 80}]}])
        self.assertEqual(
            {'image': {'href': 'file:///a'}, 'root_size_gb': 80,
             'swap_size_mb': None},
            instance_info.merged(roles[0], roles[0]['instances'][0]))


class TestFields(unittest.TestCase):

    def test_default_image_whole_disk(self):
        self.assertEqual({'image_source': instance_info.DEFAULT_HREF,
                          'image_disk_format': 'raw'}, fields())

    def test_checksum_forms(self):
        href = 'https://img.test/oc.qcow2'
        self.assertEqual(MD5, fields({'href': href, 'checksum': MD5})[
            'image_checksum'])
        found = fields({'href': href, 'checksum': SHA256})
        self.assertEqual(('sha256', SHA256.lower()), (
            found['image_os_hash_algo'], found['image_os_hash_value']))
        self.assertNotIn('image_checksum', found)
        self.assertEqual('sha512', fields({'href': href, 'checksum': SHA512})[
            'image_os_hash_algo'])
        url = 'https://img.test/SHA256SUMS'
        self.assertEqual(url, fields({'href': href, 'checksum': url})[
            'image_checksum'])
        self.assertIsNone(instance_info.checksum_fields('a' * 40))

    def test_partition_root_from_the_node_when_not_given(self):
        image = {'href': 'http://img.test/oc.qcow2', 'checksum': MD5,
                 'kernel': 'http://img.test/k', 'ramdisk': 'http://img.test/r'}
        found = fields(image, {'properties': {'local_gb': '100'}},
                       swap_size_mb=1024)
        self.assertEqual((99, 1024, 'http://img.test/k', 'http://img.test/r'),
                         (found['root_gb'], found['swap_mb'],
                          found['kernel'], found['ramdisk']))
        self.assertEqual(50, fields(image, {'properties': {'local_gb': 100}},
                                    root_size_gb=50)['root_gb'])
        settings = {'image': image}
        self.assertIn('needs root_size_gb', instance_info.root_problem(
            settings, {'uuid': 'u', 'properties': {}}, 'h0'))
        self.assertIsNone(instance_info.root_problem(
            settings, {'uuid': 'u', 'properties': {'local_gb': 10}}, 'h0'))
        self.assertIsNone(instance_info.root_problem(
            {'image': {'href': 'file:///a'}}, {'uuid': 'u'}, 'h0'))
