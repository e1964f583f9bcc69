"""Command names another OSC plugin registers too (python-tripleoclient's
``overcloud deploy``, ``overcloud update prepare``, ...).

cliff keeps the last command it loads under a name, and OSC loads the
plugins' groups (``openstack.<api>.v<N>``) in entry point order, i.e. in the
order directories list their ``*.dist-info``: a coin toss. OSC loads the
``openstack.extension`` group after every plugin's group, so the classes
here, registered there under the shared names, are what cliff always finds.
Each one picks the implementation by a rule that does not depend on load
order: the ``tripleoplan_shared_commands`` setting names the plugin's API
(``tripleoplan`` or e.g. ``tripleoclient``); unset, ours runs. When two are
installed, a notice on stderr says which one answers.
"""

import argparse
import importlib.metadata
import inspect

from cliff import command
from osc_lib import exceptions

OURS = 'tripleoplan'
SETTING = 'tripleoplan_shared_commands'
CHOOSE = ('choose with --os-tripleoplan-shared-commands, '
          'OS_TRIPLEOPLAN_SHARED_COMMANDS or tripleoplan_shared_commands in '
          'clouds.yaml')
# Where these classes are registered; never one of the implementations.
DISPATCH_GROUP = 'openstack.extension'


def _entry_points(groups):
    """``{group: entry points}`` of ``groups``, in one scan."""
    eps = importlib.metadata.entry_points()
    if hasattr(eps, 'select'):
        return {group: eps.select(group=group) for group in groups}
    return {group: eps.get(group, ()) for group in groups}  # Python 3.9


def implementations(app, entry_point_name):
    """``{api: entry point}`` registering ``entry_point_name`` in the
    command groups the shell loaded (``openstack.<api>.v<N>``), ours
    first."""
    found = {}
    groups = [group for group in app.command_manager.get_command_groups()
              if group != DISPATCH_GROUP and len(group.split('.')) > 2]
    for group, eps in _entry_points(groups).items():
        for ep in eps:
            if ep.name == entry_point_name:
                found.setdefault(group.split('.')[1], ep)
    return dict(sorted(found.items(), key=lambda item: item[0] != OURS))


def choice(app):
    """The setting: the command line (or its environment variable), then
    clouds.yaml; None when unset."""
    value = getattr(getattr(app, 'options', None),
                    'os_' + SETTING, None)
    cloud = getattr(app, 'cloud', None)
    if not value and cloud is not None:
        value = cloud.config.get(SETTING)
    return value or None


class _AnyArguments(argparse.ArgumentParser):
    """Takes whatever the other plugin's command would have taken."""

    def parse_args(self, args=None, namespace=None):
        return self.parse_known_args(args, namespace)[0]


class Unavailable(command.Command):
    """The shared command the setting asks for is not installed."""

    auth_required = False

    def __init__(self, app, app_args, message):
        super().__init__(app, app_args)
        self._message = message

    def get_description(self):
        return self._message

    def get_parser(self, prog_name):
        return _AnyArguments(prog=prog_name, description=self._message)

    def take_action(self, parsed_args):
        raise exceptions.CommandError(self._message)


class Shared:
    """Makes the command of the chosen plugin (cliff calls it like a
    command class)."""

    entry_point_name = None

    def __init__(self, app, app_args, cmd_name=None):
        pass  # __new__ returns another class's instance: never called

    def __new__(cls, app, app_args, cmd_name=None):
        name = cls.entry_point_name.replace('_', ' ')
        impls = implementations(app, cls.entry_point_name)
        chosen = choice(app)
        api = chosen or next(iter(impls), OURS)
        if api not in impls:
            return Unavailable(app, app_args, (
                "'%s' is not a command of %s here (%s; it is one of: %s): "
                "install it or %s." % (
                    name, api, '%s=%s' % (SETTING, chosen) if chosen
                    else 'the default', ', '.join(impls) or 'none',
                    CHOOSE)))
        # app_args is None when cliff only lists the commands.
        if len(impls) > 1 and app_args is not None:
            app.stderr.write(
                "Note: '%s' is a command of %s; running %s's (%s; %s).\n" % (
                    name, ' and '.join(impls), api,
                    'by %s' % SETTING if chosen else 'the default', CHOOSE))
        factory = impls[api].load()
        kwargs = {}
        if 'cmd_name' in inspect.getfullargspec(factory.__init__).args:
            kwargs['cmd_name'] = cmd_name
        return factory(app, app_args, **kwargs)


def _shared(entry_point_name):
    class_name = ''.join(word.title() for word in entry_point_name.split('_'))
    return type(class_name, (Shared,),
                {'entry_point_name': entry_point_name,
                 '__doc__': 'The command of the chosen plugin.'})


# The names of this plugin that python-tripleoclient has too (any release).
OvercloudDeploy = _shared('overcloud_deploy')
OvercloudPlanCreate = _shared('overcloud_plan_create')
OvercloudPlanList = _shared('overcloud_plan_list')
OvercloudPlanDelete = _shared('overcloud_plan_delete')
OvercloudPlanExport = _shared('overcloud_plan_export')
OvercloudUpdatePrepare = _shared('overcloud_update_prepare')
OvercloudUpdateConverge = _shared('overcloud_update_converge')
OvercloudUpgradePrepare = _shared('overcloud_upgrade_prepare')
OvercloudUpgradeConverge = _shared('overcloud_upgrade_converge')
OvercloudFailures = _shared('overcloud_failures')
OvercloudConfigDownload = _shared('overcloud_config_download')
OvercloudNodeImport = _shared('overcloud_node_import')
OvercloudNodeProvision = _shared('overcloud_node_provision')
OvercloudNodeUnprovision = _shared('overcloud_node_unprovision')
OvercloudNodeDelete = _shared('overcloud_node_delete')
OvercloudDelete = _shared('overcloud_delete')
OvercloudNodeIntrospect = _shared('overcloud_node_introspect')
OvercloudNodeProvide = _shared('overcloud_node_provide')
OvercloudNodeConfigure = _shared('overcloud_node_configure')
OvercloudProfilesList = _shared('overcloud_profiles_list')
OvercloudCredentials = _shared('overcloud_credentials')
OvercloudNodeClean = _shared('overcloud_node_clean')
OvercloudNodeBiosConfigure = _shared('overcloud_node_bios_configure')
OvercloudNodeBiosReset = _shared('overcloud_node_bios_reset')
OvercloudRaidCreate = _shared('overcloud_raid_create')
OvercloudNodeDiscover = _shared('overcloud_node_discover')
