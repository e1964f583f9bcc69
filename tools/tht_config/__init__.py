"""tools/tht-config-run.sh's files: tripleo-heat-templates 18.0.0's
config-download playbooks measured on the loopback's sshd servers
(download.py runs in a venv of tripleo-common 18.0.0, measure.py with the
system python3, callback_plugins/ inside ansible-playbook)."""
