"""Validations run by ansible-playbook in Mistral's executor, on a
deployed server over SSH too."""
