"""Both: the plan's history (read and written by the CLI and by Mistral's
executor).

The step log (``log``), its reader and writer over the plan's container
(``reader``, ``writer``; ``plan_store`` holds the three), the index
(``index``: environments.yaml), the open stack step, past steps, diffs.
"""
