"""Hypothesis strategies for what anyone with the account could PUT: any
value YAML or JSON can hold, and a structure with one to three places
replaced by such values (or removed).
"""

import copy

from hypothesis import strategies as st


# Any value YAML or JSON can hold.
LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                 st.text(max_size=12),
                 st.sampled_from(['../x', '/abs', 'SUCCESS', 'a.yaml', '']))
VALUE = st.recursive(LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner,
                    max_size=4)), max_leaves=12)


def paths(node, prefix=()):
    """Every key path into a nested structure."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, prefix + (i,))


@st.composite
def mutated(draw, base, values=VALUE):
    """``base`` with one to three places replaced by any of ``values`` (or
    removed)."""
    value = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(list(paths(value))))
        if not where:
            value = draw(values)
            continue
        parent = value
        for key in where[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = draw(values)
        if not isinstance(value, (dict, list)):
            break
    return value
