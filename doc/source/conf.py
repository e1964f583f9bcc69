"""Sphinx configuration of the tripleoplanclient documentation.

Built offline, warnings as errors: ``bash tools/build-docs.sh`` or
``tox -e docs``. The command reference is generated from the installed
package's ``openstack.tripleoplan.v1`` entry points (cliff's
``autoprogram-cliff``); the release notes from ``releasenotes/notes`` in
git history (reno's ``release-notes``); Mistral's ``[tripleoplan]`` options
and their sample from the ``oslo.config.opts`` entry point (oslo.config's
``show-options`` and sample generator).
"""

import re

from cliff import sphinxext as cliff_sphinxext
from oslo_config import sphinxext as oslo_config_sphinxext
from sphinx.util import logging

LOG = logging.getLogger(__name__)

project = 'tripleoplanclient'
copyright = 'tripleoplanclient developers'
author = 'tripleoplanclient developers'

extensions = [
    'cliff.sphinxext',
    'reno.sphinxext',
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
]

# _static/tripleoplanclient.conf.sample, written at every build from the
# options themselves (reference/configuration includes it).
config_generator_config_file = [(
    '../../etc/oslo-config-generator/tripleoplanclient.conf',
    '_static/tripleoplanclient')]

root_doc = 'index'
# Quotes and ellipses only: "--templates" in help text stays two dashes.
smartquotes_action = 'qe'
exclude_patterns = ['_build']
pygments_style = 'sphinx'
# Plain "::" blocks are shell sessions and listings: no guessing.
highlight_language = 'none'
# Commands are shown as "openstack overcloud plan create ...".
autoprogram_cliff_application = 'openstack'
# cliff's output options are the same for every command that shows a
# result: cli/index.rst describes them once.
autoprogram_cliff_ignored = [
    '--help', '--format', '--column', '--noindent', '--prefix',
    '--max-width', '--fit-width', '--print-empty',
]

# Sphinx's default theme: no network, no branding.
html_theme = 'alabaster'
html_theme_options = {
    'description': 'A TripleO deployment plan kept whole in Swift',
    'fixed_sidebar': False,
    'show_relbars': True,
}
html_title = 'tripleoplanclient'

# Help strings are plain text, but cliff pastes them into
# reStructuredText: "every *.yaml" would open an emphasis.
_RST_SPECIAL = re.compile(r'([\\*`|_])')


class _PlainHelpAutoprogram(cliff_sphinxext.AutoprogramCliffDirective):
    """autoprogram-cliff with each option's help taken literally."""

    def _drop_ignored_options(self, parser, ignored_opts):
        super()._drop_ignored_options(parser, ignored_opts)
        for action in parser._actions:
            if action.help and not getattr(action, '_rst_escaped', False):
                action.help = _RST_SPECIAL.sub(r'\\\1', action.help)
                action._rst_escaped = True


class _ConfigDomain(oslo_config_sphinxext.ConfigDomain):
    """oslo.config's domain, where a reference to an option that does not
    exist is a warning (an error here) naming it, not a KeyError."""

    def resolve_xref(self, env, fromdocname, builder, typ, target, node,
                     contnode):
        known = self.data['options' if typ == 'option' else 'groups']
        if target not in known:
            return None         # the role warns: target not found
        return super().resolve_xref(env, fromdocname, builder, typ, target,
                                    node, contnode)


# a [tripleoplan] section of an example file, up to its first blank line,
# and "[tripleoplan] option" in the prose
_EXAMPLE = re.compile(r'^\s*\[tripleoplan\]\n((?:[ \t]*\S.*\n)*)', re.M)
_MENTION = re.compile(r'\[tripleoplan\]\s+(\w+)')


def _check_option_names(app, docname, source):
    """Warn (an error here) where the pages name a [tripleoplan] option
    that does not exist: roles are checked by Sphinx, the examples and
    plain mentions here."""
    from tripleoplanclient.mistral import config
    known = {o.name for _, opts in config.list_opts() for o in opts}
    named = _MENTION.findall(source[0])
    for block in _EXAMPLE.findall(source[0]):
        named += re.findall(r'^\s*(\w+)\s*=', block, re.M)
    for name in sorted(set(named) - known):
        LOG.warning('[tripleoplan] %s is no option of Mistral\'s '
                    'configuration (tripleoplanclient/mistral/config.py)',
                    name, location=docname)


def setup(app):
    app.add_directive('autoprogram-cliff', _PlainHelpAutoprogram,
                      override=True)
    app.add_domain(_ConfigDomain, override=True)
    app.connect('source-read', _check_option_names)
