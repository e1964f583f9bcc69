"""Server side: the Mistral actions and workbook shipped with the client.

Installed into Mistral's own environment with
``pip install tripleoplanclient[mistral]``; Mistral loads the actions from
the ``mistral.actions`` entry point when it starts.
"""

# Bumped whenever the workbook, the actions' inputs or their results change
# incompatibly; the client refuses to drive another protocol.
PROTOCOL = 2
