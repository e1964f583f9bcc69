"""Ironic's node capabilities (``properties/capabilities``): ``key:value``
pairs joined by ``,`` in Ironic, a mapping or that text in TripleO's
node file."""

import re

KEY = re.compile(r'^[A-Za-z0-9_.-]+$')


def parse(given, bad=None):
    """Ironic's ``k:v,k:v`` text or a mapping, as a dict (insertion
    order kept); ``bad`` told of what is wrong. Without ``bad`` (what
    Ironic holds already), every pair with a key is kept as it is."""
    found = {}
    if given is None or given == '':
        return found
    if isinstance(given, dict):
        pairs = list(given.items())
    elif isinstance(given, str):
        pairs = [item.partition(':')[::2] + (item,)
                 for item in given.split(',')]
    else:
        pairs = None
    if pairs is None:
        bad('capabilities must be "key:value,key:value" text or a mapping')
        return found
    for pair in pairs:
        key, value = pair[0], pair[1]
        if isinstance(value, bool):
            value = str(value).lower()
        if bad is None and key:
            found[str(key)] = str(value)
            continue
        if not isinstance(key, str) or not KEY.match(key) or \
                not isinstance(value, (str, int, float)) or \
                value == '' or (isinstance(value, str) and
                                (',' in value or ':' in value)):
            if bad is not None:
                bad('capabilities: %r is not key:value (a name, then a '
                    'value without "," or ":")' % (
                        pair[2] if len(pair) > 2 else '%s: %s' % (key, value)
                    ))
            continue
        found[key] = str(value)
    return found


def text(caps):
    """A mapping as Ironic keeps it: ``key:value,...`` in its order."""
    return ','.join('%s:%s' % kv for kv in caps.items())


def of_node(node):
    """A node's capabilities (Ironic's ``properties/capabilities``) as a
    dict."""
    return parse((node.get('properties') or {}).get('capabilities'))
