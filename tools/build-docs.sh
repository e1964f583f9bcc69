#!/usr/bin/env bash
# Build the documentation into doc/build/html, warnings as errors.
#
#   bash tools/build-docs.sh
#
# The virtual environment $LOOPBACK_CACHE/venvs/docs (default
# ~/.cache/tripleoplanclient/venvs/docs) is made once and reused; this
# checkout is reinstalled editable on every run, so that the command
# reference follows the entry points in setup.cfg. Exits non-zero on any
# Sphinx warning.
set -eu -o pipefail
cd "$(dirname "$0")/.."
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
venv=$cache/venvs/docs

if [ ! -x "$venv/bin/sphinx-build" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q -r requirements.txt -r doc/requirements.txt >&2
"$venv/bin/pip" install -q --no-deps -e . >&2
# -E: read every page again; the command reference comes from the code.
exec "$venv/bin/sphinx-build" -E -W --keep-going -b html \
    doc/source doc/build/html
