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


def setup(app):
    app.add_directive('autoprogram-cliff', _PlainHelpAutoprogram,
                      override=True)
