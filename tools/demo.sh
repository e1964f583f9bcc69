#!/usr/bin/env bash
# The main job on a fresh machine: install, start the loopback services, and
# walk a real overcloud through its life: plan create with THT 17.0.0
# (rendered in Mistral) -> amend -> deploy (Heat, deployed servers) -> update
# with no -e -> the images file regenerated for 18.0.0 -> upgrade preview
# (Heat's own answer, nothing changed) -> upgrade --templates
# <18.0.0> with no -e -> show-history -> diff -> export.
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

trap 'python3 tools/loopback stop >&2 || true' EXIT
# With Keystone, as on an undercloud (not the mode a last start recorded).
export LOOPBACK_KEYSTONE=${LOOPBACK_KEYSTONE:-1}
python3 tools/loopback start swift mistral heat >&2
eval "$(python3 tools/loopback env)"
openstack overcloud workbook install -f json
tht=$(bash tools/fetch-tht.sh 17.0.0)
tht18=$(bash tools/fetch-tht.sh 18.0.0)
plan=${DEMO_PLAN:-overcloud}
work=$(mktemp -d)

# The same deployed-server nodes serve both releases; 17.0.0 has one image
# parameter fewer than 18.0.0.
cp tests/functional/fixtures/tht18-deployed-server.yaml "$work/"
grep -v ContainerGlanceApiInternalConfigImage \
    tests/functional/fixtures/tht18-container-images.yaml \
    > "$work/container-images.yaml"
cat > "$work/my-settings.yaml" <<YAML
# The operator's own settings, outside the templates tree.
parameter_defaults:
  NtpServer: [pool.ntp.org]
YAML

step() { printf '\n== %s\n' "$*" >&2; }

if openstack stack show "$plan" -f value -c id >/dev/null 2>&1; then
    step "removing the stack $plan left by an earlier demo"
    openstack stack delete -y --wait "$plan" >&2
fi
if openstack overcloud plan show-history "$plan" -f value -c id >/dev/null 2>&1; then
    step "removing the plan $plan left by an earlier demo"
    openstack overcloud plan delete -y "$plan"
fi
step "plan create $plan: THT 17.0.0, 5 THT environments + 3 of our own"
openstack overcloud plan create "$plan" --templates "$tht" \
    -e "$tht/overcloud-resource-registry-puppet.yaml" \
    -e "$tht/environments/low-memory-usage.yaml" \
    -e "$tht/environments/debug.yaml" \
    -e "$tht/environments/sshd-banner.yaml" \
    -e "$work/tht18-deployed-server.yaml" \
    -e "$work/container-images.yaml" \
    -e "$work/my-settings.yaml" -f json
step "plan amend: add login-defs.yaml (only that file travels)"
openstack overcloud plan amend "$plan" \
    -e "$tht/environments/login-defs.yaml" -f json
step "plan amend: my-settings.yaml changed, updated in place"
echo '  TimeZone: UTC' >> "$work/my-settings.yaml"
openstack overcloud plan amend "$plan" -e "$work/my-settings.yaml" -f json
step "overcloud deploy: Heat creates the stack from the plan (a few minutes)"
openstack overcloud deploy --stack "$plan" -f json
step "overcloud deploy again: nothing changed, Heat is not called"
openstack overcloud deploy --stack "$plan" -f json
step "overcloud update, no -e: the recorded list + lifecycle/update-prepare.yaml"
openstack overcloud update --stack "$plan" -y -f json
step "the images file regenerated for 18.0.0 at the same path"
cp tests/functional/fixtures/tht18-container-images.yaml \
    "$work/container-images.yaml"
step "overcloud upgrade preview --templates <18.0.0>: what it would do"
openstack overcloud upgrade preview --stack "$plan" --templates "$tht18" \
    -f json
step "overcloud upgrade --templates <18.0.0>, no -e (several minutes)"
openstack overcloud upgrade --stack "$plan" --templates "$tht18" -y -f json
step "plan show-history"
openstack overcloud plan show-history "$plan" -f json
step "plan diff: the update step (17.0.0) against the plan now (18.0.0)"
openstack overcloud plan diff "$plan" --from 6 --no-diff -f json
step "plan export"
openstack overcloud plan export "$plan" --output-file "$work/$plan.tar.gz" \
    --force-overwrite -f json
step "plan list"
openstack overcloud plan list -f json
rm -rf "$work"
