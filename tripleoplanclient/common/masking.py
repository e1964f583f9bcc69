"""Secrets out of a command line before it is recorded, and out of the
parameters and file lines a command shows.

An option's value is masked by what the parsers that read the command line
resolve the option to, as argparse does (exact name, ``--name=value``, an
unambiguous prefix, ``-xVALUE``, ``-abx VALUE``), not by how it was typed:
``--os-passw X`` is ``--os-password X``. Whatever cannot be resolved is
judged by its name and masked when in doubt. User-info of any URL
(``https://user:pw@host``) is masked wherever it appears.

A parameter or configuration key is judged by the same words, split at
CamelCase too (``AdminPassword``, ``nova::api::admin_password``); a line
of a file that sets such a key shows ``***`` for its value and for the
block nested under it (``secret_key``, ``mask_lines``).

Only the standard library: the OSC command base imports this module.
"""

import re

MASK = '***'
ALL = 'all'

# Words that make an option (its dest or one of its names) secret ...
_SECRET_WORDS = frozenset([
    'password', 'passwords', 'passwd', 'passcode', 'passphrase', 'pass',
    'pw', 'pwd', 'secret', 'secrets', 'token', 'tokens', 'key', 'keys',
    'code', 'otp', 'pin', 'credential', 'credentials'])
# ... unless its last word says it names or locates one (--os-auth-url,
# --os-access-token-type, --key-name, --os-code-challenge-method).
_DESCRIPTORS = frozenset([
    'id', 'name', 'type', 'url', 'uri', 'endpoint', 'method', 'file', 'path',
    'dir', 'version'])
_WORD = re.compile(r'[a-z0-9]+')
# OSC's secret global options (every keystoneauth plugin's options marked
# secret, as its parser spells them; a test holds this to OSC's parser):
# without the parsers, any prefix of one of these is an abbreviation
# argparse may resolve to it (``--os-passw``, ``--os-tok``).
SECRET_OPTIONS = (
    '--os-access-token', '--os-application-credential-secret',
    '--os-client-secret', '--os-code', '--os-idp-otp-key', '--os-key',
    '--os-oauth2-client-secret', '--os-passcode', '--os-password',
    '--os-token')
# From the first scheme to the last '@' of an argument: every user-info in
# it, however many URLs or '@' it holds (over-masking beats a leak).
_USERINFO = re.compile(r'([A-Za-z][A-Za-z0-9+.-]*://).*@', re.DOTALL)
# The words of a key written in any case: ``SSLKey`` is SSL, Key;
# ``KeystoneFernetKey0`` is Keystone, Fernet, Key, 0.
_PARTS = re.compile(r'[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+')
# A line that sets a key: YAML (``key: value``, ``- key: value``, quoted
# keys, ``nova::db::password: x``), JSON (``"key": value``), ini and shell
# (``key = value``, ``export KEY=value``), commented out or not.
_SETTING = re.compile(
    r'^(?P<lead>[ \t]*(?:#+[ \t]*)?(?:-[ \t]+)*(?:export[ \t]+)?)'
    r'(?P<quote>["\']?)(?P<key>[^\s"\'#=:][^"\'#=]*?)(?P=quote)'
    r'(?P<sep>[ \t]*(?::(?=\s|$)|=)[ \t]*)(?P<value>.*)$')


def secret_name(name):
    """True when an option name or dest (``--os-password``,
    ``application_credential_secret``) holds a secret by its words."""
    words = _WORD.findall(str(name).lower())
    return bool(words) and words[-1] not in _DESCRIPTORS and any(
        w in _SECRET_WORDS for w in words)


def secret_option(name):
    """True when a long option, read by parsers this code does not have,
    may be a secret one: its name says so (``secret_name``), it is a
    prefix of one of OSC's secret options (``SECRET_OPTIONS``), or its
    last word may be a secret word cut short (``--my-api-ke``): argparse
    takes any unambiguous prefix of an option. Over-masking beats a
    leak."""
    name = str(name)
    if secret_name(name):
        return True
    if not name.startswith('--') or len(name) < 3:
        return False
    folded = name.replace('_', '-')
    if any(o.startswith(folded) for o in SECRET_OPTIONS):
        return True
    words = _WORD.findall(name.lower())
    return bool(words) and words[-1] not in _DESCRIPTORS and any(
        w.startswith(words[-1]) for w in _SECRET_WORDS)


def secret_key(name):
    """True when a parameter or configuration key (``AdminPassword``,
    ``KeystoneFernetKey0``, ``passwords``, ``nova::api::admin_password``)
    holds a secret by its words, as ``secret_name`` judges an option
    (``KeyName`` and ``SSLCertificate`` do not)."""
    return secret_name('_'.join(_PARTS.findall(str(name))))


def _indent(line):
    return len(line) - len(line.lstrip(' \t'))


def mask_lines(lines, secret=secret_key, values=()):
    """Lines of a file (no line ends) as they may be shown.

    A line that sets a key ``secret`` says is secret shows the key and
    ``***`` for its value; every line after it that is indented deeper
    (the mapping or block text nested under it: a ``passwords:`` section,
    a PEM key), or blank, shows ``***`` after its indentation. Every
    occurrence of ``values`` (known secret strings) is masked wherever it
    appears, and so is the user-info of any URL.
    """
    scrub = None
    values = sorted({v for v in values if v}, key=len, reverse=True)
    if values:
        scrub = re.compile('|'.join(re.escape(v) for v in values))
    out = []
    block = None        # indentation of the secret key whose block this is
    for line in lines:
        if block is not None:
            depth = _indent(line)
            if not line.strip():
                out.append(line)
                continue
            if depth > block[0] or (depth == block[0] and block[1] and
                                    line.lstrip().startswith('- ')):
                out.append(line[:depth] + MASK)
                continue
            block = None
        match = _SETTING.match(line)
        if match and secret(match.group('key')):
            value = match.group('value')
            end = match.start('value')
            line = line[:end] + (MASK if value.strip() else value)
            # Only an empty value takes an indentless list as its own.
            block = (len(match.group('lead')), not value.strip())
        if scrub is not None:
            line = scrub.sub(MASK, line)
        out.append(mask_urls(line))
    return out


def scrub(text, values):
    """``text`` with every known secret of ``values`` masked: wherever
    it appears when it is 4 characters or longer, else only where it
    stands quoted or in brackets (shorter ones would mask words)."""
    for value in sorted({v for v in values if v}, key=len, reverse=True):
        if len(value) >= 4:
            text = text.replace(value, MASK)
            continue
        for left, right in (('"', '"'), ("'", "'"), ('(', ')'),
                            ('[', ']')):
            text = text.replace(left + value + right, left + MASK + right)
    return text


def _secret_action(action):
    return action.nargs != 0 and (
        secret_name(action.dest) or any(
            secret_name(o) for o in action.option_strings))


def mask_urls(text):
    """``text`` with the user-info of every URL in it masked."""
    return _USERINFO.sub(r'\1' + MASK + '@', text)


def _matches(parser, arg):
    """``[(action, attached value or None)]`` argparse could read ``arg``
    as in ``parser``: one, none, or several when it is ambiguous."""
    table = parser._option_string_actions
    if arg in table:
        return [(table[arg], None)]
    name, sep, value = arg.partition('=')
    if sep and name in table:
        return [(table[name], value)]
    if arg[1] in parser.prefix_chars:        # --long, maybe abbreviated
        if not parser.allow_abbrev:
            return []
        return [(table[o], value if sep else None) for o in table
                if o.startswith(name)]
    # -xVALUE, or an abbreviation of a single-dash option
    return [(table[o], arg[2:]) if o == arg[:2] else (table[o], None)
            for o in table if o == arg[:2] or o.startswith(arg)]


def _values(action):
    """How many arguments after the option argparse gives ``action``:
    a number, ``ALL`` (the rest) or ``None`` (up to the next option)."""
    if action.nargs is None or action.nargs == '?':
        return 1
    if isinstance(action.nargs, int):
        return action.nargs
    return ALL if action.nargs in ('...', 'A...') else None


def _resolve(parsers, arg):
    """``(secret, values, attached value or None, rest of a short flag
    cluster or None)`` of an option argument (``values``: see _values)."""
    for parser in parsers:
        if arg[0] not in parser.prefix_chars:
            continue
        found = _matches(parser, arg)
        if len(found) == 1:
            action, attached = found[0]
            if action.nargs == 0 and attached and \
                    arg[1] not in parser.prefix_chars:
                # -vpX: -v takes nothing, so argparse reads -pX next.
                return False, 0, None, arg[0] + attached
            return _secret_action(action), _values(action), attached, None
        if found:
            # Ambiguous: argparse refuses it, but never leak.
            return (any(_secret_action(a) for a, _ in found), 1,
                    arg.partition('=')[2] if '=' in arg else None, None)
        # argparse hands what the first parser (OSC's global options, read
        # with parse_known_args) does not know to the next one.
    # Known to no parser (or none given): judge it by its name, and by the
    # secret options it could abbreviate.
    name, sep, value = arg.partition('=')
    secret = secret_option(name) or any(
        o.startswith(name) and _secret_action(a)
        for p in parsers for o, a in p._option_string_actions.items())
    return secret, 1, value if sep else None, None


def mask_argv(argv, parsers=()):
    """``argv`` (strings) with every secret value masked, as a new list.

    ``parsers``: the argparse parsers that read ``argv``, in the order they
    read it (OSC: the app's global options, then the command's).
    """
    chars = set('-').union(*(p.prefix_chars for p in parsers))
    out = []
    hide = 0            # arguments still to mask: a number, ALL or None
    for arg in argv:
        option = len(arg) > 1 and arg[0] in chars and arg != '--'
        masked = hide == ALL or (hide is None and not option) or (
            isinstance(hide, int) and hide > 0)
        if masked and isinstance(hide, int):
            hide -= 1
        elif not masked:
            hide = 0
        if not option:
            out.append(MASK if masked else mask_urls(arg))
            continue
        # Even as a secret's value, argparse reads an option-like argument
        # as an option: so does this.
        typed, cluster = arg, arg
        while cluster is not None:
            secret, values, attached, cluster = _resolve(parsers, cluster)
        if secret and attached is not None:
            typed = typed[:len(typed) - len(attached)] + MASK
        elif secret:
            hide = values
        out.append(MASK if masked else mask_urls(typed))
    return out
