"""The validations this package ships (``playbooks/``, package data)."""

import os

DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'playbooks')
# ansible-playbook's stdout callback (``runner``)
CALLBACKS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'callback_plugins')
# the sandbox's way to the egress proxy (``egress``), run inside it
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'sandboxed', 'relay.py')


def files():
    """``{name: bytes}``: groups.yaml and every shipped playbook."""
    out = {}
    for name in sorted(os.listdir(DIRECTORY)):
        if name.endswith('.yaml'):
            with open(os.path.join(DIRECTORY, name), 'rb') as f:
                out[name] = f.read()
    return out
