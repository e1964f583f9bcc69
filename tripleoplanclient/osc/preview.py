"""``openstack overcloud deploy / update / upgrade preview``: what the
step would change in the plan and Heat's own preview of the stack
operation, as a table; nothing is changed.

``--dry-run`` prints the command's own columns (a command's columns never
depend on its options); this is the view with the preview's columns.
Each takes the options of its command but those of a run (--wait,
--no-wait, --dry-run, -y).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from tripleoplanclient.osc import deploy

_WHAT = ('Show what "overcloud %s" would change in the plan and Heat\'s '
         'preview of the stack operation; change nothing')


class _Preview:
    preview_only = True

    @property
    def columns(self):
        """The row shown whatever the outcome (``outcome``)."""
        from tripleoplanclient.stack import preview
        return deploy.PREVIEW_COLUMNS + preview.COLUMNS


class DeployPreview(_Preview, deploy.Deploy):
    _description = _WHAT % 'deploy'


class UpdatePreview(_Preview, deploy.Update):
    _description = _WHAT % 'update'


class UpgradePreview(_Preview, deploy.Upgrade):
    _description = _WHAT % 'upgrade'
