"""A validation run as JUnit XML, the report CI systems show
(validations-libs' ``--junitxml``), built by the CLI from the run's
record and each validation's kept result (``results``).

One ``testsuite`` per run (its id), one ``testcase`` per validation
(``classname``) and host (``name``): a ``failure`` for a host whose
tasks failed (``type``: the first failed task), an ``error`` for one
that could not be reached or a validation that ended ERROR or TIMEOUT,
``skipped`` for a validation that did not run (skipped, invalid,
stopped, or after the run ended). The run's plan, group and parameters
(as the record keeps them: masked ones stay masked) are the suite's
``properties``. Every text comes from the playbook or the servers: cut
to a bound, and the characters XML 1.0 cannot hold written as ``\\xNN``.
"""

import json
import re
from xml.etree import ElementTree

from tripleoplanclient.common import masking

# the longest ``message`` attribute, and the longest element text
MESSAGE_LIMIT = 1024
TEXT_LIMIT = 16 * 1024
# a host's, a task's or a property's name
NAME_LIMIT = 255
# the testcase of a validation that reached no host
NO_HOST = 'no host'
# the run record's keys shown as properties, in this order (those it
# lacks are left out)
PROPERTIES = ('plan', 'group', 'names', 'status', 'started', 'ended',
              'limit', 'categories', 'products', 'skiplist')
# a validation with one of these did not run
NOT_RUN = ('SKIPPED', 'INVALID', 'STOPPED', 'PENDING', 'RUNNING')
# what XML 1.0 cannot hold at all
_INVALID = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _text(value, limit):
    """``value`` as text XML can hold, at most ``limit`` characters of it."""
    if value is None:
        return ''
    text = value if isinstance(value, str) else json.dumps(
        value, sort_keys=True)
    if len(text) > limit:
        text = '%s [%d characters cut]' % (text[:limit], len(text) - limit)
    return _INVALID.sub(lambda m: '\\x%02x' % ord(m.group())
                        if ord(m.group()) < 0x100 else
                        '\\u%04x' % ord(m.group()), text)


def _seconds(value):
    return '%.3f' % max(0.0, float(value or 0))


def _properties(run):
    found = [(key, run.get(key)) for key in PROPERTIES]
    extra = run.get('extra_vars')
    if isinstance(extra, dict):
        found += [('extra_vars.%s' % name, masking.MASK
                   if masking.secret_key(name) else value)
                  for name, value in sorted(extra.items())]
    properties = ElementTree.Element('properties')
    for name, value in found:
        if value in (None, [], {}):
            continue
        if isinstance(value, list) and all(isinstance(v, str)
                                           for v in value):
            value = ', '.join(value)
        ElementTree.SubElement(properties, 'property', {
            'name': _text(name, NAME_LIMIT),
            'value': _text(value, MESSAGE_LIMIT)})
    return properties


def _hosts(result):
    hosts = set(result.get('stats') or {})
    hosts.update(f.get('host') for f in result.get('failures') or []
                 if f.get('host'))
    return sorted(hosts) or [NO_HOST]


def _verdict(status, message, host, result):
    """``(element, type, message, text)`` of one host's testcase; element
    None when it passed."""
    if status in NOT_RUN or (status != 'ERROR' and
                             (message or '').startswith('not run:')):
        return 'skipped', status, message or status, None
    failed = [f for f in result.get('failures') or []
              if f.get('host') == host or host == NO_HOST]
    tasks = [f for f in failed if f.get('status') != 'unreachable']
    stats = (result.get('stats') or {}).get(host) or {}
    text = '\n'.join('%s: %s' % (f.get('task'), f.get('msg') or 'failed')
                     for f in failed) or None
    if tasks or stats.get('failures'):
        first = tasks[0] if tasks else {}
        return ('failure', first.get('task') or 'failed',
                first.get('msg') or 'failed', text)
    if len(failed) > len(tasks) or stats.get('unreachable'):
        unreachable = failed[0] if failed else {}
        return ('error', 'unreachable',
                unreachable.get('msg') or 'unreachable', text)
    if status in ('ERROR', 'TIMEOUT'):
        return 'error', status, message or status, text
    return None, None, None, None


def _cases(summary, result):
    """The testcases of one validation."""
    result = result or {}
    status = result.get('status') or summary.get('status')
    message = result.get('message') or summary.get('message')
    duration = _seconds(result.get('duration') or summary.get('duration'))
    for host in _hosts(result):
        case = ElementTree.Element('testcase', {
            'classname': _text(summary['id'], NAME_LIMIT),
            'name': _text(host, NAME_LIMIT), 'time': duration})
        element, kind, said, text = _verdict(status, message, host, result)
        if element is not None:
            found = ElementTree.SubElement(case, element, {
                'type': _text(kind, NAME_LIMIT),
                'message': _text(said, MESSAGE_LIMIT)})
            if text:
                found.text = _text(text, TEXT_LIMIT)
        yield element, case


def build(run):
    """The JUnit XML (bytes) of ``run``: the record as ``validation
    show RUN`` reads it, with ``results`` (each validation's kept
    result, in the record's order; None where none was kept)."""
    kept = {r.get('validation'): r for r in run.get('results') or [] if r}
    suite = ElementTree.Element('testsuite', {'name': _text(
        run.get('run'), NAME_LIMIT)})
    if run.get('started'):
        suite.set('timestamp', _text(run['started'], NAME_LIMIT))
    suite.append(_properties(run))
    counts = {'failure': 0, 'error': 0, 'skipped': 0, None: 0}
    for summary in run.get('validations') or []:
        for element, case in _cases(summary, kept.get(summary['id'])):
            counts[element] += 1
            suite.append(case)
    tests = sum(counts.values())
    time = _seconds(run.get('duration') or sum(
        v.get('duration') or 0 for v in run.get('validations') or []))
    suite.attrib.update(tests=str(tests), failures=str(counts['failure']),
                        errors=str(counts['error']),
                        skipped=str(counts['skipped']), time=time)
    top = ElementTree.Element('testsuites', {
        'name': 'validations', 'tests': str(tests),
        'failures': str(counts['failure']), 'errors': str(counts['error']),
        'time': time})
    top.append(suite)
    ElementTree.indent(top)
    return ElementTree.tostring(top, encoding='utf-8', xml_declaration=True)
