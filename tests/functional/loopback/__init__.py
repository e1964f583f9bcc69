"""The loopback services themselves (tools/loopback): Ironic as the node
tests use it, no published credential."""
