"""``software deployment`` options: refused while parsing, before any
request (a trigger once left its signal object behind on ``--timeout
nan``)."""

import contextlib
import io

from tests.unit import fakes
from tripleoplanclient.osc import software

TRIGGER = ['--server', 's1', '--config', 'c1', '--action', 'BACKUP',
           '--wait']


class TestWaitOptions(fakes.HttpTestCase):

    def parse(self, command, argv):
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'orchestration': fakes.HEAT})
        return command(app, None).get_parser('x').parse_args(argv)

    def refused(self, command, argv):
        """argparse's error on stderr, exit status 2."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), \
                self.assertRaises(SystemExit) as caught:
            self.parse(command, argv)
        self.assertEqual(2, caught.exception.code)
        return err.getvalue()

    def test_bad_numbers_are_refused_before_any_request(self):
        for command, argv in ((software.Trigger, TRIGGER),
                              (software.Watch, ['sd1'])):
            for option, value in (
                    ('--timeout', 'nan'), ('--timeout', 'inf'),
                    ('--timeout', '-inf'), ('--timeout', '0'),
                    ('--timeout', '-1'), ('--timeout', '1e308'),
                    ('--timeout', '525601'), ('--timeout', 'soon'),
                    ('--interval', 'nan'), ('--interval', 'inf'),
                    ('--interval', '0'), ('--interval', '-2'),
                    ('--interval', '0.01'), ('--interval', '3601')):
                err = self.refused(command, argv + ['%s=%s' % (option, value)])
                self.assertIn('argument %s: %r: give a number of '
                              % (option, value), err)
                self.assertNotIn('Traceback', err)
        self.assertEqual(0, self.m.call_count)

    def test_good_numbers_pass(self):
        parsed = self.parse(software.Watch, ['sd1', '--timeout', '0.05',
                                             '--interval', '0.5'])
        self.assertEqual((0.05, 0.5), (parsed.timeout, parsed.interval))
        parsed = self.parse(software.Trigger, TRIGGER + [
            '--timeout', '525600', '--interval', '3600'])
        self.assertEqual((525600, 3600), (parsed.timeout, parsed.interval))
        parsed = self.parse(software.Cancel, ['sd1'])
        self.assertFalse(hasattr(parsed, 'timeout'))


class TestSignalColumn(fakes.HttpTestCase):

    def test_a_heat_signal_deployment_shows_its_resource_signal_url(self):
        self.on_heat('GET', '/software_deployments/sd1', {
            'software_deployment': {
                'id': 'sd1', 'config_id': 'c9', 'server_id': 's1',
                'action': 'BACKUP', 'status': 'COMPLETE',
                'status_reason': 'Outputs received',
                'output_values': {'deploy_status_code': 0}}})
        self.on_heat('GET', '/software_configs/c9', {'software_config': {
            'id': 'c9', 'name': 'deployment-BACKUP', 'outputs': [],
            'inputs': [
                {'name': 'deploy_signal_transport', 'value': 'HEAT_SIGNAL'},
                {'name': 'deploy_stack_id', 'value': 'n/st1'},
                {'name': 'deploy_resource_name', 'value': 'deployment'},
                {'name': 'deploy_password', 'value': 'Pw#1'}]}})
        app = fakes.make_app({'orchestration': fakes.HEAT})
        command = software.Watch(app, None)
        columns, values = command.take_action(
            command.get_parser('x').parse_args(['sd1']))
        row = dict(zip(columns, values))
        self.assertEqual('HEAT_SIGNAL', row['signal_transport'])
        self.assertEqual(
            fakes.HEAT + '/stacks/n/st1/resources/deployment/signal',
            row['signal'])
        self.assertEqual('COMPLETE', row['status'])
        self.assertNotIn('Pw#1', repr(values))
