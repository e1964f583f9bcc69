"""The plugin beside python-tripleoclient in one openstack CLI."""
