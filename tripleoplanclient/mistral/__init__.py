"""Mistral: our actions and their bodies, run in Mistral's executor.

Installed into Mistral's own environment with
``pip install tripleoplanclient[mistral]``; Mistral loads the actions from
the ``mistral.actions`` entry point when it starts. ``protocol`` is what
the client and these actions agree on.
"""
