"""A THT overcloud's resources as Heat lists them (Heat over requests-mock):
server groups, nested server templates, a deployed server, a top-level
Nova server; each resource with its stack and nested stack as links.
"""


from tests.unit import fakes

TOP = 'overcloud/top1'
LIST = '/stacks/%s/resources' % TOP


def resource(stack, name, rtype, physical='', nested=None, attrs=None):
    """A resource as Heat lists it: the holding stack and any nested stack
    only as links."""
    base = fakes.HEAT + '/stacks/' + stack
    links = [{'rel': 'self', 'href': base + '/resources/' + name},
             {'rel': 'stack', 'href': base}]
    if nested:
        links.append({'rel': 'nested', 'href': fakes.HEAT + '/stacks/' +
                      nested})
        physical = nested.split('/')[1]
    body = {'resource_name': name, 'resource_type': rtype,
            'physical_resource_id': physical, 'links': links,
            'resource_status': 'CREATE_COMPLETE'}
    if attrs is not None:
        body['attributes'] = attrs
    return body


# overcloud -> Controller group -> 0, 1 -> Controller (Nova-like server);
# Compute group -> 0 -> NovaCompute, a deployed-server template holding
# the OS::Heat::DeployedServer; Solo, a top-level Nova server.
SERVERS = [
    ('ctl0/m0', 'Controller', 'OS::TripleO::ControllerServer', 'srv-c0',
     'overcloud-controller-0'),
    ('ctl1/m1', 'Controller', 'OS::TripleO::ControllerServer', 'srv-c1',
     'overcloud-controller-1'),
    ('ds0/d0', 'deployed-server', 'OS::Heat::DeployedServer', 'srv-n0',
     'overcloud-novacompute-0'),
    (TOP, 'Solo', 'OS::Nova::Server', 'srv-top', 'solo-0'),
]
TREE = [
    resource(TOP, 'Controller', 'OS::Heat::ResourceGroup',
             nested='grp-ctl/g1'),
    resource(TOP, 'Compute', 'OS::Heat::ResourceGroup',
             nested='grp-cmp/g2'),
    resource('grp-ctl/g1', '0', 'OS::TripleO::Controller', nested='ctl0/m0'),
    resource('grp-ctl/g1', '1', 'OS::TripleO::Controller', nested='ctl1/m1'),
    resource('grp-cmp/g2', '0', 'OS::TripleO::Compute', nested='cmp0/m2'),
    resource('cmp0/m2', 'NovaCompute', 'OS::TripleO::ComputeServer',
             nested='ds0/d0'),
    resource('ctl0/m0', 'NetworkConfig', 'OS::TripleO::Net', 'sc1'),
] + [resource(s, n, t, p) for s, n, t, p, _ in SERVERS]
# Heat's DeployedServer resolves no name attribute: THT's deployed-server
# template outputs it.
DETAILED = [resource(s, n, t, p, attrs={'name': name})
            for s, n, t, p, name in SERVERS[:2]] + [
    resource('cmp0/m2', 'NovaCompute', 'OS::TripleO::ComputeServer',
             nested='ds0/d0', attrs={'name': 'overcloud-novacompute-0'}),
    resource('ds0/d0', 'deployed-server', 'OS::Heat::DeployedServer',
             'srv-n0', attrs={'name': None}),
    resource(TOP, 'Solo', 'OS::Nova::Server', 'srv-top',
             attrs={'name': 'solo-0'})]
