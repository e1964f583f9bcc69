"""The plan container's layout: its reserved names, and what a name may be.

One container per plan, named like its Heat stack::

    <plan>/                                X-Container-Meta-Usage-Tripleo: plan
      overcloud.yaml, ...                  the templates (relative paths)
      plan-environment.yaml                THT's, plus generated passwords
      user-files/<absolute local path>     files given from outside the tree
      user-environments/...                the record (reserved)
"""

import re
from urllib import parse

from tripleoplanclient.common import exceptions

PLAN_META = 'x-container-meta-usage-tripleo'
PLAN_META_VALUE = 'plan'
TEMPLATE = 'overcloud.yaml'
PLAN_ENVIRONMENT = 'plan-environment.yaml'
# The values "overcloud plan parameters set" gives (a Heat environment of
# parameter_defaults, written by our action): merged last, after every
# environment file, as the operator's latest word on them.
PLAN_PARAMETERS = 'plan-parameters.yaml'
# Values a client writes for "parameters_set" to read (the request names
# the object): hidden values never travel through Mistral, which keeps a
# workflow's input. The action removes the object once read; none of it
# is ever part of the plan's tree.
STAGED_PARAMETERS = 'staged-parameters/'
USER_FILES = 'user-files/'
# The record and everything the tooling keeps about the plan: no user file
# may land here.
RECORD_DIR = 'user-environments/'
# What the last render read and produced (path -> MD5): the next render
# removes outputs no longer produced, and has nothing to do when no input
# changed and no output was touched since.
RENDER_MANIFEST = RECORD_DIR + 'rendered.yaml'

# \Z, not $: "$" also matches before a trailing newline.
_PLAN_NAME = re.compile(r'[A-Za-z0-9][A-Za-z0-9-]*\Z')
# Swift's default max_object_name_length (bytes of UTF-8).
MAX_PATH_BYTES = 1024
# Control characters (newline, tab, NUL, DEL...): no tool shows or quotes
# them reliably, and a newline splits a line-based listing.
_CONTROL = re.compile(r'[\x00-\x1f\x7f]')
# Content names: a tree's base and a kept copy are named by an MD5.
_MD5 = re.compile(r'[0-9a-f]{32}\Z')
# The only names requested under RECORD_DIR: those the record's own writer
# (record.writer, for record.log and plan.tree) gives its objects.
_RECORD_NAME = re.compile(re.escape(RECORD_DIR) + (
    r'(environments\.yaml|rendered\.yaml'
    r'|log/\d{8}T\d{12}Z-[0-9a-f]{12}\.yaml'
    r'|outcomes/[A-Za-z0-9_-]{1,64}(\.partial)?\.yaml'
    # a post hook's validation run (record.hook_runs)
    r'|validations/[0-9a-f]{12}/[A-Za-z0-9_-]{1,64}(\.partial)?\.yaml'
    r'|trees/[0-9a-f]{32}\.json|kept/[0-9a-f]{32}'
    # a stack step's configuration (record.configs)
    r'|config/[0-9a-f]{12}(-[0-9a-f]{16})?\.tar\.gz'
    r'|config/[0-9a-f]{12}/progress/\d{6}\.json)\Z'))
# Rounds of percent-decoding a name is checked through (%252e -> %2e -> .).
_DECODINGS = 4
# Who a plan path comes from: what it may not be, and what to do then.
#   user:      --upload-file, -r/-n/-p, -e, rendered outputs (written by a
#              command): the plan's generated passwords are not theirs;
#   templates: a file of the templates tree (its root plan-environment.yaml
#              is the plan's base, see steps); user-files/ is not its;
#   stored:    an object already in Swift (an export member): any name a
#              naive extractor writes inside its directory.
_REMEDY = {
    'user': 'Give another plan path. Nothing was changed.',
    'templates': 'Remove or rename it in the templates tree and run the '
                 'command again. Nothing was changed.',
    'stored': 'Rename or delete that object in Swift and run the command '
              'again.',
}


def is_plan(headers):
    """True when container headers mark a plan container."""
    return (headers or {}).get(PLAN_META, '').lower() == PLAN_META_VALUE


def check_name(plan):
    if not isinstance(plan, str) or not _PLAN_NAME.match(plan) \
            or len(plan) > 255:
        raise exceptions.CommandError(
            'Plan name %r is not valid: use letters, digits and dashes, '
            'starting with a letter or digit (it also names the Heat stack).'
            % plan)
    return plan


def _shape(path):
    """Why ``path`` is not a plain relative path, or None."""
    if not isinstance(path, str):
        return 'it is not a string'
    if not path:
        return 'it is empty'
    try:
        size = len(path.encode('utf-8'))
    except UnicodeEncodeError:
        return 'it is not valid UTF-8'
    if size > MAX_PATH_BYTES:
        return 'it is longer than Swift\'s %d bytes' % MAX_PATH_BYTES
    if _CONTROL.search(path):
        return 'it holds a control character (newline, tab, NUL...)'
    if '\\' in path:
        return 'it holds a backslash (a separator to some tools)'
    if path.startswith('/'):
        return 'it starts with "/"'
    if path.endswith('/'):
        return 'it ends with "/"'
    parts = path.split('/')
    if '' in parts:
        return 'it has an empty component ("//")'
    if '.' in parts or '..' in parts:
        return 'it has a "." or ".." component'
    # requests and urllib3 resolve dot segments in a URL, and a server or
    # proxy may decode %2e or %2f before it resolves them: a name that
    # decodes to one would address an object outside the plan.
    decoded = path
    for _ in range(_DECODINGS):
        decoded, before = parse.unquote(decoded), decoded
        if decoded == before:
            break
        if decoded.startswith('/') or {'', '.', '..'} & set(
                decoded.split('/')):
            return 'it has a percent-encoded "/", "." or ".." component'
    return None


def is_md5(value):
    """True for an MD5 as Swift and content.md5 write it (32 lowercase
    hex digits): the only thing a content name may hold."""
    return isinstance(value, str) and bool(_MD5.match(value))


def name_problem(name, record=True):
    """Why no request may name object ``name``, or None: the one rule
    for every object name sent to Swift (``plan.container`` and ``plan.bulk``
    ask it before any request).

    A plain relative path (see path_problem), and under RECORD_DIR only a
    name the record's own writer gives (``record``), or none at all.
    """
    problem = _shape(name)
    if problem:
        return problem
    if name.startswith(RECORD_DIR) and not (
            record and _RECORD_NAME.match(name)):
        return ('it is under %s, which holds the plan\'s record' % RECORD_DIR
                if not record else 'it is under %s but is no name the '
                'plan\'s record gives' % RECORD_DIR)
    return None


def unsafe_name(name):
    """Why a stored object's name may not be sent in any request, or
    None (a listing drops such names)."""
    return _shape(name)


def path_problem(path, source='user'):
    """Why ``path`` cannot be a plan path from ``source``, or None.

    The one rule for every plan path: see _REMEDY for the sources.
    """
    problem = _shape(path)
    if problem:
        return 'plan path %r is not a plain relative path: %s.' % (
            path, problem)
    if source == 'stored':
        return None
    if path == RECORD_DIR.rstrip('/') or path.startswith(RECORD_DIR):
        return ('plan path %r is under %s, which holds the plan\'s record.'
                % (path, RECORD_DIR))
    if source == 'user' and path == PLAN_ENVIRONMENT:
        return ('plan path %s holds the plan\'s generated passwords; no '
                'user file or rendered output replaces it.'
                % PLAN_ENVIRONMENT)
    if path == PLAN_PARAMETERS:
        return ('plan path %s holds the values of "overcloud plan '
                'parameters set"; no file replaces it.' % PLAN_PARAMETERS)
    if path.startswith(STAGED_PARAMETERS):
        return ('plan path %r is under %s, which holds values staged for '
                '"parameters set" (removed once read).'
                % (path, STAGED_PARAMETERS))
    if source == 'templates' and path.startswith(USER_FILES):
        return ('plan path %r is under %s, which holds the files given from '
                'outside the templates tree.' % (path, USER_FILES))
    return None


def check_plan_path(path, what, source='user'):
    """``path``, or a CommandError naming ``what`` when it is no plan path
    ``source`` may give (see path_problem)."""
    problem = path_problem(path, source)
    if problem:
        raise exceptions.CommandError('%s: %s %s' % (
            what, problem, _REMEDY[source]))
    return path


def parameter_environments(environments, paths):
    """The environment files whose parameters Heat merges, in order: the
    plan's list, then its parameters set (when ``paths`` holds it)."""
    return list(environments) + (
        [PLAN_PARAMETERS] if PLAN_PARAMETERS in paths else [])


# The templates' environments an update or upgrade adds for its step only.
LIFECYCLE_DIR = 'environments/lifecycle/'


def lifecycle_path(action, stage):
    return '%s%s-%s.yaml' % (LIFECYCLE_DIR, action, stage)


def stack_environments(environments, lifecycle=None):
    """The environment list Heat gets for a stack step: the step's
    lifecycle environment first, as tripleoclient prepends it, so that the
    plan's own files (the operator's ``-e``) override what it sets; one
    the plan's list already holds keeps its place there."""
    if not lifecycle or lifecycle in environments:
        return list(environments)
    return [lifecycle] + list(environments)
