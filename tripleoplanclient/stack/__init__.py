"""Both: the plan's Heat stack: deploy steps, events, preview, failures
(the CLI's; ``preconditions``, the rules a step must pass, runs in
Mistral too).
"""
