"""Heat's preview of a stack operation, as a command shows it.

``result`` is what the preview action returns (``mistral.preview``):
``operation``, ``nested``, ``nested_error``, ``rendered`` and
``resources`` (kind -> ``[{'name', 'type', 'stack'}]``). Loaded by the
commands: standard library at module level only.
"""

KINDS = ('added', 'updated', 'replaced', 'deleted', 'unchanged')
COLUMNS = ('heat_operation', 'resources_added', 'resources_updated',
           'resources_replaced', 'resources_deleted', 'resources_unchanged',
           'nested_detail')
# Shown one by one in the summary: what a stack operation destroys.
_LISTED = ('replaced', 'deleted')


def _resources(result, kind):
    return (result.get('resources') or {}).get(kind) or []


def resource_path(resource):
    """``<stack path>/<resource name>``: ``overcloud/Controller/0/Net``."""
    return '%s/%s' % (resource.get('stack'), resource.get('name'))


def nested_detail(result):
    """Whether the changes inside nested stacks are in the result."""
    if result.get('nested'):
        return 'shown'
    if result.get('nested_error'):
        # a known Heat bug (Heat 27 fails a nested preview of a tree
        # whose nested stacks it builds anew), not the plan's problem
        return ('not shown: Heat could not preview inside the nested '
                'stacks (a known limit of Heat, not a problem of the plan; '
                'Heat said: %s); the top-level changes above are complete'
                % result['nested_error'])
    return 'not shown (not asked for)'


def summary_lines(result):
    """Lines for stderr or a confirmation question."""
    operation = result.get('operation')
    if operation == 'NONE':
        return ['Heat: nothing to do (the plan and the stack are as the '
                'last deploy left them; operation NONE).']
    counts = ', '.join('%d %s' % (len(_resources(result, kind)), kind)
                       for kind in KINDS)
    lines = ['Heat would %s the stack: %s.' % (operation, counts)]
    if result.get('rendered'):
        lines.append('Rendered for the preview: %d template(s) changed.'
                     % len(result['rendered']))
    for kind in _LISTED:
        for resource in _resources(result, kind):
            lines.append('  %s: %s (%s)' % (
                kind, resource_path(resource), resource.get('type')))
    if not result.get('nested'):
        lines.append(
            'Changes inside nested stacks: %s. A nested stack resource '
            'listed as updated may replace or delete resources of its '
            'own.' % nested_detail(result))
    return lines


def columns(result):
    """``(names, values)`` for a ShowOne: the resources added, updated,
    replaced and deleted by path, the unchanged ones counted."""
    from osc_lib.cli import format_columns

    values = [result.get('operation')]
    values += [format_columns.ListColumn(
        [resource_path(r) for r in _resources(result, kind)])
        for kind in KINDS[:-1]]
    values += [len(_resources(result, 'unchanged')), nested_detail(result)]
    return COLUMNS, tuple(values)
