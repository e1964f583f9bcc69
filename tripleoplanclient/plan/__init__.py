"""Both: the plan's files in Swift (run by the CLI and by Mistral's executor).

Its container (``container``: every request, one class; ``copies`` and
``export`` over it), layout and names, the tree of each step, the
rendering and its bounded child process, the schemas of record objects.
"""
