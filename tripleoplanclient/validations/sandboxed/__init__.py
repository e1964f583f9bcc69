"""Mistral: what runs inside a validation's sandbox, in the executor.

Standard library only: the package is not mounted there.
"""
