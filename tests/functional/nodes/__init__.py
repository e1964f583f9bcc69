"""Nodes through the real CLI, Mistral and the loopback Ironic: import,
introspect, provide, tag, provision."""
