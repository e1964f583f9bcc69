"""CLI: the client's Mistral calls, one module per protocol family.

``plans``, ``nodes`` and ``validations`` each build their family's
requests (``protocol``) and run them; ``executions`` starts, waits for
and reads Mistral executions; ``workbook`` installs the workbook.
"""
