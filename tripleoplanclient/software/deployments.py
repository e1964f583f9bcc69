"""Follow, complete and cancel a software deployment.

Heat applies a TEMP_URL_SIGNAL answer itself when it reads the signal
object on a deployment show, but only from its own account; when it has
not, the follower reads the object and applies the answer (PUT
/software_deployments/<id>) with Heat's rules, so watching works whichever
side reads Swift.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import poll
from tripleoplanclient.software import trigger

IN_PROGRESS, COMPLETE, FAILED = 'IN_PROGRESS', 'COMPLETE', 'FAILED'
TIMEOUT = 'TIMEOUT'
STATUS_CODE = 'deploy_status_code'
STANDARD_OUTPUTS = ('deploy_stdout', 'deploy_stderr', STATUS_CODE)


def outcome(config, details):
    """``(status, reason, output_values)`` of a signal, as Heat decides:
    FAILED on a non-zero deploy_status_code or any error_output present."""
    values, failures = {}, []
    code = details.get(STATUS_CODE)
    if code and str(code) != '0':
        failures.append('%s : Deployment exited with non-zero status code: '
                        '%s' % (STATUS_CODE, code))
    for output in config.get('outputs') or []:
        name = output['name']
        if name in details:
            values[name] = details[name]
            if output.get('error_output'):
                failures.append('%s : %s' % (name, details[name]))
    for name in STANDARD_OUTPUTS:
        values[name] = details.get(name)
    if failures:
        return FAILED, ', '.join(failures), values
    return COMPLETE, 'Outputs received', values


def signal_url(config):
    """The deployment's signal URL when it signals through a temp URL."""
    transport = trigger.input_value(config, 'deploy_signal_transport')
    if transport != trigger.TEMP_URL_SIGNAL:
        return None
    return trigger.input_value(config, 'deploy_signal_id')


class Deployments:
    """:param heat: python-heatclient v1 client
    :param signals: a software_signal.SignalStore
    :param progress: line -> stderr
    """

    def __init__(self, heat, signals, progress, sleep=time.sleep,
                 clock=time.monotonic):
        self._heat = heat
        self._signals = signals
        self._progress = progress
        self._sleep = sleep
        self._clock = clock

    def get(self, deployment_id):
        try:
            return trigger.as_dict(
                self._heat.software_deployments.get(deployment_id))
        except Exception as exc:
            if trigger.not_found(exc):
                raise exceptions.CommandError(
                    'Software deployment %s not found (openstack software '
                    'deployment list).' % deployment_id)
            raise

    def config(self, deployment):
        return trigger.as_dict(
            self._heat.software_configs.get(deployment['config_id']))

    def sync(self, deployment, config):
        """Apply the answer waiting in the signal object, if Heat has not.

        Returns the deployment as it is now.
        """
        url = signal_url(config)
        if deployment['status'] != IN_PROGRESS or not url:
            return deployment
        try:
            details = self._signals.read(url, deployment['id'])
        except exceptions.CommandError:
            raise       # a URL that is not our signal: follow nothing
        except ValueError as exc:
            details = {STATUS_CODE: 'invalid',
                       'deploy_stderr': 'The signal is not a JSON object: '
                                        '%s' % exc}
        except Exception as exc:
            # Swift down or not configured: Heat may still read it
            self._progress('Could not read the signal object (%s).'
                           % type(exc).__name__)
            return deployment
        if details is None:
            return deployment
        # Heat may have applied it between our two reads: ask again
        deployment = self.get(deployment['id'])
        if deployment['status'] != IN_PROGRESS:
            return deployment
        status, reason, values = outcome(config, details)
        return trigger.as_dict(self._heat.software_deployments.update(
            deployment['id'], status=status, status_reason=reason,
            output_values=values))

    def watch(self, deployment_id, timeout, interval):
        """Follow the deployment to COMPLETE or FAILED.

        Returns ``(state, deployment, config)``; state is TIMEOUT when
        ``timeout`` seconds passed first (the deployment stays as it is).
        """
        deployment = self.get(deployment_id)
        config = self.config(deployment)
        start = last_note = self._clock()
        if deployment['status'] == IN_PROGRESS:
            self._progress('Waiting for %s on server %s (deployment %s), '
                           'up to %d s.' % (deployment['action'],
                                            deployment['server_id'],
                                            deployment_id, timeout))
        rounds = poll.Poll(timeout, interval, sleep=self._sleep,
                           clock=self._clock, min_sleep=0.05)
        for attempt in rounds:
            if attempt > 1:
                deployment = self.get(deployment_id)
            deployment = self.sync(deployment, config)
            if deployment['status'] != IN_PROGRESS:
                self._progress('Deployment %s %s after %.1f s: %s' % (
                    deployment_id, deployment['status'],
                    self._clock() - start, deployment.get('status_reason')))
                return deployment['status'], deployment, config
            now = self._clock()
            if now - last_note >= 30 and now < rounds.deadline:
                last_note = now
                self._progress('... still IN_PROGRESS after %d s'
                               % (now - start))
        self._progress(
            'No answer from server %s after %d s: deployment %s is left '
            'IN_PROGRESS (watch it again, or cancel it).'
            % (deployment['server_id'], timeout, deployment_id))
        return TIMEOUT, deployment, config

    def cancel(self, deployment_id, reason):
        """Mark an IN_PROGRESS deployment FAILED, and drop its signal.

        An answer already waiting in Swift is applied first: then the
        deployment has finished and cannot be cancelled. A signal that
        comes later recreates the object but changes nothing: Heat and
        :meth:`sync` apply answers to IN_PROGRESS deployments only.
        """
        deployment = self.get(deployment_id)
        config = self.config(deployment)
        url = signal_url(config)
        if url:
            # Refuse a URL that is not our signal before anything changes
            self._signals.location(url, deployment_id)
        deployment = self.sync(deployment, config)
        if deployment['status'] != IN_PROGRESS:
            raise exceptions.CommandError(
                'Deployment %s is already %s (%s): only an IN_PROGRESS '
                'deployment can be cancelled. Nothing was changed.' % (
                    deployment_id, deployment['status'],
                    deployment.get('status_reason')))
        text = 'Deployment cancelled'
        text += ': %s' % reason if reason else '.'
        deployment = trigger.as_dict(
            self._heat.software_deployments.update(
                deployment_id, status=FAILED, status_reason=text))
        if url:
            try:
                self._signals.drop(url, deployment_id)
            except Exception as exc:
                self._progress('Cancelled, but the signal object stays (%s); '
                               'a late signal will be ignored.'
                               % type(exc).__name__)
        self._progress('Deployment %s cancelled.' % deployment_id)
        return deployment, config
