"""Environment lists that upstream TripleO deploys with, in their order,
each with its source: what the pre-deploy check must let through (a
later file overriding an earlier one is how TripleO is configured).

Files a tree does not ship are left out where it is checked
(``DROPPED`` says which). The standalone deploy puts
``environments/standalone/standalone-tripleo.yaml`` first, then the job's
``standalone_environment_files`` (tripleo-quickstart-extras, role
standalone); ``ci/environments/`` is outside the capabilities, but kept.
"""

STANDALONE = 'environments/standalone/standalone-tripleo.yaml'
LOW_MEMORY = 'environments/low-memory-usage.yaml'
FIPS = 'environments/fips.yaml'
PODMAN = 'environments/podman.yaml'


def _scenario(number, *more):
    return [STANDALONE, LOW_MEMORY,
            'ci/environments/scenario%s-standalone.yaml' % number] + list(
                more)


# (name, source, environment files in order)
COMBINATIONS = [
    # openstack/tripleo-ci zuul.d/standalone-jobs.yaml (commit f7381eb):
    # the tripleo-ci-scenarioNNN-standalone-options jobs.
    ('scenario000', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('000')),
    ('scenario001', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('001')),
    ('scenario002', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('002')),
    ('scenario003', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('003')),
    ('scenario004', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('004', PODMAN)),
    ('scenario007', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('007')),
    ('scenario010', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('010', 'ci/environments/octavia-kvm.yaml')),
    ('scenario010-ovn-provider',
     'openstack/tripleo-ci zuul.d/standalone-jobs.yaml', _scenario('010')),
    ('scenario012', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('012')),
    # TLS everywhere: IpaClient turned off by the standalone profile, on
    # by enable-internal-tls (the example).
    ('standalone-on-multinode-ipa',
     'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     [STANDALONE, 'environments/ssl/tls-everywhere-endpoints-dns.yaml',
      'environments/services/haproxy-public-tls-certmonger.yaml',
      'environments/ssl/enable-internal-tls.yaml',
      'environments/ssl/enable-memcached-tls.yaml',
      'ci/environments/standalone-ipa.yaml']),
    ('standalone-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     [STANDALONE, FIPS]),
    ('scenario001-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('001', FIPS)),
    ('scenario002-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('002', FIPS)),
    ('scenario003-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('003', FIPS)),
    ('scenario004-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('004', PODMAN, FIPS)),
    ('scenario007-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('007', FIPS)),
    ('scenario010-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('010', 'ci/environments/octavia-kvm.yaml', FIPS)),
    ('scenario010-ovn-provider-fips',
     'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('010', FIPS)),
    ('scenario012-fips', 'openstack/tripleo-ci zuul.d/standalone-jobs.yaml',
     _scenario('012', FIPS)),
    # Neutron's own gate: OVS over the standalone profile's OVN (job
    # neutron-centos-9-tripleo-standalone, a zuul.d file of
    # openstack/neutron; the search tool did not name the file).
    ('neutron-tripleo-standalone', 'openstack/neutron zuul.d (job '
     'neutron-centos-9-tripleo-standalone)',
     [STANDALONE, 'environments/services/neutron-ovs.yaml']),
    # tripleo-docs, deploy guide, standalone with Ceph (cephadm) and with
    # Ironic (the ironic example names neutron-ml2-ansible, gone in 18).
    ('docs-standalone-ceph', 'tripleo-docs deploy guide, standalone with '
     'Ceph (excerpt found with find_string; file not named by the tool)',
     [STANDALONE, LOW_MEMORY, 'environments/cephadm/cephadm-rbd-only.yaml',
      'environments/deployed-network-environment.yaml']),
    ('docs-standalone-ironic', 'tripleo-docs, standalone Ironic example '
     '(excerpt found with find_string; file not named by the tool)',
     [STANDALONE, 'environments/services/ironic.yaml',
      'environments/services/ironic-inspector.yaml',
      'environments/services/neutron-ovs.yaml',
      'environments/services/neutron-ml2-ansible.yaml']),
    # Developer deploy scripts around standalone (found with find_string;
    # repositories not named by the tool).
    ('standalone-services', 'a standalone deploy script (ENV_ARGS: '
     'ironic, barbican, manila, octavia, legacy telemetry)',
     [STANDALONE, LOW_MEMORY,
      'environments/deployed-network-environment.yaml',
      'environments/cinder-backup.yaml',
      'environments/services/ironic-overcloud.yaml',
      'environments/services/ironic-inspector.yaml',
      'environments/services/barbican.yaml',
      'environments/barbican-backend-simple-crypto.yaml',
      'environments/manila-cephfsnative-config.yaml',
      'environments/services/octavia.yaml',
      'environments/enable-legacy-telemetry.yaml']),
    ('standalone-ovn-dpdk-sriov', 'a standalone deploy script '
     '(StandaloneDpdkSriov role)',
     [STANDALONE, 'environments/services/neutron-ovn-standalone.yaml',
      'environments/services/neutron-ovn-dpdk.yaml',
      'environments/services/neutron-ovn-sriov.yaml', LOW_MEMORY]),
    ('standalone-octavia-designate', 'a standalone deploy script '
     '(octavia, designate)',
     [STANDALONE, LOW_MEMORY, 'environments/disable-telemetry.yaml',
      'environments/disable-swift.yaml',
      'environments/services/octavia.yaml',
      'environments/designate-config.yaml']),
    # An overcloud: redhat-cop/agnosticd
    # ansible/configs/osp17-director-deployment/files/deploy.sh
    ('agnosticd-osp17', 'redhat-cop/agnosticd ansible/configs/'
     'osp17-director-deployment/files/deploy.sh',
     ['environments/network-environment.yaml',
      'environments/network-isolation.yaml',
      'environments/net-bond-with-vlans.yaml',
      'environments/barbican-backend-simple-crypto.yaml',
      'environments/services/barbican.yaml',
      'environments/services/octavia.yaml',
      'environments/services/manila.yaml',
      'environments/manila-generic-config.yaml',
      'environments/cinder-backup.yaml',
      'environments/disable-telemetry.yaml']),
]

# What each release does not ship (left out of the list checked).
DROPPED = {
    '17.0.0': {
        'standalone-octavia-designate': [
            'environments/disable-telemetry.yaml',
            'environments/designate-config.yaml'],
        'agnosticd-osp17': [
            'environments/network-isolation.yaml',
            'environments/manila-generic-config.yaml',
            'environments/disable-telemetry.yaml']},
    '18.0.0': {
        'docs-standalone-ironic': [
            'environments/services/neutron-ml2-ansible.yaml'],
        'standalone-octavia-designate': [
            'environments/disable-telemetry.yaml',
            'environments/designate-config.yaml'],
        'agnosticd-osp17': [
            'environments/network-isolation.yaml',
            'environments/manila-generic-config.yaml',
            'environments/disable-telemetry.yaml']},
}

# Upstream lists that THT 17 itself makes real alternatives of (two
# implementations of one resource type): refused there, with the type.
REFUSED = {
    '17.0.0': {
        # neutron-ovs: the ML2 plugin template; neutron-ml2-ansible (17:
        # over OVN, mechanism drivers ovn,ansible): its own plugin type.
        'docs-standalone-ironic': 'OS::TripleO::Services::NeutronCorePlugin',
        # octavia.yaml: Redis as a container; enable-legacy-telemetry:
        # Redis under pacemaker (18 has both on pacemaker).
        'standalone-services': 'OS::TripleO::Services::Redis'},
}

# Real alternatives of THT 18, refused whatever their order.
ALTERNATIVES_18 = [
    (['environments/services/neutron-ovn-ha.yaml',
      'environments/services/neutron-ovs.yaml'],
     'OS::TripleO::Services::NeutronMl2PluginBase'),
    (['environments/services/neutron-ovs.yaml',
      'environments/neutron-ml2-mlnx-sdn.yaml'],
     'OS::TripleO::Services::NeutronCorePlugin'),
    (['environments/cinder-backup-active-active.yaml',
      'environments/cinder-backup-active-passive.yaml'],
     'OS::TripleO::Services::CinderBackup'),
]
