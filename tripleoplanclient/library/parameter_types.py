"""Heat's parameter types as heat/engine/parameters.py and constraints.py
have them: their names and constraint keys, the mask Heat shows for a
hidden value, how Heat reads a value of each type and which values the
constraints refuse.

parameter_declarations reads Heat's validation in these words,
parameter_values checks an operator's values by them. Only the standard
library.
"""

import json
import math
import numbers
import re

# What Heat shows for a hidden parameter (heat/engine/parameters.py:307-308).
MASK = '******'
TYPES = (STRING, NUMBER, LIST, JSON, BOOLEAN) = (
    'String', 'Number', 'CommaDelimitedList', 'Json', 'Boolean')
# The constraint keys of a validated parameter (heat/rpc/api.py:130-143).
CONSTRAINTS = ('AllowedValues', 'AllowedPattern', 'MinLength', 'MaxLength',
               'MinValue', 'MaxValue', 'Step', 'Offset', 'CustomConstraint',
               'ConstraintDescription')
# oslo.utils strutils.TRUE_STRINGS / FALSE_STRINGS, as Heat's Boolean reads
# them (heat/engine/parameters.py:342-347).
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')


def is_hidden(p):
    """True when Heat's validation shows parameter ``p`` hidden."""
    return str(p.get('NoEcho', 'false')).lower() == 'true'


def _kind(value):
    if isinstance(value, dict):
        return 'a mapping'
    if isinstance(value, list):
        return 'a list'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, numbers.Number):
        return 'a number'
    if isinstance(value, str):
        return 'text'
    return 'a %s' % type(value).__name__


def _to_number(value):
    """Heat's Schema.str_to_num (heat/engine/constraints.py:172-180): a
    number as it is (a boolean too), else int(), else float()."""
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def _to_boolean(value):
    """oslo.utils' bool_from_string(strict=True), as Heat's Boolean uses
    it: a boolean as it is, anything else by its text."""
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError('not a boolean')


def _typed(kind, value):
    """``(value as stored, value the constraints see, problem or None)``
    for one declared type, as heat/engine/parameters.py reads a value; a
    problem is a phrase that follows the value."""
    if kind == NUMBER:
        # NumberParam._validate: str_to_num, TypeError or ValueError refuse
        # (parameters.py:326-331); '3', ' 3 ', '1e3', '1_000' are numbers.
        if isinstance(value, (str, numbers.Number)):
            try:
                number = _to_number(value)
            except (TypeError, ValueError):
                pass
            else:
                if isinstance(number, bool):
                    number = int(number)
                if isinstance(number, float) and not math.isfinite(number):
                    # nan/inf: Heat takes them; JSON has no such number.
                    return str(number), number, None
                return number, number, None
        return value, None, 'is not a number (%s)' % _kind(value)
    if kind == BOOLEAN:
        # BooleanParam._validate (parameters.py:342-347).
        try:
            flag = _to_boolean(value)
        except ValueError:
            return value, None, (
                'is not a boolean (true/false, yes/no, on/off, 1/0, t/f, '
                'y/n in any case)')
        return flag, flag, None
    if kind == LIST:
        # CommaDelimitedListParam.parse (parameters.py:399-408): a list's
        # items as text, a string split at every comma ('' is []);
        # anything else has no split() and is refused.
        if isinstance(value, list):
            if any(isinstance(item, (dict, list)) for item in value):
                # Heat would keep str() of the item (Python's repr).
                return value, None, (
                    'holds a list or a mapping; a comma-delimited list '
                    'holds strings')
            items = [str(item) for item in value]
            return items, items, None
        if isinstance(value, str):
            items = value.split(',') if value != '' else []
            return items, items, None
        return value, None, (
            'is not a comma-delimited string or a list (%s)' % _kind(value))
    if kind == JSON:
        # JsonParam.parse (parameters.py:444-455): text is parsed as JSON
        # ('' stays ''), anything else must survive a JSON round trip.
        if isinstance(value, str):
            if value == '':
                return value, value, None
            try:
                parsed = json.loads(value)
            except ValueError:
                return value, None, (
                    'is not JSON text (give a mapping or a list as YAML, '
                    'or valid JSON)')
            return parsed, parsed, None
        try:
            parsed = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            return value, None, 'holds a value JSON cannot carry'
        return parsed, parsed, None
    # String: StringParam.value is str(value) (parameters.py:365-366,
    # constraints.py:196-197).
    if isinstance(value, (dict, list)):
        # Heat would keep Python's repr of it: never what was meant.
        return value, None, 'is %s, not a string (quote it)' % _kind(value)
    text = value if isinstance(value, str) else str(value)
    return text, text, None


def _constraint_problems(kind, value, constraints, hidden):
    """What Heat's constraints (heat/engine/constraints.py) refuse in
    ``value`` (as the type made it), each a phrase. Only the constraints
    valid for the type count (Heat refuses a template with others)."""
    found = []
    c = constraints
    if kind == NUMBER:
        # Range._is_valid (constraints.py:378-389).
        low, high = c.get('MinValue'), c.get('MaxValue')
        if (low is not None and value < low) or (
                high is not None and value > high):
            found.append('is out of range (min: %s, max: %s)' % (
                low, high))
        # Modulo._is_valid (constraints.py:509-515).
        step, offset = c.get('Step'), c.get('Offset')
        if step and offset is not None and value % step != offset:
            found.append('is not a multiple of %s with an offset of %s'
                         % (step, offset))
    if kind in (STRING, LIST, JSON):
        # Length._is_valid: len() of the value (constraints.py:442-443).
        low, high = c.get('MinLength'), c.get('MaxLength')
        if low is not None or high is not None:
            try:
                length = len(value)
            except TypeError:
                found.append('has no length (%s)' % _kind(value))
            else:
                if (low is not None and length < low) or (
                        high is not None and length > high):
                    found.append(
                        'has a length out of range (%smin: %s, max: %s)' % (
                            '' if hidden else '%d; ' % length, low, high))
    if 'AllowedValues' in c and kind in (STRING, NUMBER, BOOLEAN, LIST):
        allowed = c['AllowedValues']
        if kind == LIST:
            # Each item among the allowed values, as given
            # (constraints.py:562-563).
            ok = all(item in allowed for item in value)
        else:
            # Both sides in the type (constraints.py:565-567).
            convert = {NUMBER: _to_number, BOOLEAN: _to_boolean,
                       STRING: str}[kind]
            try:
                ok = value in [convert(v) for v in allowed]
            except (TypeError, ValueError):
                ok = False
        if not ok:
            found.append('is not an allowed value %s' % json.dumps(
                allowed, default=str))
    if 'AllowedPattern' in c and kind == STRING:
        # AllowedPattern._is_valid: re.match must end at the end of the
        # value (constraints.py:603-605), not re.fullmatch: with 'a|ab',
        # 'ab' is refused.
        match = re.match(c['AllowedPattern'], value)
        if match is None or match.end() != len(value):
            found.append('does not match pattern %s' % json.dumps(
                c['AllowedPattern']))
    return found


def problems(declaration, value, hidden):
    """``(value as stored, [phrases])`` for one declaration (``type``,
    ``constraints``) of a parameter, each phrase following the value; a
    constraint's phrase ends with the template's ConstraintDescription,
    which Heat shows for it (constraints.py:299-305)."""
    kind = declaration['type']
    stored, seen, problem = _typed(kind, value)
    if problem is not None:
        return stored, [problem]
    constraints = declaration.get('constraints') or {}
    note = str(constraints.get('ConstraintDescription') or '').strip()
    return stored, ['%s (%s)' % (phrase, note) if note else phrase
                    for phrase in _constraint_problems(kind, seen,
                                                       constraints, hidden)]
