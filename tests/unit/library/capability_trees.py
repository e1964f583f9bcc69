"""Templates trees for the capabilities tests: a capabilities-map.yaml, and
a tree with sample-env-generator/ and headed environment files
(``Derived``, a TestCase mixin that builds its capabilities)."""

from tripleoplanclient.common import exceptions
from tripleoplanclient.library import capabilities
from tripleoplanclient.library import derived_capabilities

ROOT = derived_capabilities.ROOT_ENVIRONMENT

MAP = b"""# the map's own comments
root_environment: overcloud-resource-registry-puppet.yaml
topics:
  - title: Base
    environment_groups:
      - environments:
          - file: overcloud-resource-registry-puppet.yaml
            title: Base resources
  - title: Networking
    description: Networks of the overcloud
    future_key: ignored
    environment_groups:
      - title: Isolation
        description: >
          Isolated networks
        mutually_exclusive: true
        environments:
          - file: environments/net-iso.yaml
            title: Network isolation
            description: Isolate traffic
            requires:
              - overcloud-resource-registry-puppet.yaml
          - file: ./environments/net-iso-v6.yaml
            title: 1234
            requires: [environments/not-in-the-map.yaml]
      - title: NIC layout
        environments:
          - file: environments/bond.yaml
            title: Bond
            requires:
              - environments/net-iso.yaml
              - overcloud-resource-registry-puppet.yaml
          - file: environments/gone.yaml
            title: Gone from the tree
"""


def tree(files):
    """``(paths, read, reads)``: a plan's paths and a ``read`` that counts
    what it is asked for."""
    reads = []

    def read(path):
        reads.append(path)
        return files[path]
    return set(files), read, reads


def by_file(caps):
    return capabilities.environments(caps)


def excluded(caps, path):
    return {e['file']: e['reason'] for e in by_file(caps)[path]['excludes']}


def overlapped(caps, path):
    return {e['file']: e['reason'] for e in by_file(caps)[path]['overlaps']}


# A map shaped as tripleo-heat-templates' own before 17 (Train, 11.x):
# only groups flagged mutually_exclusive are a choice of one; the Cinder
# backends, the Neutron plugins and the Ceph options combine.
TRAIN_MAP = b"""topics:
  - title: Network Configuration
    environment_groups:
      - title: NICs, Bonding, VLANs Configuration
        mutually_exclusive: true
        environments:
          - file: environments/net-bond-with-vlans.j2.yaml
          - file: environments/net-single-nic-with-vlans.j2.yaml
  - title: Neutron Plugin Configuration
    environment_groups:
      - title: Neutron Plugins
        environments:
          - file: environments/neutron-ovs-dpdk.yaml
          - file: environments/neutron-ovs-dvr.yaml
  - title: Storage
    environment_groups:
      - title: Cinder backends
        environments:
          - file: environments/cinder-netapp-config.yaml
          - file: environments/cinder-pure-config.yaml
          - file: environments/cinder-iser.yaml
      - title: Ceph
        mutually_exclusive: true
        environments:
          - file: environments/ceph-ansible/ceph-ansible.yaml
          - file: environments/ceph-ansible/ceph-ansible-external.yaml
      - title: Additional Ceph Options
        environments:
          - file: environments/ceph-ansible/ceph-mds.yaml
          - file: environments/ceph-ansible/ceph-rgw.yaml
          - file: environments/manila-cephfsnative-config.yaml
      - title: Manila with NetApp
        environments:
          - file: environments/manila-netapp-config.yaml
"""


GENERATOR = b"""environments:
  - name: ssl/enable-tls
    title: Enable TLS
    description: |
      Pass certificates in.
    files: {}
    future_key: ignored
  - name: ssl/trust
    title: Trust a CA
    description: Adds a CA.
    children:
      - name: ssl/trust-hiera
        description: Adds a CA with hiera.
      - name: ssl/not-in-the-tree
"""

HEADED = b"""# *****************************
# generated, do not edit
# *****************************
# title: Endpoints as IP addresses
# description: |
#   Use this environment when the public
#   endpoint is an IP address.
#
#   A second paragraph.
parameter_defaults:
  # title: not a header
  EndpointMap:
    KeystonePublic: {host: IP_ADDRESS, port: 13000}
    NovaPublic: {host: IP_ADDRESS, port: 13774}
parameter_merge_strategies:
  EndpointMap: merge
"""


class Derived:
    """A tree with no map: its ``files``, ``build`` (the reads in
    ``self.reads``) and ``assertMalformed``."""

    def setUp(self):
        self.files = {
            'overcloud.j2.yaml': b'heat_template_version: wallaby\n',
            'overcloud-resource-registry-puppet.j2.yaml':
                b'resource_registry:\n  OS::TripleO::Services::A: x.yaml\n',
            'overcloud-resource-registry-puppet.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: deployment/a-base.yaml\n'
                b'parameter_defaults:\n  Backend: base\n'),
            'sample-env-generator/ssl.yaml': GENERATOR,
            'sample-env-generator/README.rst': b'not yaml: [\n',
            'environments/ssl/enable-tls.yaml': (
                b'# title: a header the generator overrides\n'
                b'parameter_defaults:\n  SSLKey: ""\n'),
            'environments/ssl/trust.yaml': b'{}\n',
            'environments/ssl/trust-hiera.yaml': b'',
            'environments/ssl/ip.yaml': HEADED,
            'environments/ssl/dns.yaml': (
                b"# title: 'Endpoints as DNS names'\n"
                b'# description: Public endpoints by name\n'
                b'parameter_defaults:\n'
                b'  EndpointMap:\n'
                b'    KeystonePublic: {host: CLOUDNAME, port: 13000}\n'
                b'parameter_merge_strategies:\n  EndpointMap: merge\n'),
            'environments/ssl/port.yaml': (
                b'parameter_defaults:\n  EndpointMap:\n'
                b'    GlancePublic: {host: IP_ADDRESS, port: 13292}\n'
                b'parameter_merge_strategies:\n  default: merge\n'),
            # Registry: relative targets from each file's own directory.
            'environments/a-one.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: ../deployment/a.yaml\n'),
            'environments/services/a-two.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: ../../deployment/a.yaml\n'),
            'environments/services/a-off.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: OS::Heat::None\n'
                b'  resources:\n    r1:\n      OS::X: OS::Heat::None\n'),
            # Parameters.
            'environments/backend-file.yaml': (
                b'parameter_defaults:\n  Backend: file\n'
                b'  Drivers: ovn\n  Enabled: True\n'),
            'environments/backend-rbd.yaml': (
                b'parameter_defaults:\n  Backend: rbd\n'
                b'  Drivers: [ovn, sriov]\n  Enabled: "true"\n'),
            'environments/drivers-list.yaml': (
                b'parameter_defaults:\n  Drivers: [ovs, sriov]\n'),
            'environments/drivers-text.yaml': (
                b'parameter_defaults:\n  Drivers: "ovs, sriov"\n'),
            # Not listed: lifecycle, a release note, what is no YAML.
            'environments/lifecycle/update-prepare.yaml': b'{}\n',
            'environments/releasenotes/notes/x.yaml': b'fixes: [a]\n',
            'environments/README.md': b'# notes\n',
            # Known by its jinja2 source only: header read, no settings.
            'environments/net.j2.yaml': (
                b'# title: Networks\n{% for n in networks %}\n'
                b'resource_registry: {}\n{% endfor %}\n'),
            'environments/per-role.role.j2.yaml': b'x: 1\n',
        }

    def build(self, enabled=()):
        paths, read, reads = tree(self.files)
        self.reads = reads
        return capabilities.build(paths, read, enabled, plan='oc')

    def assertMalformed(self, path, text, *fragments):
        self.files[path] = text
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.build()
        for fragment in (path,) + fragments:
            self.assertIn(fragment, str(ctx.exception))
