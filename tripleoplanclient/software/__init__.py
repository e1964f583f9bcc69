"""CLI: Heat software deployments: trigger, watch, signal, cancel.
"""
