"""What both sources of a plan's capabilities build on: the plan paths a
templates tree holds or renders, an environment's entry in the result,
and the checks and error naming a malformed file of the templates.

capabilities reads capabilities-map.yaml, derived_capabilities derives
from sample-env-generator/ and the files' headers (environment_conflicts
reading the environments): all list environments the same way and refuse
a malformed file in the same words.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import rendering

# The two sources, in the order build() looks for them.
MAP = 'capabilities-map.yaml'
GENERATOR_DIR = 'sample-env-generator/'
# Sources rendered once per role / network (see rendering): their outputs
# are in the plan's paths once rendered, under their own names.
_PER_ITEM_SUFFIXES = (rendering.ROLE_SUFFIX, rendering.NETWORK_SUFFIX)


def malformed(path, problem):
    return exceptions.CommandError(
        'The templates\' %s: %s. Fix it in the templates and run the '
        'command again.' % (path, problem))


def mapping(node, path, where):
    """``node``, or a malformed error: ``where`` in ``path`` is not a
    mapping."""
    if not isinstance(node, dict):
        raise malformed(path, '%s is not a mapping' % where)
    return node


def listed(node, key, path, where):
    """The list ``node[key]`` (absent or null: empty), or a malformed
    error naming it."""
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise malformed(path, '%s of %s is not a list' % (key, where))
    return value


def text(value, default=''):
    """A title or description: text, however the YAML typed it."""
    if value is None:
        return default
    found = str(value).strip()
    return found or default


def rendered(path):
    """The plan path a jinja2 source renders to (``path`` itself if it is
    none)."""
    if path.endswith(rendering.J2_SUFFIX) and not path.endswith(
            _PER_ITEM_SUFFIXES):
        return path[:-len(rendering.J2_SUFFIX)] + '.yaml'
    return path


def provided(paths):
    """Plan paths held or rendered: ``{path: (source, readable)}``.

    ``readable``: the path's own content is in the plan (a rendered
    output, or a plain file); otherwise only its jinja2 source is.
    """
    found = {}
    for path in paths:
        if path.endswith(_PER_ITEM_SUFFIXES):
            continue
        target = rendered(path)
        if target == path:
            found[path] = (path, True)
        elif target not in found:
            found[target] = (path, False)
    return found


def environment(title, description, path, enabled, available=True):
    """An environment's entry in the result (its constraints empty)."""
    return {'file': path, 'title': title or path,
            'description': description, 'enabled': path in enabled,
            'available': available, 'requires': [], 'excludes': [],
            'overlaps': []}
