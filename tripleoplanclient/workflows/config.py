"""The configuration (config-download) from the client: the
config_download request, run as its workflow, and the deploy request's
configuration fields (``protocol.config``).
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol


def download_request(plan, swift_url, heat_url, step=None,
                     config_type=None):
    """config_download's request: the tree of stack step ``step`` (a
    number or id; None: the newest), limited to ``config_type`` keys."""
    return protocol.request('config_download', container=plan, step=step,
                            config_type=list(config_type) if config_type
                            else None, swift_url=swift_url,
                            heat_url=heat_url)


def download(workflows, request, timeout):
    """The step's archive, made or found by Mistral: ``{step, number,
    object, files, bytes, heat_requests, built}``."""
    result = workflows.run_workflow('config_download', request, timeout)
    if not isinstance(result, dict) or 'object' not in result:
        raise exceptions.CommandError(
            'The config_download action in Mistral answered %r: install '
            'the same tripleoplanclient version in Mistral\'s environment.'
            % (result,))
    return result


def deploy_fields(config='auto', tags=None, skip_tags=None, limit=None,
                  forks=None, config_timeout=None, playbooks=None):
    """The deploy request's configuration fields from a command's options
    (only those it sets: the others keep the protocol's defaults)."""
    fields = {'config': config, 'tags': list(tags) if tags else None,
              'skip_tags': list(skip_tags) if skip_tags else None,
              'limit': limit, 'forks': forks,
              'config_timeout': config_timeout,
              'playbooks': list(playbooks) if playbooks else None}
    return {k: v for k, v in fields.items() if v is not None}
