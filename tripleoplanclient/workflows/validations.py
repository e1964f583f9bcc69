"""The validations from the client: each operation is our workflow of the
same name (``protocol``); the CLI runs the quick ones as their action on
its own (one synchronous request, as the library's commands do) and a
run as a workflow execution, whose id is the run's.
"""

from tripleoplanclient import protocol
from tripleoplanclient.common import exceptions
from tripleoplanclient.workflows import executions

# what the client waits for Mistral beyond the run's own time budget
MARGIN = 60


def ask(workflows, name, timeout, **fields):
    """The answer of the quick operation ``name`` (``validation_list``,
    ``_install``, ``_stop``, ``_results``)."""
    result = workflows.run_action(name, protocol.request(name, **fields),
                                  timeout)
    if not isinstance(result, dict):
        raise exceptions.CommandError(
            'The %s action in Mistral answered %r: install the same '
            'tripleoplanclient version in Mistral\'s environment.'
            % (name, result))
    return result


def start(workflows, **fields):
    """Start a run: its workflow execution (the run's id is its id)."""
    return workflows.start(protocol.workflow('validation_run'),
                           protocol.request('validation_run', **fields))


def wait(workflows, execution, timeout):
    """The run's summary once it ended; None when Mistral still runs it
    after ``timeout`` seconds. CommandError with the action's reason when
    it failed before running anything (an unknown validation...)."""
    task = workflows._wait_task(execution, 'validation_run', timeout)
    if task is None:
        return None
    if task.state != 'SUCCESS':
        raise exceptions.CommandError(executions._reason(task.state_info))
    return executions._published(task).get('validation_run') or {}
