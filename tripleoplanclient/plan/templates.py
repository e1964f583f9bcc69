"""A templates tree (a tripleo-heat-templates release), and moving a plan
to another one.

``--templates DIR`` on a plan that exists syncs its tree to DIR: new and
changed files are written, files of the old release that DIR lacks are
deleted (user files, the plan's own plan-environment.yaml and what the
last render produced stay: the render that follows decides about its
outputs), and the step records which release it moved to.
"""

import hashlib
import re

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol

# Either is the top of a templates tree: the jinja source or its output.
_TOPS = (layout.TEMPLATE, layout.TEMPLATE[:-len('.yaml')] + '.j2.yaml')
_VERSION = re.compile(br'^Version:[ \t]*(\S+)[ \t]*\r?$', re.M)
_CFG_VERSION = re.compile(br'^version[ \t]*=[ \t]*(\S+)[ \t]*\r?$', re.M)
# What node provision writes into a plan (its default paths): the plan's
# own, not the templates', so a move to another release keeps them.
_NODE_FILES = (protocol.PROVISION_ENVIRONMENT, protocol.PROVISION_LOGIN)


def check_tree(files):
    """Refuse a ``--templates`` that is not the top of a templates tree."""
    if not any(top in files.objects for top in _TOPS):
        raise exceptions.CommandError(
            '--templates %s is not a templates tree: it holds neither %s. '
            'Give the top directory of the tripleo-heat-templates release. '
            'Nothing was changed.' % (files.templates, ' nor '.join(_TOPS)))


def release(objects):
    """``{'version', 'digest'}`` of a templates tree (``{path: bytes}``).

    The version is what the tree says of itself: an sdist's PKG-INFO, else
    ``version =`` in setup.cfg (None when neither says). The digest names
    the exact content, whatever the version says.
    """
    return release_of({p: content.md5(d) for p, d in objects.items()},
                      lambda path: objects.get(path))


def release_of(md5s, read):
    """``release`` of a tree known by its MD5s (``{path: MD5}``); ``read``
    gives the bytes of a path of it."""
    digest = hashlib.sha256()
    for path in sorted(md5s):
        digest.update(('%s\0%s\n' % (path, md5s[path])).encode('utf-8'))
    found = None
    for path, pattern in (('PKG-INFO', _VERSION), ('setup.cfg', _CFG_VERSION)):
        if not found and path in md5s:
            found = pattern.search(read(path) or b'')
    return {'version': found.group(1).decode('utf-8', 'replace')[:64]
            if found else None, 'digest': digest.hexdigest()}


def name(release_info):
    """How a release is shown: its version, else its digest's start."""
    if not release_info:
        return None
    return release_info.get('version') or (
        'digest %s' % (release_info.get('digest') or '?')[:12])


def removed(stored, files, state, rendered):
    """Plan paths of the old tree that the new one (``files``) lacks.

    ``stored``: the plan's tree now (``{path: md5}``); ``rendered``: the
    outputs of the last render (they are the render's to remove). What
    the new tree's jinja sources render stays for the render to rewrite.
    """
    keep = set(files.objects) | set(state['files']) | set(rendered)
    keep.update((layout.PLAN_ENVIRONMENT, layout.PLAN_PARAMETERS)
                + _NODE_FILES)
    return sorted(p for p in stored if p not in keep
                  and not p.startswith(layout.USER_FILES)
                  and not files.provides(p))


def check_environments(plan, environments, files, state):
    """Refuse when a recorded environment is gone from the new tree.

    Found before anything is written; each missing path is named with the
    ways out.
    """
    missing = [e for e in environments
               if not e.startswith(layout.USER_FILES) and e not in _NODE_FILES
               and e not in state['files'] and not files.provides(e)]
    if missing:
        raise exceptions.CommandError(
            'Plan %s uses environment file(s) that --templates %s does not '
            'have:\n%s\nDrop each with --remove-environment PATH, or give '
            'its replacement with -e as well. Nothing was changed.' % (
                plan, files.templates,
                '\n'.join('  %s' % e for e in missing)))
