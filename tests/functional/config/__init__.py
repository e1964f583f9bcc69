"""Config-download: the tree, its playbooks run on the loopback's
servers."""
