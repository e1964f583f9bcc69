#!/bin/bash
# Measure tripleo-heat-templates 18.0.0's config-download playbooks on the
# loopback's sshd servers: which tasks run, which the loopback skips (by
# tag) and how long it takes.  doc/source/contributor/loopback.rst
# ("config-download on the loopback") reports the numbers.
#
# On a running loopback (keystone swift mistral heat sshd), its
# environment in this shell, this checkout's `openstack`, the workbook
# installed:
#
#   tools/tht-config-run.sh [PLAYBOOK]     # deploy_steps_playbook.yaml
#
# 1. deploys THT 18.0.0 as plan/stack $THT_CONFIG_STACK (overcloud):
#    two deployed servers at 127.0.0.2 and 127.0.0.3
#    (tools/tht_config/deployed-servers.yaml), unless the stack exists;
# 2. downloads its config and inventory with tripleo-common 18.0.0 itself
#    (a scratch venv under $THT_CONFIG_WORK; tools/tht_config/download.py);
# 3. runs PLAYBOOK with the loopback's config-download Ansible (the venv
#    Mistral's config_ansible_playbook names) as the sshd's user, become
#    off, skipping $THT_CONFIG_SKIP_TAGS (default: the loopback's
#    config_skip_tags, tools/loopback/mistral.py; "none": skip nothing);
# 4. prints the measurement (JSON: tasks run and skipped, by tag, the
#    failures, the wall time) and keeps it in $THT_CONFIG_WORK/report.json.
set -eu -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
playbook=${1:-deploy_steps_playbook.yaml}
stack=${THT_CONFIG_STACK:-overcloud}
work=${THT_CONFIG_WORK:-/tmp/tht-config-run}
: "${LOOPBACK_DIR:?the loopback environment: eval \"\$(python3 tools/loopback env)\"}"
: "${LOOPBACK_SSHD_PORT:?sshd is not started: python3 tools/loopback start sshd}"

log() { echo "tht-config-run: $*" >&2; }
cd "$repo"
mkdir -p "$work"

# config-download's Ansible, as Mistral's start installs it (quick when
# done)
venv=$(python3 -c 'import sys; sys.path.insert(0, "tools")
from loopback import mistral
print(mistral.install_config_ansible())' | tail -n 1)
skip=${THT_CONFIG_SKIP_TAGS-$(python3 -c 'import sys
sys.path.insert(0, "tools")
from loopback import mistral
print(",".join(mistral.CONFIG_SKIP_TAGS))')}
[ "$skip" = none ] && skip=

# tripleo-common 18.0.0 without its dependencies but those its download
# and inventory import
tc=$work/tripleo-common-venv
if [ ! -x "$tc/bin/python" ] || ! "$tc/bin/python" -c \
        'import tripleo_common.utils.config, tripleo_common.inventory' \
        2>/dev/null; then
    log "scratch venv $tc (tripleo-common 18.0.0)"
    python3 -m venv "$tc"
    "$tc/bin/pip" install -q --disable-pip-version-check --no-deps \
        tripleo-common==18.0.0 >&2
    "$tc/bin/pip" install -q --disable-pip-version-check GitPython \
        python-heatclient openstacksdk keystoneauth1 Jinja2 PyYAML >&2
fi

if ! openstack stack show "$stack" -f value -c id >/dev/null 2>&1; then
    tht=$(bash tools/fetch-tht.sh 18.0.0)
    log "deploying THT 18.0.0 as $stack"
    started=$SECONDS
    # the playbooks' plays name the inventory's group of the stack
    printf 'parameter_defaults:\n  RootStackName: %s\n' "$stack" \
        >"$work/root-stack-name.yaml"
    openstack overcloud deploy --stack "$stack" --templates "$tht" \
        -e "$tht/overcloud-resource-registry-puppet.yaml" \
        -e tools/tht_config/deployed-servers.yaml \
        -e "$work/root-stack-name.yaml" \
        -e tests/functional/fixtures/tht18-container-images.yaml \
        -f json >"$work/deploy.json"
    log "deployed in $((SECONDS - started)) s"
fi

config=$work/config
started=$SECONDS
"$tc/bin/python" tools/tht_config/download.py "$stack" "$config" \
    "${LOOPBACK_SSHD_USER:-tripleo-admin}" >&2
log "config downloaded in $((SECONDS - started)) s"

python3 tools/tht_config/measure.py prepare "$config" "$work" "$venv"
export ANSIBLE_CONFIG=$work/ansible.cfg
run=("$venv/bin/ansible-playbook" -i "$work/inventory.yaml"
     -e "@$work/extra-vars.json" "$config/$playbook")
"${run[@]}" --list-tasks >"$work/listed-all.txt"
"${run[@]}" --list-tasks ${skip:+--skip-tags "$skip"} \
    >"$work/listed-run.txt"
results=$work/results.jsonl
: >"$results"
log "running $playbook (skip tags: ${skip:-none}); output: $work/run.log"
started=$(date +%s.%N)
rc=0
THT_MEASURE_OUT=$results "${run[@]}" ${skip:+--skip-tags "$skip"} \
    >"$work/run.log" 2>&1 || rc=$?
seconds=$(python3 -c "import sys; print(float(sys.argv[2]) - \
float(sys.argv[1]))" "$started" "$(date +%s.%N)")
python3 tools/tht_config/measure.py report "$results" \
    "$work/listed-all.txt" "$work/listed-run.txt" "$seconds" "$rc" \
    | tee "$work/report.json"
