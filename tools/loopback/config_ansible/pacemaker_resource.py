"""Stand-in for ansible-pacemaker's pacemaker_resource (an RPM of RDO, not
on PyPI), installed beside tripleo-ansible's modules in the loopback's
config-download venv (tools/loopback/mistral.py): THT 18's
update_steps_playbook.yaml names it, and Ansible refuses a playbook that
names a module it cannot find, before any task.  Here it exists so that
the playbook loads; run, it fails: the loopback has no pacemaker (its
tasks are under tags the loopback skips)."""

from ansible.module_utils.basic import AnsibleModule


def main():
    # any arguments: the real module's are not checked here
    module = AnsibleModule(argument_spec={}, bypass_checks=True,
                           supports_check_mode=True)
    module.fail_json(msg='pacemaker_resource: no pacemaker on the loopback')


if __name__ == '__main__':
    main()
