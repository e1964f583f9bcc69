"""A stack's nested resources as Heat lists them in one request
(``nested_depth``): which stack holds each, and its path from the top.

Heat links every resource to the stack holding it (``rel: stack``) and a
resource that is a stack to that nested stack (``rel: nested``); a
resource's path is the chain of those resource names from the top stack,
``/``-separated (``Controller/0/Controller``). Used by ``overcloud
failures`` and by ``--server`` names (software.servers).
"""

# Heat caps the depth at max_nested_stack_depth (5 by default).
DEPTH = 5


def link(resource, rel):
    for item in getattr(resource, 'links', None) or []:
        if item.get('rel') == rel:
            return item.get('href') or ''
    return ''


def stack_of(href):
    """(name, id) of the stack a Heat link points into."""
    parts = href.split('/stacks/', 1)[-1].split('/')
    return (parts[0], parts[1]) if len(parts) > 1 else ('', '')


class Tree:
    """The resources of one nested listing, and their paths."""

    def __init__(self, resources, top_id):
        self.resources = list(resources)
        self._top_id = top_id
        # nested stack id -> (resource name, id of the stack holding it)
        self._owners = {}
        for res in self.resources:
            nested = link(res, 'nested')
            if nested:
                self._owners[stack_of(nested)[1]] = (
                    res.resource_name, stack_of(link(res, 'stack'))[1])

    def path(self, resource):
        """``resource``'s names from the top stack, ``/``-separated."""
        stack_id = stack_of(link(resource, 'stack'))[1]
        path, seen = [resource.resource_name], set()
        while stack_id != self._top_id and stack_id in self._owners \
                and stack_id not in seen:
            seen.add(stack_id)
            name, stack_id = self._owners[stack_id]
            path.insert(0, name)
        return '/'.join(path)


def listing(heat, stack, **kwargs):
    """Every resource of ``stack`` (``name/id``) and its nested stacks, in
    one request."""
    return Tree(heat.resources.list(stack, nested_depth=DEPTH, **kwargs),
                stack.split('/')[-1])
