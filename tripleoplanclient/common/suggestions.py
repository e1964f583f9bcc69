"""What a user most likely meant by a name nothing is called: the one
"did you mean" of every error that refuses an unknown role, parameter or
environment. Only the standard library."""

import difflib

# difflib's ratio a choice needs to be suggested.
CUTOFF = 0.6


def close_matches(word, choices, n=3, fold_case=True):
    """Up to ``n`` of ``choices`` that ``word`` may stand for, the closest
    first (difflib's ratio, ``CUTOFF`` at least).

    ``fold_case``: case does not count, and a choice that differs from
    ``word`` only in case is the one answer (the first such, when several
    do).
    """
    if not fold_case:
        return difflib.get_close_matches(word, list(choices), n, CUTOFF)
    folded = {}
    for choice in choices:
        folded.setdefault(choice.lower(), choice)
    wanted = word.lower()
    if wanted in folded:
        return [folded[wanted]]
    return [folded[m] for m in difflib.get_close_matches(
        wanted, list(folded), n, CUTOFF)]
