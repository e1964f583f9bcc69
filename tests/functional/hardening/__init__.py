"""Hostile input, secrets, names, signals, trusts, and who may do what
behind Keystone (issues 13 and 26)."""
