"""Mistral: config-download: the stack's outputs -> the Ansible tree, runs.

``ansible_run`` runs a playbook of the tree with ``ansible-playbook`` in
the validations' sandbox against the plan's servers, its task results
reported by the callback in ``callback_plugins``.
"""
