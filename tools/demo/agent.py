"""The ramdisk agent of the demo's nodes, played by the demo: while
``overcloud node introspect`` runs, each node of a nodes.json that
Ironic has put in ``inspect wait`` gets its inventory posted to Ironic's
inspector-compatible endpoint (``/v1/continue_inspection``, no token),
once, as ironic-python-agent would from the booted machine.

    python3 tools/demo/agent.py NODES_JSON IRONIC_URL TIMEOUT

The cloud's token (to read the nodes' states) in ``OS_TOKEN``. Standard
library only. Exit status 0 once every node was answered, 1 otherwise.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

GIB = 1024 ** 3
API_VERSION = '1.89'    # continue_inspection is 1.84


def inventory(mac, cpus, memory_gib):
    """A small machine whose PXE NIC is ``mac``: one 100 GiB disk, UEFI."""
    disk = {'name': '/dev/sda', 'model': 'disk', 'size': 100 * GIB,
            'rotational': False, 'serial': 'demo-' + mac, 'wwn': None,
            'vendor': 'loopback', 'hctl': '0:0:0:0',
            'by_path': '/dev/disk/by-path/pci-0000:00:05.0'}
    return {
        'cpu': {'count': cpus, 'architecture': 'x86_64',
                'model_name': 'QEMU Virtual CPU', 'frequency': '2400',
                'flags': ['lm', 'vmx']},
        'memory': {'total': memory_gib * GIB,
                   'physical_mb': memory_gib * 1024},
        'disks': [disk],
        'interfaces': [{'name': 'eth0', 'mac_address': mac,
                        'ipv4_address': '127.0.0.2', 'ipv6_address': None,
                        'has_carrier': True, 'lldp': None,
                        'vendor': '0x1af4', 'product': '0x0001'}],
        'boot': {'current_boot_mode': 'uefi', 'pxe_interface': mac},
        'system_vendor': {'manufacturer': 'loopback', 'product_name': 'vm',
                          'serial_number': mac},
    }, disk


def call(url, method, path, body=None, token=None):
    headers = {'Content-Type': 'application/json',
               'X-OpenStack-Ironic-API-Version': API_VERSION}
    if token:
        headers['X-Auth-Token'] = token
    req = urllib.request.Request(
        url + '/v1' + path, method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or 'null')
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors='replace')


def main(nodes_json, url, timeout):
    with open(nodes_json) as f:
        nodes = json.load(f)['nodes']
    token = os.environ.get('OS_TOKEN')
    # name -> (mac, cpus, memory GiB): what the machine really has
    left = {n['name']: (n['ports'][0]['address'], int(n.get('cpu', 4)),
                        int(n.get('memory', 8192)) // 1024) for n in nodes}
    deadline = time.monotonic() + timeout
    while left and time.monotonic() < deadline:
        for name, (mac, cpus, memory) in list(left.items()):
            status, node = call(url.rstrip('/'), 'GET', '/nodes/' + name,
                                token=token)
            if status != 200 or node['provision_state'] != 'inspect wait':
                continue
            found, disk = inventory(mac, cpus, memory)
            status, answer = call(url.rstrip('/'), 'POST',
                                  '/continue_inspection',
                                  {'inventory': found, 'root_disk': disk})
            print('agent: %s booted the ramdisk, inventory posted (%d)'
                  % (name, status), file=sys.stderr)
            if status != 202:
                print('agent: Ironic answered %s' % answer, file=sys.stderr)
                return 1
            del left[name]
        time.sleep(0.5)
    if left:
        print('agent: no inspection seen for %s' % ', '.join(sorted(left)),
              file=sys.stderr)
    return 1 if left else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
