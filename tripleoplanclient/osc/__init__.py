"""CLI: the cliff command classes and the ``openstack`` plugin.

Each command parses its arguments, calls one function and formats its
answer.
"""
