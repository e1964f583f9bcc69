#!/usr/bin/env bash
# The main job on a fresh machine: install, start the loopback services, and
# walk a real THT 18.0.0 plan through its life: create (rendered in
# Mistral) -> amend -> show-history -> export. (deploy / update join when
# Heat does.)
# Progress goes to stderr; the JSON results to stdout.
set -eu -o pipefail
cd "$(dirname "$0")/.."
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
venv=$cache/venvs/test

bash tools/bootstrap.sh >&2
[ -x "$venv/bin/openstack" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r requirements.txt >&2
"$venv/bin/pip" install -q --no-deps -e . >&2
export PATH=$venv/bin:$PATH

trap 'python3 tools/loopback.py stop >&2 || true' EXIT
python3 tools/loopback.py start swift mistral >&2
eval "$(python3 tools/loopback.py env)"
openstack overcloud workbook install -f json
tht=$(bash tools/fetch-tht.sh)
plan=${DEMO_PLAN:-overcloud}
work=$(mktemp -d)

cat > "$work/my-settings.yaml" <<YAML
# The operator's own environment, outside the templates tree.
resource_registry:
  OS::TripleO::Services::Ptp: $tht/deployment/time/ptp-baremetal-ansible.yaml
parameter_defaults:
  NtpServer: [pool.ntp.org]
YAML
printf 'parameter_defaults:\n  ControllerCount: 1\n  ComputeCount: 1\n' \
    > "$work/scale.yaml"

step() { printf '\n== %s\n' "$*" >&2; }

if openstack overcloud plan show-history "$plan" -f value -c id >/dev/null 2>&1; then
    step "removing the plan $plan left by an earlier demo"
    openstack overcloud plan delete -y "$plan"
fi
step "plan create $plan: THT 18.0.0 + 2 THT environments + 1 of our own"
openstack overcloud plan create "$plan" --templates "$tht" \
    -e "$tht/environments/docker-ha.yaml" \
    -e "$tht/environments/network-environment.yaml" \
    -e "$work/my-settings.yaml" \
    -n "$tht/network-data-samples/default-network-isolation.yaml" -f json
step "plan amend: add scale.yaml (only that file travels)"
openstack overcloud plan amend "$plan" -e "$work/scale.yaml" -f json
step "plan amend: my-settings.yaml changed, updated in place"
echo '  TimeZone: UTC' >> "$work/my-settings.yaml"
openstack overcloud plan amend "$plan" -e "$work/my-settings.yaml" -f json
step "plan show-history"
openstack overcloud plan show-history "$plan" -f json
step "plan export"
openstack overcloud plan export "$plan" --output-file "$work/$plan.tar.gz" \
    --force-overwrite -f json
step "plan list"
openstack overcloud plan list -f json
rm -rf "$work"
