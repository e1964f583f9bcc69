"""The configuration workflows (config-download, ``tripleoplanclient.config``):
the download of a step's Ansible tree, and what a stack step asks of its
configuration (the deploy request's fields, the deploy workflow's
configure task); ``protocol`` assembles them."""

from tripleoplanclient.protocol.fields import REQUIRED

WORKFLOWS = {
    # The tree of a stack step, kept as one object with the step
    # (``record.configs``); the answer names it, never holds it.
    'config_download': (
        'tripleoplan.config_download',
        "The Ansible tree (config-download) of a stack step of the plan, "
        "with the inventory of its servers, kept as one tar.gz with the "
        "step.",
        {'container': REQUIRED,
         'step': None,              # a step number or id; None: the newest
                                    # stack step
         'config_type': None,       # [RoleData key]: only these
         'swift_url': None,
         'heat_url': None}),
}

# The deploy request's fields for its configuration (merged into
# ``plans.WORKFLOWS['deploy']``).
DEPLOY_FIELDS = {
    'config': 'auto',               # record.configs.MODES
    'tags': None,                   # [tag]: ansible-playbook --tags
    'skip_tags': None,              # [tag]
    'limit': None,                  # ansible-playbook --limit
    'forks': None,                  # ansible-playbook --forks
    'config_timeout': 240,          # minutes, for all the playbooks
    'playbooks': None,              # [tree path]; None: by the action
}

# workflow -> (task, action) run once after its follow task: the deploy
# workflow configures the servers when the stack asks for it.
AFTER_FOLLOW = {'deploy': ('configure', 'tripleoplan.configure')}

# The playbooks a step runs, in order, by its action (those the tree has).
PLAYBOOKS = {
    'deploy': ('deploy_steps_playbook.yaml',),
    'update': ('update_steps_playbook.yaml', 'deploy_steps_playbook.yaml'),
    'upgrade': ('upgrade_steps_playbook.yaml', 'deploy_steps_playbook.yaml',
                'post_upgrade_steps_playbook.yaml'),
}
# Seconds between two progress objects while Ansible runs (a batch of
# task results each).
PROGRESS_EVERY = 3
