"""The stacks the config-download tests read from the fake Heat.

``overcloud()`` is a small but realistic THT 18 stack: Controller x1 and
Compute x2 (deployed servers), the config-download outputs (RoleData,
RoleConfig, RoleGroupVars, AnsibleHostVarsMap, RoleNetHostnameMap,
RoleNetIpMap, ServerIdData, EnabledServices, VipMap...), and software
deployments of the hiera, script and ansible groups: a post-deploy
(ExtraConfigPost) and a pre-network one, a ResourceGroup whose members
are named 0 and 1, a reference that is a stack path, one with no physical
deployment and one of a server the outputs exclude. ``many()`` is a
THT-sized stack for counting requests.
"""

from tests.unit.config import fake_heat


def _tasks(role):
    return [
        {'name': '%s step 1' % role, 'debug': {'msg': 'one'},
         'when': 'step|int == 1'},
        {'name': '%s steps 2 and 3' % role, 'command': 'true',
         'when': ['step|int == 2 or step|int == 3', 'enabled|bool']},
        {'name': '%s every step' % role, 'ping': None},
        {'name': '%s step 5 in parens' % role, 'command': 'true',
         'when': '(step | int) == 5'},
        {'name': '%s with a boolean when' % role, 'command': 'true',
         'when': True}]


def _role_data(role, services):
    return {
        'deploy_steps_tasks': _tasks(role),
        'host_prep_tasks': [{'name': 'prep %s' % role,
                             'file': {'path': '/var/lib/x',
                                      'state': 'directory'}}],
        'step_config': "include ::tripleo::trusted_cas\n"
                       "include ::tripleo::profile::base::%s\n" %
                       role.lower(),
        'upgrade_tasks': [{'name': 'upgrade', 'when': 'step|int == 3',
                           'command': 'true'}],
        'update_tasks': [{'name': 'update', 'command': 'true'}],
        'post_update_tasks': [{'name': 'post update',
                               'when': 'step|int == 1', 'command': 'true'}],
        'external_deploy_tasks': [{'name': 'never in the role folder'}],
        'puppet_config': [{'config_volume': 'keystone', 'step_config':
                           'include ::tripleo::profile::base::keystone'}],
        'service_names': services,
        'param_config': {'NovaEnableRbdBackend': False, 'Debug': True},
        'config_settings': {'tripleo::profile::base::database': 'x',
                            'password': 'in a file that must hold it'},
        'anchors_are_text': ['&anchor', '*alias', '<<: *x', '!!python/name'],
    }


SERVERS = {'Controller': ['overcloud-controller-0'],
           'Compute': ['overcloud-novacompute-0', 'overcloud-novacompute-1']}
NETWORKS = ('ctlplane', 'internal_api', 'storage')


def outputs(servers=None, domain='localdomain'):
    """The config-download outputs of a stack with ``servers``
    (``{role: [hostname]}``)."""
    servers = servers or SERVERS
    ids = {role: [fake_heat.uuid_of('server/' + n) for n in names]
           for role, names in servers.items()}
    services = {'Controller': ['keystone', 'ceph_mon', 'haproxy'],
                'Compute': ['nova_compute', 'ceph_client']}
    ips, hostnames = {}, {}
    base = 10
    for role, names in servers.items():
        ips[role] = {net: ['192.168.%d.%d' % (i, base + n)
                           for n in range(len(names))]
                     for i, net in enumerate(NETWORKS, 24)}
        hostnames[role] = {net: ['%s.%s.%s' % (n, net, domain)
                                 for n in names] for net in NETWORKS}
        base += 20
    return {
        'RoleData': {role: _role_data(role, services.get(role, ['x']))
                     for role in servers},
        'RoleConfig': {
            'deploy_steps_playbook': [{'hosts': 'overcloud', 'tasks': [
                {'include_tasks': 'deploy_steps_tasks_step1.yaml'}]}],
            'update_steps_playbook': [{'hosts': 'overcloud',
                                       'serial': 1}],
            'upgrade_steps_playbook': [{'hosts': 'overcloud'}],
            'external_deploy_steps_tasks': [
                {'name': 'external one', 'when': 'step|int == 1'},
                {'name': 'external always'}],
            'global_vars': {'deploy_steps_max': 6, 'container_cli':
                            'podman'},
            'container_puppet_script': '#!/bin/bash\nset -eu\necho hi\n',
            'common_deploy_steps_tasks.yaml': [{'name': 'with a dot'}]},
        'RoleGroupVars': {role: {'tripleo_role_name': role,
                                 'service_names': services.get(role, [])}
                          for role in servers},
        'AnsibleHostVarsMap': {role: {n: {'tripleo_hostname': n,
                                          'network_config': {'x': 1}}
                                      for n in names}
                               for role, names in servers.items()},
        'RoleNetHostnameMap': hostnames,
        'RoleNetIpMap': ips,
        'ServerIdData': {'server_ids': ids, 'bootstrap_server_id':
                         ids[sorted(ids)[-1]][0]},
        'EnabledServices': {role: services.get(role, [])
                            for role in servers},
        'VipMap': {'ctlplane': '192.168.24.5', 'internal_api':
                   '192.168.25.5', 'redis': '192.168.25.6',
                   'external': '10.0.0.5', 'storage': None},
        'KeystoneURL': 'http://192.168.24.5:5000',
        'EndpointMap': {'HorizonPublic': {'uri': 'http://10.0.0.5/dashboard'}},
        'BlacklistedHostnames': ['', 'overcloud-novacompute-9'],
        'HostnameNetworkConfigMap': {'overcloud-controller-0': 'ctl'},
    }


def overcloud(name=fake_heat.STACK):
    """The realistic stack the comparison tests and others use."""
    out = outputs()
    cloud = fake_heat.Cloud(name, out, {'parameter_defaults': {
        'ContainerCli': 'podman', 'AdminPassword': 'secret-admin-pw',
        'NotKept': 'x'}, 'parameters': {}, 'resource_registry': {}})
    ids = out['ServerIdData']['server_ids']
    root = cloud.root
    for role, names in SERVERS.items():
        role_stack = cloud.nested_stack(root, role, 'OS::Heat::ResourceGroup')
        for index, server in enumerate(names):
            sid = ids[role][index]
            server_stack = cloud.nested_stack(role_stack, str(index),
                                              'OS::TripleO::%s' % role)
            cloud.software_deployment(
                server_stack, '%sDeployment' % role, sid, 'hiera',
                {'hierarchy': ['"%{::uuid}"',
                               'heat_config_%{::deploy_config_name}'],
                 'datafiles': {'service_configs': {'mysql': 'x'}}},
                inputs=[{'name': 'name', 'value': '%sDeployment' % role},
                        {'name': 'bootstrap', 'type': 'Boolean',
                         'value': index == 0},
                        {'name': 'extra', 'type': 'Json',
                         'value': {'a': [1, 2], 'b': None}},
                        {'name': 'nothing', 'value': None},
                        {'name': 'text', 'value': 'line one\nline two\n'}],
                name='%sDeployment' % role)
            cloud.software_deployment(
                server_stack, '%sPreNetworkConfig' % role, sid, 'script',
                '#!/bin/bash\necho pre-network\n',
                inputs=[{'name': 'interface', 'value': 'eth0',
                         'description': 'The NIC'}],
                name='%sPreNetworkDeployment' % role)
            cloud.software_deployment(
                server_stack, '%sUpgradeInitDeployment' % role, sid,
                'script', '{"json": "text", "n": 1}',
                name='%sUpgradeInitDeployment' % role, ref_kind='path')
        post = cloud.nested_stack(root, '%sExtraConfigPost' % role)
        for index, server in enumerate(names):
            cloud.software_deployment(
                post, 'Deployment%d' % index, ids[role][index], 'ansible',
                '- hosts: localhost\n  tasks:\n  - debug: {msg: post}\n',
                name='%sPostConfigDeployment' % role,
                options={'modulepath': '/usr/share/ansible', 'tags': ''})
    # A group whose members are named 0 and 1 (no name property)
    group = cloud.nested_stack(root, 'ComputeSwapDeployments',
                               'OS::Heat::ResourceGroup')
    for index, sid in enumerate(ids['Compute']):
        cloud.software_deployment(group, str(index), sid, 'script',
                                  'swapon -a\n')
    # Not configured: no physical deployment; a server the outputs exclude
    cloud.software_deployment(root, 'DeleteOnlyDeployment',
                              ids['Controller'][0], 'script', 'x',
                              name='DeleteOnly', ref_kind='none')
    cloud.software_deployment(root, 'ExcludedServerDeployment',
                              fake_heat.uuid_of('server/excluded'), 'script',
                              'x', name='Excluded')
    return cloud


def many(roles=3, per_role=50, servers_per_role=2):
    """A THT-sized stack: ``roles`` roles of ``servers_per_role`` servers,
    ``per_role`` deployments each (spread over its servers)."""
    servers = {'Role%d' % r: ['overcloud-role%d-%d' % (r, s)
                              for s in range(servers_per_role)]
               for r in range(roles)}
    out = outputs(servers)
    cloud = fake_heat.Cloud(fake_heat.STACK, out, {'parameter_defaults': {
        'ContainerCli': 'podman'}})
    ids = out['ServerIdData']['server_ids']
    for role, names in servers.items():
        role_stack = cloud.nested_stack(cloud.root, role)
        for d in range(per_role):
            index = d % len(names)
            cloud.software_deployment(
                role_stack, '%sDeployment%d' % (role, d), ids[role][index],
                'hiera' if d % 2 else 'script',
                {'datafiles': {'k%d' % d: 'v'}} if d % 2 else 'echo %d\n' % d,
                inputs=[{'name': 'n', 'value': d}],
                name='%sDeployment%d' % (role, d))
    return cloud


def quirks():
    """One server with deployments whose configs and inputs tripleo-common
    pasted into its templates as text YAML then read otherwise: empty and
    blank-lined configs, JSON scalars as scripts, a structured script,
    inputs that are lists, numbers, booleans, empty text, the word true
    (as a value, a name and a deployment's name), options None or with
    booleans, no outputs."""
    cloud = many(1, 1, servers_per_role=1)
    sid = cloud.outputs['ServerIdData']['server_ids']['Role0'][0]
    holder = cloud.nested_stack(cloud.root, 'Quirks')
    odd_inputs = [{'name': 'a_list', 'type': 'CommaDelimitedList',
                   'value': ['x', 'y']},
                  {'name': 'zero', 'type': 'Number', 'value': 0},
                  {'name': 'no', 'type': 'Boolean', 'value': False},
                  {'name': 'empty', 'value': ''},
                  {'name': 'true', 'value': 'true',
                   'description': 'yes'},
                  {'name': 'spaced',
                   'value': 'lead\n  indented\ntrail  \n\n',
                   'description': ' padded '}]
    configs = [('Empty', 'script', '', None),
               ('Blank', 'script', '\n\nafter blank lines\n\n\n', {}),
               ('Number', 'script', '123', {'x': True, 'y': None}),
               ('Quoted', 'script', '"quoted"', {}),
               ('Structured', 'ansible', {'a': [1, {'b': None}]}, {}),
               ('true', 'script', 'echo true', {})]
    for name, group, config, options in configs:
        cloud.software_deployment(holder, name, sid, group, config,
                                  inputs=odd_inputs, name=name,
                                  options=options)
    for config in cloud.configs.values():
        config['outputs'] = []
    return cloud
