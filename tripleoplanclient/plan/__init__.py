"""Runs in both the CLI and Mistral's executor: the plan's files in Swift.

Its container (``container``: every request, one class; ``copies`` and
``export`` over it), layout and names, the tree of each step, the
rendering and its bounded child process, the schemas of record objects.
"""
