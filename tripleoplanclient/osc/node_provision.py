"""``overcloud node provision`` and ``overcloud node unprovision``:
nodes allocated and deployed for a plan's roles, the deployed-server
environment recorded in the plan (``mistral.node_provision``).

python-tripleoclient's forms: ``FILE``, ``-o/--output``, ``--stack``
(default overcloud), ``--overcloud-ssh-user``, ``--overcloud-ssh-key``,
``--concurrency``, ``--network-ports``, ``--all`` for unprovision. One
row per instance; the exit status of ``osc.exit_status``. Loaded on
every ``openstack`` run: standard library, cliff and osc-lib only at
module level.
"""

import argparse
import os

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('role', 'hostname', 'node', 'ctlplane_ip', 'state')
# Where the login user's key is looked for without --overcloud-ssh-key
DEFAULT_KEYS = ('~/.ssh/id_rsa.pub', '~/.ssh/id_ed25519.pub')
# A public key file is small: no more is read
MAX_KEY_FILE = 64 * 1024


def _concurrency(text):
    """An argparse type: nodes deploying at once, 1 to 1000."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(
            '%r: give a whole number of nodes from 1 to 1000, e.g. 20.'
            % text)
    return value


def _read_key_file(path):
    try:
        with open(path, 'rb') as f:
            return f.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        raise exceptions.CommandError(
            'Cannot read the SSH key %s (%s). Nothing was provisioned.'
            % (path, exc.strerror))


def _add_network_ports(parser):
    parser.add_argument(
        '--network-ports', action='store_true',
        help='Accepted as python-tripleoclient\'s: there is no Neutron '
             'here, each node\'s one port is its ctlplane address, always '
             'in its config drive and the environment\'s NodePortMap.')


class _ProvisionCommand(base.Command, command.Lister):
    """Runs one provisioning workflow, shows its rows; exit status as
    ``exit_status.ResultCommand`` says (refused before Ironic was asked: 3)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'input', metavar='<baremetal_deployment.yaml>',
            help='Baremetal deployment file (python-tripleoclient\'s '
                 'format: roles with count, hostname_format, defaults, '
                 'instances).')
        base.add_stack_option(parser)
        parser.add_argument(
            '--environment-path', metavar='<plan-path>', default=None,
            help='Plan path of the deployed-server environment (default '
                 'baremetal-environment.yaml).')
        base.add_wait_options(
            parser, 'Wait until the nodes rest and the step is recorded',
            'Return once Ironic was asked.')
        parser.add_argument(
            '--timeout', metavar='<seconds>', type=base.node_seconds,
            default=3600,
            help='How long the operation may take, in seconds (default '
                 '3600).')
        return parser

    def read_roles(self, path):
        from tripleoplanclient.common import content
        from tripleoplanclient.nodes import baremetal_file

        data = base.read_file(path, 'Nothing was provisioned.')
        roles = content.load_yaml(
            data, path, loader=content.PlainLoader,
            max_bytes=content.MAX_BAREMETAL_FILE_BYTES)
        baremetal_file.read(roles, path)     # every problem, before Mistral
        return roles

    def fields(self, parsed_args):
        return {'environment': parsed_args.environment_path,
                'ironic_url': self.clients.endpoint('baremetal'),
                'swift_url': self.clients.endpoint('object-store'),
                'command': self.command_line()}

    def run(self, parsed_args):
        self.started, self.status = False, None
        try:
            code = super().run(parsed_args)
        except KeyboardInterrupt:
            self._stderr('Interrupted: the operation goes on in Mistral.')
            return self._early(parsed_args, 'INTERRUPTED')
        except exceptions.CommandError as exc:
            self._stderr(str(exc))
            return self._early(parsed_args, 'FAILED' if self.started
                               else 'REFUSED')
        return code or exit_status.EXIT_STATUS.get(self.status,
                                                   exit_status.DONE)

    def _early(self, parsed_args, status):
        """The row of a command that ended before its rows: its status
        (the reason is on stderr)."""
        self.produce_output(parsed_args, COLUMNS, [
            tuple(status if c == 'state' else None for c in COLUMNS)])
        return exit_status.EXIT_STATUS[status]

    def asked(self):
        """Ironic was asked (the first task ended well): a failure from
        now on is no refusal."""
        self.started = True

    def _stderr(self, line):
        self.error(line)

    def show(self, found, plan):
        self.status = found.status
        step = found.step or {}
        if step.get('status') == 'UNCHANGED':
            self.progress('Plan %s: its nodes and environment are as asked; '
                          'nothing recorded.' % plan)
        elif step.get('id'):
            self.progress('Plan %s: step %s recorded (%s), environments: '
                          '%s.' % (plan, step['id'], step['action'],
                                   ', '.join(step.get('environment_names')
                                             or step['environments'])))
        if found.status == 'TIMEOUT':
            self._stderr('Still running after the timeout: "openstack '
                         'workflow execution show %s".' % found.execution)
        return COLUMNS, [tuple(r[c] for c in COLUMNS) for r in found.rows]


class ProvisionNodes(_ProvisionCommand):
    _description = ('Allocate available nodes to the roles of a baremetal '
                    'deployment file, deploy them, and record their '
                    'deployed-server environment in the plan (nothing '
                    'allocated when too few nodes match)')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '-o', '--output', metavar='<file>', default=None,
            help='Also write the deployed-server environment to this local '
                 'file.')
        parser.add_argument(
            '--ctlplane-cidr', metavar='<cidr>', default='192.168.24.0/24',
            help='Control plane network of the instances without a fixed '
                 'ctlplane address: addresses from its .10 (default '
                 '192.168.24.0/24).')
        parser.add_argument(
            '--overcloud-ssh-user', metavar='<user>',
            default='tripleo-admin',
            help='Login user the config drive creates on each node (sudo '
                 'without password), recorded in the plan for '
                 'config-download and the validations (default '
                 'tripleo-admin).')
        parser.add_argument(
            '--overcloud-ssh-key', metavar='<file>', default=None,
            help='SSH public key file of that user (a private key\'s path '
                 'takes its .pub beside it; default: the first of %s '
                 'that exists).' % ', '.join(DEFAULT_KEYS))
        parser.add_argument(
            '--concurrency', metavar='<nodes>', type=_concurrency,
            default=20,
            help='How many nodes deploy at once (default 20); the others '
                 'wait their turn.')
        _add_network_ports(parser)
        return parser

    def read_keys(self, path):
        """The public keys of ``path`` (or of the first default key
        file); a private key is never sent nor shown: its ``.pub`` is
        taken when there is one."""
        from tripleoplanclient.nodes import config_drive

        if path is None:
            found = [p for p in map(os.path.expanduser, DEFAULT_KEYS)
                     if os.path.exists(p)]
            if not found:
                raise exceptions.CommandError(
                    'No SSH public key for the nodes\' login user: none of '
                    '%s exists. Give --overcloud-ssh-key <file>. Nothing '
                    'was provisioned.' % ', '.join(DEFAULT_KEYS))
            path = found[0]
        data = _read_key_file(path)
        if b'PRIVATE KEY' in data and os.path.exists(path + '.pub'):
            self.progress('%s is a private key: its public key %s.pub goes '
                          'to the nodes.' % (path, path))
            path += '.pub'
            data = _read_key_file(path)
        return config_drive.public_keys(data, path)

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import nodes

        from tripleoplanclient.nodes import config_drive

        plan = layout.check_name(parsed_args.stack)
        roles = self.read_roles(parsed_args.input)
        user = config_drive.check_user(parsed_args.overcloud_ssh_user,
                                       '--overcloud-ssh-user')
        keys = self.read_keys(parsed_args.overcloud_ssh_key)
        workflows = self.workflows()
        fields = self.fields(parsed_args)
        found = nodes.provision(
            workflows, plan, roles, int(parsed_args.timeout),
            parsed_args.wait, started=self.asked,
            ctlplane_cidr=parsed_args.ctlplane_cidr, ssh_user=user,
            ssh_keys=keys, concurrency=parsed_args.concurrency, **fields)
        if parsed_args.output and found.status in ('SUCCESS', 'UNCHANGED'):
            self.write_output(plan, parsed_args)
        return self.show(found, plan)

    def write_output(self, plan, parsed_args):
        from tripleoplanclient import protocol

        path = parsed_args.environment_path or protocol.PROVISION_ENVIRONMENT
        data = self.plan_store(read_only=True).container.get(plan, path)
        if data is None:
            return
        try:
            with open(parsed_args.output, 'wb') as f:
                f.write(data)
        except OSError as exc:
            raise exceptions.CommandError(
                'The nodes are provisioned and the plan\'s environment '
                'recorded, but %s cannot be written (%s): "openstack '
                'object save %s %s" gets it.' % (
                    parsed_args.output, exc.strerror, plan, path))
        self.progress('Wrote %s (plan %s: %s).' % (
            parsed_args.output, plan, path))


class UnprovisionNodes(_ProvisionCommand):
    _description = ('Release nodes provisioned into a plan (those of the '
                    'file marked provisioned: false, or all with --all) '
                    'and record the plan\'s environment without them')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all', action='store_true',
            help='Release every node provisioned into the plan.')
        base.add_yes_option(parser)
        _add_network_ports(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import nodes

        plan = layout.check_name(parsed_args.stack)
        instances = None
        if not parsed_args.all:
            from tripleoplanclient.nodes import baremetal_file
            roles = baremetal_file.read(self.read_roles(parsed_args.input),
                                        parsed_args.input)
            instances = [i['hostname'] for r in roles
                         for i in r['instances']
                         if not i['provisioned'] and i['hostname']]
            if not instances:
                raise exceptions.CommandError(
                    '%s marks no instance provisioned: false; give --all to '
                    'release every node of plan %s. Nothing was released.'
                    % (parsed_args.input, plan))
        if not self.confirm('Release %s of plan %s?' % (
                ', '.join(instances) if instances else 'every node', plan),
                parsed_args.yes):
            raise exceptions.CommandError('Nothing was released.')
        workflows = self.workflows()
        fields = self.fields(parsed_args)
        found = nodes.unprovision(
            workflows, plan, instances, int(parsed_args.timeout),
            parsed_args.wait, started=self.asked, **fields)
        return self.show(found, plan)
