"""Validations: Ansible playbooks in TripleO's metadata format, kept in
Swift, run in Mistral's executor, their results kept in Swift.

``metadata`` reads and checks a playbook, ``shipped`` holds the playbooks
this package ships, ``catalog`` installs them and finds what a run may
use (a plan's ``custom-validations/`` overriding), ``inventory`` builds
the hosts a run targets, ``runner`` runs ``ansible-playbook`` and
``results`` keeps each run's outcome.
"""
