"""Mistral: config-download: the stack's outputs -> the Ansible tree, runs.

``stack_data`` reads from Heat what the tree needs (a bounded number of
requests), ``tree`` turns it into the files tripleo-common's
``download_config`` wrote, ``writing`` checks the names and writes the YAML
of those files, and ``inventory`` writes ``tripleo-ansible-inventory.yaml``.

``ansible_run`` runs a playbook of the tree with ``ansible-playbook`` in
the validations' sandbox against the plan's servers, its task results
reported by the callback in ``callback_plugins``.
"""
