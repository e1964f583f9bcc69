"""Both: validation playbooks, run in Mistral's executor, and their results.

Ansible playbooks in TripleO's metadata format, kept in Swift, run in
Mistral's executor, their results kept in Swift.

``metadata`` reads and checks a playbook, ``shipped`` holds the playbooks
this package ships, ``sources`` reads them and other trees in
tripleo-validations' layout on the client, ``catalog`` installs them and
finds what a run may use (a plan's ``custom-validations/`` overriding),
``support`` keeps the container's roles and modules on the executor for
the runs, ``inventory`` builds
the hosts a run targets (and which it may reach), ``runner`` runs
``ansible-playbook`` in the ``sandbox`` (``seccomp`` its filter,
``egress`` its only way out, ``agent`` the SSH login held outside;
``child`` the start-to-end of the sandboxed child, which config-download's
runs share) and
``results`` keeps each run's outcome. Everything runs in Mistral's
executor but ``results`` (and the ``metadata`` it checks ids with), which
the CLI reads a run's results with, and ``junit``, which the CLI writes
a run as JUnit XML with.
"""
