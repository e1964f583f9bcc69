#!/bin/bash
# Run tripleo-heat-templates 18.0.0's config-download playbooks on the
# loopback's sshd servers the way a deploy does (Mistral's configure task,
# as the loopback configures it: become off, config_skip_tags skipped),
# and print what ran.  doc/source/contributor/loopback.rst
# ("config-download on the servers") reports the numbers.
#
# On a running loopback (keystone swift mistral heat sshd), its
# environment in this shell, this checkout's `openstack`, the workbook
# installed:
#
#   tools/tht-config-run.sh [ACTION]     # deploy (default), update, upgrade
#
# 1. deploys THT 18.0.0 as plan/stack $THT_CONFIG_STACK (overcloud):
#    two deployed servers at 127.0.0.2 and 127.0.0.3
#    (tests/functional/fixtures/tht18-deployed-server.yaml), unless the
#    stack exists (that deploy configures the servers too);
# 2. `openstack overcloud ACTION --config-download-only`: the action's
#    playbooks against the stack as it is, Heat not asked;
# 3. prints the step's config part (JSON, `plan show-history`): each
#    playbook's status, tasks ran and skipped and seconds, the counts per
#    host, and the step's wall time.
set -eu -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
action=${1:-deploy}
stack=${THT_CONFIG_STACK:-overcloud}
: "${LOOPBACK_SSHD_PORT:?sshd is not started: python3 tools/loopback start sshd}"
case $action in
    deploy|update|upgrade) ;;
    *) echo "usage: $0 [deploy|update|upgrade]" >&2; exit 2 ;;
esac

log() { echo "tht-config-run: $*" >&2; }
cd "$repo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! openstack stack show "$stack" -f value -c id >/dev/null 2>&1; then
    tht=$(bash tools/fetch-tht.sh 18.0.0)
    log "deploying THT 18.0.0 as $stack"
    started=$SECONDS
    # the playbooks' plays name the inventory's group of the stack
    printf 'parameter_defaults:\n  RootStackName: %s\n' "$stack" \
        >"$work/root-stack-name.yaml"
    openstack overcloud deploy --stack "$stack" --templates "$tht" \
        -e "$tht/overcloud-resource-registry-puppet.yaml" \
        -e tests/functional/fixtures/tht18-deployed-server.yaml \
        -e "$work/root-stack-name.yaml" \
        -e tests/functional/fixtures/tht18-container-images.yaml \
        -f json >/dev/null
    log "deployed and configured in $((SECONDS - started)) s"
fi

log "overcloud $action --config-download-only"
started=$SECONDS
rc=0
openstack overcloud "$action" --stack "$stack" --config-download-only \
    $([ "$action" = deploy ] || echo -y) -f json >/dev/null || rc=$?
seconds=$((SECONDS - started))
openstack overcloud plan show-history "$stack" -f json | python3 -c '
import json, sys
row = json.load(sys.stdin)[-1]
print(json.dumps({"step": row["step"], "action": row["action"],
                  "rc": int(sys.argv[1]), "seconds": int(sys.argv[2]),
                  "config": row.get("config")}, indent=1))' "$rc" "$seconds"
exit $rc
