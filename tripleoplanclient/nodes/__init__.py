"""Both: bare metal in Ironic, as our Mistral actions drive it.

nodes.json, registration, inspection, provide, profiles, provisioning
into a plan; the CLI checks nodes.json and baremetal deployment files
with ``nodes_json`` and ``baremetal_file``, and the login user's SSH
public keys with ``config_drive``, before it sends them.
"""
