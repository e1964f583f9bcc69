"""The plan container's layout: its reserved names, and what a name may be.

One container per plan, named like its Heat stack::

    <plan>/                                X-Container-Meta-Usage-Tripleo: plan
      overcloud.yaml, ...                  the templates (relative paths)
      plan-environment.yaml                THT's, plus generated passwords
      user-files/<absolute local path>     files given from outside the tree
      user-environments/...                the record (reserved)
"""

import posixpath
import re

from tripleoplanclient.common import exceptions

PLAN_META = 'x-container-meta-usage-tripleo'
PLAN_META_VALUE = 'plan'
TEMPLATE = 'overcloud.yaml'
PLAN_ENVIRONMENT = 'plan-environment.yaml'
USER_FILES = 'user-files/'
# The record and everything the tooling keeps about the plan: no user file
# may land here.
RECORD_DIR = 'user-environments/'
# What the last render read and produced (path -> MD5): the next render
# removes outputs no longer produced, and has nothing to do when no input
# changed and no output was touched since.
RENDER_MANIFEST = RECORD_DIR + 'rendered.yaml'

_PLAN_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9-]*$')


def is_plan(headers):
    """True when container headers mark a plan container."""
    return (headers or {}).get(PLAN_META, '').lower() == PLAN_META_VALUE


def check_name(plan):
    if not _PLAN_NAME.match(plan or '') or len(plan) > 255:
        raise exceptions.CommandError(
            'Plan name %r is not valid: use letters, digits and dashes, '
            'starting with a letter or digit (it also names the Heat stack).'
            % plan)
    return plan


def check_plan_path(path, what):
    """Refuse a plan path that escapes the plan or touches the record."""
    clean = posixpath.normpath(path) if path else ''
    if (not path or path.startswith('/') or clean != path.rstrip('/')
            or clean == '..' or clean.startswith('../')
            or path.endswith('/')):
        raise exceptions.CommandError(
            '%s: plan path %r must be a relative path inside the plan '
            '(no leading "/", no "..", no trailing "/").' % (what, path))
    if path.startswith(RECORD_DIR):
        raise exceptions.CommandError(
            '%s: %s is reserved for the plan record; choose another plan '
            'path.' % (what, RECORD_DIR))
    return path
