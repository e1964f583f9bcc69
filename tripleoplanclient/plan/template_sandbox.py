"""The jinja2 sandbox a plan's templates render in.

Templates are the plan author's code, run by a Mistral executor that every
plan shares. On top of jinja2's immutable sandbox (no attribute starting
with ``_``, no function or frame internals):

* the data handed in is immutable; containers a template builds itself are
  not (THT's own templates fill them);
* no ``str.format`` / ``format_map`` however reached (``.format``,
  ``|attr('format')``, a bound method handed around): field names in a
  format string walk attributes, the path of CVE-2025-27516 and of the
  earlier escapes through it, and THT's templates never use it;
* one value built by ``*``, ``**``, ``+`` or a filter that grows strings
  (``replace``, ``center``, ``join``, ``format``, ``wordwrap``,
  ``indent``) may hold at most ``MAX_PRODUCT`` items, checked before it is
  built, and all ``range()`` calls of one render at most ``RANGE_BUDGET``
  items, so the common runaway template gets a precise message. The render
  as a whole is bounded in ``render_process``.
"""

import functools
import re
import types

from jinja2 import sandbox

RANGE_BUDGET = 10 ** 7
MAX_PRODUCT = 16 * 1024 * 1024
_FORMATS = ('format', 'format_map')
# Width and precision of each %-conversion: what a format may add.
_PERCENT = re.compile(r'%(?:\([^)]*\))?[-#0 +]*(\d*)(?:\.(\d*))?')


def _is_str_format(value):
    return (isinstance(value, (types.BuiltinMethodType, types.MethodType))
            and getattr(value, '__name__', None) in _FORMATS
            and isinstance(getattr(value, '__self__', None), str))


def _int(value, default=0):
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _replace_size(s, old, new, count=None):
    s, old, new = str(s), str(old), str(new)
    times = s.count(old) if old else len(s) + 1
    if count is not None and _int(count, -1) >= 0:
        times = min(times, _int(count))
    return len(s) + times * (len(new) - len(old))


def _center_size(value, width=80):
    return max(len(str(value)), _int(width))


def _join_size(items, d='', attribute=None):
    # Items given as str count; others are small once converted, or the
    # render's memory bound stops them.
    return (sum(len(i) for i in items if isinstance(i, str))
            + len(str(d)) * max(len(items) - 1, 0))


def _format_size(value, *args, **kwargs):
    text = str(value)
    widths = sum(_int(n) for pair in _PERCENT.findall(text) for n in pair)
    return len(text) + widths + sum(
        len(str(a)) for a in list(args) + list(kwargs.values()))


def _wordwrap_size(s, width=79, break_long_words=True, wrapstring=None,
                   break_on_hyphens=True):
    s = str(s)
    lines = len(s) // max(_int(width, 1), 1) + s.count('\n') + 1
    return len(s) + lines * len(str(wrapstring or '\n'))


def _indent_size(s, width=4, first=False, blank=False):
    s = str(s)
    step = len(width) if isinstance(width, str) else _int(width)
    return len(s) + (s.count('\n') + 2) * (step + 1)


# filter -> the size of what it would build, from its own arguments
_GROWING = {'replace': _replace_size, 'center': _center_size,
            'join': _join_size, 'format': _format_size,
            'wordwrap': _wordwrap_size, 'indent': _indent_size}


def _bounded(name, func, size):
    """``func`` (a jinja2 filter) refusing, before it runs, a result of
    more than MAX_PRODUCT items."""
    skip = 1 if getattr(func, 'jinja_pass_arg', None) is not None else 0

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args = list(args)
        if name == 'join' and len(args) > skip:
            # Measured and joined from the same items (a generator runs
            # once).
            args[skip] = list(args[skip])
        if size(*args[skip:], **kwargs) > MAX_PRODUCT:
            raise sandbox.SecurityError(
                'the "%s" filter would build more than %d characters'
                % (name, MAX_PRODUCT))
        return func(*args, **kwargs)
    return wrapper


class PlanEnvironment(sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox, where only the data handed in is immutable:
    THT's own templates fill containers they built themselves
    (``_service_nets.update(...)``, ``_role_networks.append(...)``).
    ``frozen``: the ids of every container of that data, alive for the
    whole render."""

    intercepted_binops = frozenset(['*', '**', '+'])

    def __init__(self, frozen, **kwargs):
        super().__init__(**kwargs)
        self._frozen = frozen
        self._range_left = RANGE_BUDGET
        self.globals['range'] = self._range
        for name, size in _GROWING.items():
            self.filters[name] = _bounded(name, self.filters[name], size)

    def is_safe_attribute(self, obj, attr, value):
        if not sandbox.SandboxedEnvironment.is_safe_attribute(
                self, obj, attr, value):
            return False
        if isinstance(obj, str) and attr in _FORMATS:
            return False
        return (id(obj) not in self._frozen
                or not sandbox.modifies_known_mutable(obj, attr))

    def is_safe_callable(self, obj):
        return not _is_str_format(obj) and super().is_safe_callable(obj)

    def wrap_str_format(self, value):
        # Never a sandboxed str.format either: is_safe_attribute refuses
        # the attribute itself.
        return None

    def _range(self, *args):
        numbers = sandbox.safe_range(*args)
        self._range_left -= len(numbers)
        if self._range_left < 0:
            raise sandbox.SecurityError(
                'range() asked for more than %d items in one render'
                % RANGE_BUDGET)
        return numbers

    def call_binop(self, context, operator, left, right):
        sized = (str, bytes, list, tuple)
        if operator == '*':
            for seq, times in ((left, right), (right, left)):
                if (isinstance(seq, sized) and isinstance(times, int)
                        and len(seq) * times > MAX_PRODUCT):
                    raise sandbox.SecurityError(
                        'a "*" would build more than %d items'
                        % MAX_PRODUCT)
        elif operator == '+':
            if (isinstance(left, sized) and isinstance(right, sized)
                    and len(left) + len(right) > MAX_PRODUCT):
                raise sandbox.SecurityError(
                    'a "+" would build more than %d items' % MAX_PRODUCT)
        elif (isinstance(left, int) and isinstance(right, int)
              and abs(left) > 1 and right > 0
              and left.bit_length() * right > MAX_PRODUCT):
            raise sandbox.SecurityError(
                'a "**" would build a number of more than %d bits'
                % MAX_PRODUCT)
        return super().call_binop(context, operator, left, right)
