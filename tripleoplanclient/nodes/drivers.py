"""The drivers a node file may name (``pm_type``), as TripleO's
node handling accepted them: which ``pm_*`` field goes to which Ironic
``driver_info`` key, in which form, which fields a driver needs, and what
tells one BMC from another (``bmc_key``).

Hardware types of Ironic itself (ipmi, redfish, idrac, ilo, ilo5, irmc,
manual-management, fake-hardware; xclarity in older Ironic) and of
ironic-staging-drivers (staging-amt, staging-iboot, staging-ovirt,
staging-wol). Ironic refuses a node whose type it does not enable: the
file is checked here whatever Ironic enables.
"""

import collections

# How a value is written: TEXT as given; HOST an IP address or host name;
# URL an address with a scheme (https:// when none); BARE the host part of
# an address given as a URL; PORT a port number
TEXT, HOST, URL, BARE, PORT = 'text', 'host', 'url', 'bare', 'port'
IPMI_PORT = 623

# ``fields``: pm_ field -> ((driver_info key, form), ...); ``needed``: the
# pm_ fields the driver cannot go without; ``bmc``: the driver_info keys
# telling its BMC apart (address first), ``default`` the second's when
# unset
Driver = collections.namedtuple('Driver', 'fields needed bmc default')
# what tells two BMCs at one address apart, by the key's kind
DETAIL = {'redfish': 'system', 'ovirt': 'VM'}
CREDENTIALS = ('pm_addr', 'pm_user', 'pm_password')


def _prefixed(prefix, port=True, needed=CREDENTIALS, default=None):
    fields = {'pm_addr': ((prefix + '_address', HOST),),
              'pm_user': ((prefix + '_username', TEXT),),
              'pm_password': ((prefix + '_password', TEXT),)}
    if port:
        fields['pm_port'] = ((prefix + '_port', PORT),)
    return Driver(fields, needed, (prefix + '_address', prefix + '_port')
                  if port else (prefix + '_address',), default)


_REDFISH = {'pm_addr': (('redfish_address', URL),),
            'pm_user': (('redfish_username', TEXT),),
            'pm_password': (('redfish_password', TEXT),),
            'pm_system_id': (('redfish_system_id', TEXT),)}

DRIVERS = {
    'ipmi': _prefixed('ipmi', needed=('pm_addr',), default=IPMI_PORT),
    'redfish': Driver(_REDFISH, ('pm_addr', 'pm_system_id'),
                      ('redfish_address', 'redfish_system_id'), ''),
    # both of iDRAC's forms: Redfish (idrac-redfish interfaces) and WS-Man
    # (idrac-wsman, older Ironic), from the one BMC address and login
    'idrac': Driver({
        'pm_addr': (('redfish_address', URL), ('drac_address', BARE)),
        'pm_user': (('redfish_username', TEXT), ('drac_username', TEXT)),
        'pm_password': (('redfish_password', TEXT),
                        ('drac_password', TEXT)),
        'pm_port': (('drac_port', PORT),),
        'pm_system_id': (('redfish_system_id', TEXT),)}, CREDENTIALS,
        ('redfish_address', 'redfish_system_id'), ''),
    'ilo': _prefixed('ilo'),
    'ilo5': _prefixed('ilo'),
    'irmc': _prefixed('irmc'),
    'xclarity': _prefixed('xclarity'),
    # power and boot by hand: no BMC at all
    'manual-management': Driver({}, (), (), None),
    # a stand-in BMC (tests, demos): stored so that matching and the
    # password's path are those of a real one; the fake interfaces ignore it
    'fake-hardware': _prefixed('fake', needed=(), default=IPMI_PORT),
    'staging-amt': _prefixed('amt', port=False),
    'staging-iboot': Driver(dict(
        _prefixed('iboot').fields,
        pm_relay_id=(('iboot_relay_id', TEXT),)), CREDENTIALS,
        ('iboot_address', 'iboot_port', 'iboot_relay_id'), ''),
    'staging-ovirt': Driver({
        'pm_addr': (('ovirt_address', HOST),),
        'pm_user': (('ovirt_username', TEXT),),
        'pm_password': (('ovirt_password', TEXT),),
        'pm_vm_name': (('ovirt_vm_name', TEXT),)},
        CREDENTIALS + ('pm_vm_name',), ('ovirt_address', 'ovirt_vm_name'),
        ''),
    'staging-wol': Driver({'pm_addr': (('wol_host', HOST),),
                           'pm_port': (('wol_port', PORT),)}, (),
                          ('wol_host', 'wol_port'), ''),
}
# pm_type -> hardware type: the old classic driver names too
ALIASES = {'pxe_ipmitool': 'ipmi', 'agent_ipmitool': 'ipmi',
           'ipmitool': 'ipmi', 'pxe_redfish': 'redfish',
           'pxe_drac': 'idrac', 'agent_drac': 'idrac',
           'pxe_ilo': 'ilo', 'agent_ilo': 'ilo', 'iscsi_ilo': 'ilo',
           'pxe_irmc': 'irmc', 'agent_irmc': 'irmc', 'iscsi_irmc': 'irmc',
           'pxe_iboot': 'staging-iboot', 'agent_iboot': 'staging-iboot',
           'pxe_amt': 'staging-amt', 'agent_amt': 'staging-amt',
           'pxe_wol': 'staging-wol', 'agent_wol': 'staging-wol',
           'fake_pxe': 'fake-hardware', 'fake': 'fake-hardware',
           'fake_agent': 'fake-hardware'}
# every pm_ field some driver reads, in the order problems are named
PM_FIELDS = CREDENTIALS + ('pm_port', 'pm_system_id', 'pm_relay_id',
                           'pm_vm_name')
# the driver_info keys that hold a password (masked by Ironic)
PASSWORDS = frozenset(key for d in DRIVERS.values()
                      for key, _ in d.fields.get('pm_password', ()))
# the driver_info keys that say which BMC and who logs in to it: a change
# of one is a change of the BMC's credentials
CREDENTIAL_KEYS = frozenset(
    key for d in DRIVERS.values() for field in ('pm_addr', 'pm_user',
                                                'pm_port')
    for key, _ in d.fields.get(field, ()))


def hardware_type(pm_type):
    """The hardware type ``pm_type`` names, or None."""
    if not isinstance(pm_type, str):
        return None
    found = ALIASES.get(pm_type, pm_type)
    return found if found in DRIVERS else None


def bare(address):
    """The host of an address that may be a URL (scheme, port, path
    dropped)."""
    host = address.split('://', 1)[-1].split('/', 1)[0]
    if host.startswith('['):
        return host[1:].split(']', 1)[0]
    return host.rsplit(':', 1)[0] if host.count(':') == 1 else host


def bmc_key(driver, driver_info):
    """What tells a BMC apart (None without one): the driver's kind, its
    address (scheme, case and a trailing / aside) and its port, system or
    VM."""
    spec = DRIVERS.get(driver)
    info = driver_info or {}
    if spec is None or not spec.bmc or not info.get(spec.bmc[0]):
        return None
    address = str(info[spec.bmc[0]]).lower().split('://', 1)[-1].rstrip('/')
    rest = [info.get(k) for k in spec.bmc[1:]]
    if spec.default == IPMI_PORT:
        detail = int(rest[0] or IPMI_PORT)
    else:
        detail = '#'.join(str(v) for v in rest if v not in (None, ''))
    return (spec.bmc[0].split('_', 1)[0], address, detail)


def describe_bmc(key):
    kind, address, detail = key
    return '%s %s%s' % (kind, address, ' %s %s' % (
        DETAIL.get(kind, 'port'), detail) if detail != '' else '')
