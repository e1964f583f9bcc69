"""Runs in both the CLI and Mistral's executor: the plan's history.

The step log (``log``), its reader and writer over the plan's container
(``reader``, ``writer``; ``plan_store`` holds the three), the index
(``index``: environments.yaml), the open stack step, past steps, diffs.
"""
