"""Bare metal in Ironic: nodes.json, registration, inspection, provide,
profiles, and provisioning into a plan (run by our Mistral actions)."""
