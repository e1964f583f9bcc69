"""The plan through the real CLI and Mistral: create, amend, show, render,
errors, its history (record, past steps, restore), the library."""
