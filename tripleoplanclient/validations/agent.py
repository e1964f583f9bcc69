"""The SSH agent of one validation run: the servers' login key stays
outside the sandbox.

The runner starts ``ssh-agent`` (OpenSSH's, from the system) with its
socket in the run's inputs directory, loads the configured key into it
with ``ssh-add`` for the run's time budget, and ends it with the run.
The sandbox gets the socket: ssh inside may ask the agent to sign a
login, never read the key, and its connections reach only the servers
the run was given (``egress``). ssh-agent answers only peers of its own
uid (the sandbox's nobody is the executor's uid outside) and is started
with no PKCS#11/FIDO provider allowed, so a playbook cannot have it load
a library.
"""

import os
import shutil
import subprocess
import time

# how long ssh-agent may take to listen, ssh-add to load the key
START_WAIT = 10
# no provider path matches this (``ssh-agent -P``)
NO_PROVIDER = '/nonexistent/tripleoplan/*'


class Agent:
    """``with Agent(socket, key, seconds) as held``: ``held.problem`` is
    None once the agent holds ``key`` at ``socket`` (or no key is
    given: no agent), else why not (nothing was started)."""

    def __init__(self, socket_path, key, seconds):
        self.path, self.key = socket_path, key
        self.seconds = max(1, int(seconds) + 60)
        self.problem = None
        self._process = None

    def __enter__(self):
        if self.key:
            self.problem = self._start()
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        program = shutil.which('ssh-agent')
        adder = shutil.which('ssh-add')
        if program is None or adder is None:
            return ('ssh-agent and ssh-add are not installed where Mistral\'s '
                    'executor runs (the openssh-client package): the '
                    'validations log in to the servers through them. '
                    'Nothing was run.')
        env = {'PATH': '/usr/bin:/bin', 'SSH_AUTH_SOCK': self.path}
        self._process = subprocess.Popen(
            [program, '-D', '-a', self.path, '-P', NO_PROVIDER],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=env, close_fds=True,
            start_new_session=True)
        deadline = time.monotonic() + START_WAIT
        while not os.path.exists(self.path):
            if self._process.poll() is not None or \
                    time.monotonic() > deadline:
                self.close()
                return 'ssh-agent did not start. Nothing was run.'
            time.sleep(0.02)
        try:
            added = subprocess.run(
                [adder, '-q', '-t', str(self.seconds), self.key],
                stdin=subprocess.DEVNULL, capture_output=True, env=env,
                timeout=START_WAIT)
        except subprocess.TimeoutExpired:
            added = None
        if added is None or added.returncode != 0:
            self.close()
            why = ' '.join((added.stderr if added else b'no answer').decode(
                'utf-8', 'replace').split())[-300:]
            return ('the SSH key %s ([tripleoplan] validation_ssh_key of '
                    'Mistral\'s configuration) could not be loaded into the '
                    'run\'s ssh-agent (%s): a private key without a '
                    'passphrase is needed. Nothing was run.'
                    % (self.key, why or 'ssh-add failed'))
        return None

    def close(self):
        """End the agent (by its PID), forgetting the key."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
