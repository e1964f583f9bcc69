"""Virtualenvs of the Python services, under $LOOPBACK_CACHE/venvs/<name>,
installed from PyPI with the pins in requirements/<name>.txt and
requirements/<name>-constraints.txt, then those of
requirements/<name>-no-deps.txt (when there is one) without their
dependencies: packages whose declared dependencies are not needed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
import subprocess
import sys
import time

from .common import LoopbackError
from .common import PACKAGE
from .common import say
from .state import cache_dir

REQUIREMENTS = PACKAGE / 'requirements'


def requirements_file(name: str) -> Path:
    return REQUIREMENTS / (name + '.txt')


def constraints_file(name: str) -> Path:
    return REQUIREMENTS / (name + '-constraints.txt')


def read_pins(path: Path) -> list[str]:
    """The requirement lines of a pip file, without comments."""
    lines = (line.split('#', 1)[0].strip()
             for line in path.read_text().splitlines())
    return [line for line in lines if line]


def requirements(name: str) -> list[str]:
    return read_pins(requirements_file(name))


def no_deps_file(name: str) -> Path:
    return REQUIREMENTS / (name + '-no-deps.txt')


def no_deps(name: str) -> list[str]:
    path = no_deps_file(name)
    return read_pins(path) if path.exists() else []


def venv_dir(name: str) -> Path:
    return cache_dir() / 'venvs' / name


def ensure_venv(name: str, check_import: str) -> Path:
    """Create or reuse $LOOPBACK_CACHE/venvs/<name>; install again only
    when the pins changed (or check_import fails)."""
    venv = venv_dir(name)
    python = venv / 'bin' / 'python'
    # the pins themselves, not the files' bytes: a comment changes nothing
    # (and venvs made when the pins were Python lists stay valid)
    pins = [requirements(name), read_pins(constraints_file(name))]
    if no_deps(name):
        pins.append(no_deps(name))
    wanted = hashlib.sha256(json.dumps(pins).encode()).hexdigest()
    marker = venv / '.loopback-installed'
    if python.exists() and marker.exists() and \
            marker.read_text().strip() == wanted:
        check = subprocess.run([str(python), '-c', 'import ' + check_import],
                               capture_output=True)
        if check.returncode == 0:
            return venv
        say('%s venv at %s is broken, reinstalling' % (name, venv))
    started = time.monotonic()
    base = os.environ.get('LOOPBACK_PYTHON') or sys.executable
    if not python.exists():
        say('creating virtualenv %s' % venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([base, '-m', 'venv', str(venv)], check=True)
    marker.unlink(missing_ok=True)
    say('installing %s into %s (from PyPI)' % (
        ' '.join(requirements(name)), venv))
    cmd = pip_install(venv, name) + ['-r', str(requirements_file(name))]
    if subprocess.run(cmd).returncode != 0:
        raise LoopbackError('pip install failed for %s venv: %s' % (
            name, ' '.join(cmd)))
    if no_deps(name):
        cmd = pip_install(venv, name) + ['--no-deps', '-r',
                                         str(no_deps_file(name))]
        if subprocess.run(cmd).returncode != 0:
            raise LoopbackError('pip install failed for %s venv: %s' % (
                name, ' '.join(cmd)))
    marker.write_text(wanted + '\n')
    say('%s venv ready in %.1f s' % (name, time.monotonic() - started))
    return venv


def pip_install(venv: Path, name: str) -> list[str]:
    """pip install in venv, held to the constraints of venv <name>."""
    return [str(venv / 'bin' / 'python'), '-m', 'pip', 'install', '--quiet',
            '--disable-pip-version-check', '-c', str(constraints_file(name))]
