"""Values an operator gives a plan's parameters: read from the command
line (``parse_assignments``) or a file (``parse_file``), then checked as
Heat checks them (``check``) against a parameters.schema, every problem
listed, so that nothing Heat would refuse is ever stored.

Pure: no network, only the standard library and this package's own
modules; run inside Mistral as well as on the client.
"""

import json

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.common import suggestions
from tripleoplanclient.library import parameter_types as types
from tripleoplanclient.library import parameters
from tripleoplanclient.plan import heat_environment

# The only sections a parameters file may hold besides parameter names.
_FILE_SECTIONS = ('parameter_defaults', 'parameters')
# YAML's spellings of null: a value given as one of them is None.
_NULLS = ('', '~', 'null', 'Null', 'NULL')
_SHOWN = 80                 # characters of a value an error message quotes


# --- checking values as Heat will ---------------------------------------


def undeclared(schema, values):
    """The names ``values`` sets that no template of the plan declares
    (Heat ignores them: a typo, or a parameter of a release left behind),
    sorted."""
    return sorted(set(values or ()) - set(schema['parameters']))


def _show(value, hidden):
    if hidden:
        return types.MASK
    text = json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + '...'


def _suggestion(name, names):
    close = suggestions.close_matches(name, names, n=1)
    return '; did you mean %s?' % close[0] if close else ''


def check(schema, values):
    """``values`` ({name: value}) as the plan will store them, each
    checked as Heat checks a parameter value: raises a CommandError
    listing every problem, each naming its parameter (a hidden one's value
    never shown), when any value is refused.

    Refused: a name no template declares (with the closest declared
    name); a value of the wrong type; a value outside ``AllowedValues``,
    the ``MinValue``/``MaxValue`` range, the ``MinLength``/``MaxLength``
    length (of a string, a list's items, a JSON value), ``AllowedPattern``
    (matched from the start and ending at the end, as Heat's re.match
    check) or the ``Step``/``Offset`` modulo. A name declared
    differently by several templates is held to each declaration.

    Types, as heat/engine/parameters.py reads values (the stored value is
    what Heat's type makes of it):

    * Number: a number, or text int() or else float() reads (``'3'``,
      ``'1e3'``); a boolean is a number to Heat (stored 1 or 0); nan and
      inf are kept as text.
    * Boolean: true/false, or text (or a number) that reads as
      t/true/on/y/yes/1 or f/false/off/n/no/0 in any case.
    * CommaDelimitedList: a list (items stored as text) or a string split
      at each comma (``''`` is ``[]``).
    * Json: a mapping or a list (or any JSON value), or JSON text.
    * String: text; a number, boolean or date becomes its text, as Heat's
      str() makes it.

    Two refusals where Heat would store Python's repr of a collection: a
    list or mapping for a String, and a list or mapping as an item of a
    CommaDelimitedList.

    None is passed through (no value: the template's default applies).
    ``CustomConstraint`` (``nova.flavor``, ``neutron.network``...) asks
    the cloud and is not checked here.
    """
    params = schema['parameters']
    out = {}
    problems = []
    for name in sorted(values):
        value = values[name]
        entry = params.get(name)
        if entry is None:
            problems.append('%s: no template of the plan declares it%s' % (
                name, _suggestion(name, list(params))))
            continue
        if value is None:
            out[name] = None
            continue
        hidden = entry.get('hidden', False)
        stored, found = types.problems(entry, value, hidden)
        if not found:
            for variant in entry.get('variants', ()):
                _, other = types.problems(variant, stored, hidden)
                declared = ', '.join(parameters.template_paths(
                    schema, variant['templates']))
                found.extend('%s (as declared in %s)' % (phrase, declared)
                             for phrase in other)
        if found:
            problems.extend('%s (%s): %s %s' % (
                name, entry['type'], _show(value, hidden), phrase)
                for phrase in found)
        else:
            out[name] = stored
    if problems:
        raise exceptions.CommandError(
            'Nothing was set: %d problem%s with the parameters given:\n  %s'
            % (len(problems), '' if len(problems) == 1 else 's',
               '\n  '.join(problems)))
    return out


# --- reading the values a command is given -------------------------------


def _load_value(name, text):
    refused = exceptions.CommandError(
        'The value given for %s is not valid YAML; quote it as a YAML '
        'string (%s=\'"..."\') or fix it.' % (name, name))
    try:
        value = content.load_yaml(text.encode('utf-8'), name, quote=False)
    except (exceptions.CommandError, UnicodeEncodeError):
        raise refused
    if value is None and text.strip() not in _NULLS:
        # Only a comment ('#...'): not what anyone means by a value.
        raise refused
    return value


def parse_assignments(assignments, schema=None):
    """``['Name=value', ...]`` as ``{name: value}``, each value read as
    YAML (a scalar or a flow collection): ``Count=3`` is 3, ``Flag=true``
    True, ``List=[a,b]`` a list, ``Map={a: 1}`` a mapping, ``Text="3"``
    the string '3', an empty value (or ``null``, ``~``) None: no value,
    the template's default applies.

    With ``schema``, a String parameter keeps the text as typed where YAML
    would read a number, a boolean or a date (``ImageTag=16.10`` stays
    '16.10', not 16.1; ``Mode=0755`` not 493; ``Answer=yes`` not True), as
    Heat's own ``--parameter NAME=VALUE`` does.

    A malformed assignment (no '=', no name, a name given twice): a
    CommandError naming it by its place (and its text unless it looks like
    a secret).
    """
    params = (schema or {}).get('parameters') or {}
    out = {}
    for place, item in enumerate(assignments, 1):
        name, sep, text = item.partition('=')
        if not sep or not name or name != name.strip():
            # Its value may be a hidden parameter's (its name mistyped).
            shown = name + sep + masking.MASK if sep else \
                masking.MASK if masking.secret_key(item) else item
            raise exceptions.CommandError(
                'Parameter assignment %d (%r) is not NAME=VALUE; give each '
                'parameter as NAME=VALUE, the value as YAML.' % (
                    place, shown))
        if name in out:
            raise exceptions.CommandError(
                'Parameter %s is given twice (assignment %d); give it once.'
                % (name, place))
        value = _load_value(name, text)
        entry = params.get(name)
        if entry is not None and entry['type'] == types.STRING and \
                value is not None and not isinstance(
                    value, (str, dict, list)):
            value = text.strip()
        out[name] = value
    return out


def parse_file(data, name):
    """The parameters of a YAML file (bytes) as ``{name: value}``: a
    mapping of parameter names, or an environment holding only
    ``parameter_defaults`` and/or ``parameters`` (a name in both is
    refused). Any other environment section is refused: such a file is an
    environment (``-e``). Errors name the file, never quote a value."""
    loaded = content.load_yaml(data, name, quote=False)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict) or not all(
            isinstance(k, str) for k in loaded):
        raise exceptions.CommandError(
            '%s is not a mapping of parameter names to values.' % name)
    if not any(k in heat_environment.SECTIONS for k in loaded):
        return dict(loaded)
    others = sorted(k for k in loaded if k not in _FILE_SECTIONS)
    if others:
        raise exceptions.CommandError(
            '%s is an environment file (it has %s); add it to the plan with '
            '-e, or keep only parameter_defaults in it.' % (
                name, ', '.join(others)))
    out = {}
    for section in _FILE_SECTIONS:
        part = loaded.get(section) or {}
        if not isinstance(part, dict):
            raise exceptions.CommandError(
                '%s: %s is not a mapping.' % (name, section))
        for key, value in part.items():
            if key in out:
                raise exceptions.CommandError(
                    '%s sets %s in both parameter_defaults and parameters; '
                    'keep one.' % (name, key))
            out[str(key)] = value
    return out
