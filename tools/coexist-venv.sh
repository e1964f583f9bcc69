#!/usr/bin/env bash
# A venv with python-tripleoclient from PyPI beside this checkout (editable),
# for tests/functional/osc/test_coexistence.py. Created once (about a minute)
# under $LOOPBACK_CACHE/venvs/coexist (default
# ~/.cache/tripleoplanclient/venvs/coexist); the checkout is reinstalled on
# every call so its entry points are current. Prints the venv's path on
# stdout (progress goes to stderr).
#   COEXIST_TRIPLEOCLIENT=python-tripleoclient==20.0.0 (the default)
set -eu -o pipefail
cd "$(dirname "$0")/.."
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
venv=$cache/venvs/coexist
tripleoclient=${COEXIST_TRIPLEOCLIENT:-python-tripleoclient==20.0.0}

if ! "$venv/bin/pip" show -q python-tripleoclient 2>/dev/null; then
    echo "coexist-venv: installing $tripleoclient into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "$tripleoclient" >&2
fi
"$venv/bin/pip" install -q --no-deps -e . >&2
echo "$venv"
