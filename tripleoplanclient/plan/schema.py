"""What the record's objects must look like before any code trusts them.

Step objects, the cache, outcome objects and tree snapshots come from
Swift, where anyone with the account can PUT anything. Each is checked
once, where it is parsed, against the shape the rest of the package
reads; a mismatch is ``Damaged`` naming the field, never a KeyError or a
TypeError three modules away.

A spec is a type (``str``, ``int``, ``bool``; ``int`` refuses booleans),
``None``, ``DATA``, ``PATH`` (a plain relative plan path), ``TREE_PATH``
(one outside the record), ``MD5`` (a content name), ``NAME`` (a local
path as its user gave it: ``name_problem``), a tuple of
alternatives, a one-item list (a list of those), ``Map`` or ``Fields``.
"""

from tripleoplanclient.plan import layout

# Plain data: what JSON holds (the cache is JSON, and sorts its keys):
# no dates, sets or binary YAML makes, no mapping keys but strings.
DATA = object()
PATH = object()
# A tree's paths are what a restore writes and deletes, and its base names
# a snapshot object: none may reach the record's own objects. (Its other
# MD5s are only compared; a kept copy is requested only when listed.)
TREE_PATH = object()
MD5 = object()
NAME = object()
# A local path (Linux's PATH_MAX), as a user gave it or a directory.
MAX_NAME_BYTES = 4096
_SCALARS = (str, int, float, bool, type(None))


class Damaged(Exception):
    """The object does not have the shape the record writes."""


class Map:
    """A mapping of any keys ``key`` to values ``value``."""

    def __init__(self, key, value):
        self.key, self.value = key, value


class Fields:
    """A mapping with ``required`` and ``optional`` fields (name -> spec);
    any other field must be ``DATA``."""

    def __init__(self, required, optional=None):
        self.required, self.optional = required, optional or {}


def check(value, spec):
    """``value``, or ``Damaged`` naming the field that does not fit."""
    try:
        _check(value, spec, 'the object')
    except RecursionError:
        # A self-referencing YAML alias, or absurd nesting.
        raise Damaged('it nests too deeply')
    return value


def _check(value, spec, where):
    if spec is DATA:
        if isinstance(value, list):
            spec = [DATA]
        elif isinstance(value, dict):
            spec = Map(str, DATA)
        elif not isinstance(value, _SCALARS):
            raise Damaged('%s holds a %s' % (where, type(value).__name__))
        else:
            return
    if isinstance(spec, tuple):
        for alternative in spec:
            try:
                return _check(value, alternative, where)
            except Damaged:
                pass
        raise Damaged('%s has an unexpected value' % where)
    if spec is None:
        if value is not None:
            raise Damaged('%s should be empty' % where)
    elif spec is PATH or spec is TREE_PATH:
        problem = layout.path_problem(value, 'stored') or (
            spec is TREE_PATH and layout.name_problem(value, record=False))
        if problem:
            raise Damaged('%s: %s' % (where, problem))
    elif spec is NAME:
        problem = name_problem(value)
        if problem:
            raise Damaged('%s: %s' % (where, problem))
    elif spec is MD5:
        if not layout.is_md5(value):
            raise Damaged('%s is not an MD5' % where)
    elif isinstance(spec, list):
        if not isinstance(value, list):
            raise Damaged('%s is not a list' % where)
        for i, item in enumerate(value):
            _check(item, spec[0], '%s[%d]' % (where, i))
    elif isinstance(spec, Map):
        if not isinstance(value, dict):
            raise Damaged('%s is not a mapping' % where)
        for key, item in value.items():
            _check(key, spec.key, '%s key %.60r' % (where, key))
            _check(item, spec.value, '%s[%.60r]' % (where, key))
    elif isinstance(spec, Fields):
        if not isinstance(value, dict):
            raise Damaged('%s is not a mapping' % where)
        for name in spec.required:
            if name not in value:
                raise Damaged('%s has no "%s"' % (where, name))
        for name, item in value.items():
            if not isinstance(name, str):
                raise Damaged('%s has a field name that is not a string'
                              % where)
            sub = spec.required.get(name, spec.optional.get(name, DATA))
            _check(item, sub, '%s.%s' % (where, name))
    elif not isinstance(value, spec) or (
            spec is int and isinstance(value, bool)):
        raise Damaged('%s is not a %s' % (where, spec.__name__))


def name_problem(value):
    """Why ``value`` is no local path a record may show, or None: text
    of at most MAX_NAME_BYTES, no control character (a terminal would
    act on an escape sequence)."""
    if not isinstance(value, str) or not value:
        return 'it is not a non-empty text'
    if len(value.encode('utf-8', 'surrogatepass')) > MAX_NAME_BYTES:
        return 'it is longer than %d bytes' % MAX_NAME_BYTES
    if not value.isprintable():
        return 'it holds a control character'
    return None


TEXT = (str, None)
# machine, tag: where and by whom the source was read (plan.origin);
# name: the source as the user gave it (plan.files.given_name).
FILE = Fields({'md5': str}, {'source': TEXT, 'machine': str, 'tag': str,
                             'name': NAME})
RECORDED_TREE = Fields({'base': (MD5, None),
                        'changes': Map(TREE_PATH, (str, None))})
TREE = (None, RECORDED_TREE)
RELEASE = (None, Fields({}, {'version': TEXT, 'digest': TEXT}))
# Which kept file holds each parameter's value (plan.parameter_file).
_NAMES = Map(str, (MD5, None))
PARAMETER_VALUES = Fields({'file': MD5, 'names': _NAMES, 'stale': bool})
STATE = Fields({'environments': [PATH], 'files': Map(PATH, FILE),
                'inputs': Map(str, PATH), 'templates': TEXT,
                'render': TEXT, 'stack': TEXT, 'created': bool},
               {'tree': TREE, 'read': Map(PATH, FILE), 'release': RELEASE,
                'parameter_values': (None, PARAMETER_VALUES)})
CHANGE = Fields({}, {
    'environments': Fields({}, {'set': [PATH], 'add': [PATH],
                                'remove': [PATH], 'first': [PATH]}),
    'files': Map(PATH, FILE), 'drop_files': [PATH],
    'inputs': Map(str, PATH), 'drop_inputs': [str],
    'tree': Map(TREE_PATH, (str, None)), 'tree_base': (MD5, None),
    'templates': TEXT,
    'release': RELEASE, 'render_state': TEXT,
    'parameter_values': Fields({'base': (MD5, None), 'file': MD5,
                                'names': _NAMES}, {'imported': [str]})})
OUTCOME = Fields({'status': str})
STACK = Fields({}, {'environments': [PATH]})
RENDER = Fields({}, {'state': TEXT})
# Every reader shows a row's time and user (None: a version 1 record's
# row that had none).
ROW = Fields({'id': str, 'step': int, 'action': str, 'outcome': OUTCOME,
              'environments': [PATH], 'time': TEXT, 'user': TEXT},
             {'project': str,
              'stack': (None, STACK),
              'render': (None, RENDER), 'lifecycle': (None, PATH),
              # its environments' given names, its step's directory
              'names': Map(PATH, NAME), 'directory': NAME})
STEP = Fields({'version': int, 'id': str, 'action': str, 'change': CHANGE,
               'outcome': OUTCOME, 'seen': int, 'state': STATE, 'time': str,
               'user': str},
              {'project': str, 'base': TEXT,
               # where the step's command ran: its relative names' base
               'directory': NAME,
               'render': (None, RENDER), 'stack': (None, STACK),
               'imported': [ROW], 'lifecycle': (None, PATH)})
# The cache before its rows' environment lists are looked up in "paths".
CACHE = Fields({'version': int}, {
    'state': (None, STATE), 'through': TEXT, 'imported': [ROW],
    'paths': [PATH], 'history': [Fields({'environments': DATA},
                                        {'stack': (None, Fields({}))})]})
# A version 1 record, as the first tripleoplanclient wrote it.
V1_ROW = Fields({'action': str}, {
    'id': (str, int), 'outcome': OUTCOME, 'render': (None, RENDER),
    'stack': (None, STACK), 'environments': [PATH],
    'lifecycle': (None, PATH)})
V1 = Fields({'version': int}, {
    'templates': TEXT, 'environments': [PATH], 'files': Map(PATH, FILE),
    'inputs': Map(str, PATH), 'history': [V1_ROW]})
OUTCOME_OBJECT = Fields({}, {'outcome': (None, Fields({}, {'status': str})),
                             'stack': (None, Fields({}))})
SNAPSHOT = Map(TREE_PATH, str)
