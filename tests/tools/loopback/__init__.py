"""Tests of tools/loopback: the services' configuration, no service
started."""
