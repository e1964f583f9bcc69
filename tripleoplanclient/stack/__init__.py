"""CLI: the plan's Heat stack: deploy steps, events, preview, failures.
"""
