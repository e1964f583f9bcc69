"""The validation workflows (``tripleoplanclient.validations``)."""

from tripleoplanclient.protocol.fields import REQUIRED

WORKFLOWS = {
    # Validations (``validations``): playbooks in the caller's
    # tripleo-validations container and a plan's custom-validations/, run
    # by ansible-playbook in the executor, results kept in Swift.
    'validation_install': (
        'tripleoplan.validation_install',
        "Install the shipped validations into the caller's "
        "tripleo-validations container (only new or changed objects).",
        {'swift_url': None}),
    'validation_list': (
        'tripleoplan.validation_list',
        "The validations (a plan's own too), their groups, and why a "
        "malformed one cannot run.",
        {'plan': None,              # its custom-validations/ override
         'group': None,
         # any of these too (validations-libs' selection)
         'categories': None,
         'products': None,
         # only these, each with its parameters' defaults (its roles')
         'names': None,
         'swift_url': None}),
    'validation_run': (
        'tripleoplan.validation_run',
        "Run validations (by name, or a group, categories or products) "
        "with ansible-playbook against localhost or the plan's servers; "
        "results kept in Swift under the workflow execution's id.",
        {'names': None,
         'group': None,
         # {name: value}: the playbooks' vars.json (not secrets: Mistral
         # keeps a workflow's input)
         'extra_vars': None,
         # the secret ones, as validation_seal sealed them
         'sealed_vars': None,
         'limit': None,             # ansible-playbook --limit
         'categories': None,        # any of these, or the group
         'products': None,
         'skiplist': None,          # {id: {hosts: None | [host], reason}}
         'plan': None,
         'timeout': 600,            # seconds, for the whole run
         'swift_url': None,
         'heat_url': None}),
    'validation_stop': (
        'tripleoplan.validation_stop',
        "Stop a validation run: its ansible-playbook's process group "
        "killed, the run recorded STOPPED.",
        {'run': REQUIRED,
         'swift_url': None}),
    'validation_results': (
        'tripleoplan.validation_results',
        "The validation runs of the caller's project (of a plan), or one "
        "run with each validation's failed tasks.",
        {'run': None,
         'plan': None,
         # the runs last written, at most (None: all)
         'limit': None,
         'swift_url': None}),
}

# actions run on their own (no workflow, nothing saved in Mistral)
ACTIONS = {
    'validation_seal': (
        'tripleoplan.validation_seal',
        "Seal a validation run's secret extra vars for the caller (run it "
        "unsaved: POST /v2/action_executions, params run_sync true, "
        "save_result false); the run's request carries the seal in "
        "sealed_vars.",
        {'extra_vars': REQUIRED}),
}
