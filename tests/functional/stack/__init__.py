"""Stack steps through the real CLI, Mistral and Heat: deploy, update,
upgrade, preview, failures, what a script sees, the GUI's workflow."""
