#!/bin/bash
# The scale-down figures on tripleo-heat-templates 18.0.0 (issue 40), on
# a running loopback (keystone swift mistral heat sshd), its environment
# in this shell, this checkout's `openstack`, the workbook installed:
#
#   tools/tht-scale-down.sh
#
# 1. deploys THT 18.0.0 as deployed servers, 1 Controller and 3 Computes
#    at 127.0.0.3, .4, .5 (tests/functional/fixtures/tht18-deployed-server
#    .yaml, tht18-three-computes.yaml), configured (config-download);
# 2. `overcloud node delete overcloud-novacompute-1`: one update step;
# 3. `overcloud update` with no arguments (THT 18's update prepare: Heat
#    walks the whole stack with lifecycle/update-prepare.yaml, then the
#    update's playbooks run);
# and prints, as JSON, each command's seconds and status, and before and
# after each: the Compute group's members in Heat (index -> the member's
# hostname and ctlplane address outputs) and the stack's outputs
# RoleNetHostnameMap / RoleNetIpMap for Compute's ctlplane.
set -eu -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
stack=${THT_SCALE_STACK:-overcloud}
cd "$repo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log() { echo "tht-scale-down: $*" >&2; }

timed() {   # name, command...: {"seconds", "status", "rc"} into $work/name
    local name=$1 started=$SECONDS rc=0
    shift
    "$@" -f json >"$work/$name.out" || rc=$?
    python3 -c '
import json, sys
row = json.load(open(sys.argv[1]))
print(json.dumps({"seconds": int(sys.argv[2]), "rc": int(sys.argv[3]),
                  "status": row.get("status"),
                  "operation": row.get("operation")}))' \
        "$work/$name.out" $((SECONDS - started)) $rc >"$work/$name.json"
    log "$name: $(cat "$work/$name.json")"
}

snapshot() {    # what Heat has of the Computes
    python3 - "$stack" >"$work/$1.json" <<'PY'
import json, subprocess, sys
stack = sys.argv[1]
def cli(*args):
    return json.loads(subprocess.run(('openstack',) + args + ('-f', 'json'),
                      check=True, capture_output=True, text=True).stdout)
group = cli('stack', 'resource', 'show', stack, 'Compute')
members = {}
for member in cli('stack', 'resource', 'list', group['physical_resource_id']):
    nested = member['physical_resource_id']
    out = {o: cli('stack', 'output', 'show', nested, o)['output_value']
           for o in ('hostname', 'ip_address')}
    members[member['resource_name']] = dict(
        out, status=member['resource_status'])
outputs = {k: cli('stack', 'output', 'show', stack, k)['output_value']
           for k in ('RoleNetHostnameMap', 'RoleNetIpMap')}
print(json.dumps({
    'members': dict(sorted(members.items(), key=lambda i: int(i[0]))),
    'RoleNetHostnameMap.Compute.ctlplane':
        outputs['RoleNetHostnameMap']['Compute']['ctlplane'],
    'RoleNetIpMap.Compute.ctlplane':
        outputs['RoleNetIpMap']['Compute']['ctlplane']}))
PY
    log "$1: $(cat "$work/$1.json")"
}

tht=$(bash tools/fetch-tht.sh 18.0.0)
printf 'parameter_defaults:\n  RootStackName: %s\n' "$stack" \
    >"$work/root-stack-name.yaml"
if ! openstack stack show "$stack" -f value -c id >/dev/null 2>&1; then
    log "deploying THT 18.0.0 as $stack (3 Computes)"
    timed deploy openstack overcloud deploy --stack "$stack" \
        --templates "$tht" -e "$tht/overcloud-resource-registry-puppet.yaml" \
        -e tests/functional/fixtures/tht18-deployed-server.yaml \
        -e tests/functional/fixtures/tht18-three-computes.yaml \
        -e "$work/root-stack-name.yaml" \
        -e tests/functional/fixtures/tht18-container-images.yaml
else
    echo '{}' >"$work/deploy.json"
fi
snapshot before
timed node_delete openstack overcloud node delete --stack "$stack" -y \
    overcloud-novacompute-1
snapshot after_delete
timed update openstack overcloud update --stack "$stack" -y
snapshot after_update
python3 -c '
import json, os, sys
work = sys.argv[1]
print(json.dumps({n: json.load(open(os.path.join(work, n + ".json")))
                  for n in ("deploy", "before", "node_delete",
                            "after_delete", "update", "after_update")},
                 indent=1))' "$work"
