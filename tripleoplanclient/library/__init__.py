"""Both: the plan's deployment library: capabilities, parameters, roles.

Mistral's library actions work it out from the plan; the CLI and the
plan's history read parameter files and hide secret values with it.
"""
