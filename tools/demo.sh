#!/usr/bin/env bash
# The main job on a fresh machine: install, start the loopback services
# (Keystone, Swift, Mistral, Heat, Ironic with fake hardware, sshd's
# servers at 127.0.0.2..), and walk an overcloud through its whole life:
# nodes.json (a malformed one refused first) -> node import -> introspect
# (the demo plays the ramdisk agent) -> profiles -> provide -> plan create
# with THT 17.0.0 -> node provision (the servers: sshd's 127.0.0.2 and .3)
# -> pre-deployment validations -> deploy (Heat, then config-download on
# the servers) with the post-deployment validations -> update with no -e
# -> upgrade preview and upgrade to THT 18.0.0 with no -e -> scale down
# one node -> history, diff, export.
#
#   bash tools/demo.sh       DEMO_DIR (~/tripleoplan-demo): its files and
#                            the export; DEMO_KEEP=1 leaves the services
#                            running; LOOPBACK_*_PORT move them
#                            (doc/source/contributor/loopback.rst)
#
# Each step's heading and progress go to stderr, its table to stdout; the
# run ends with the plan's history and each step's seconds. A failed step
# stops the demo (exit status not 0) and is named.
set -eu -o pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
venv=$cache/venvs/test
work=${DEMO_DIR:-$HOME/tripleoplan-demo}
plan=overcloud
mkdir -p "$work"
work=$(cd "$work" && pwd)
# The demo's own services' state, wiped when they start: every run begins
# with an empty cloud, the tests' (.loopback) left alone. In the checkout:
# PostgreSQL's user must reach it.
export LOOPBACK_DIR=$repo/.loopback-demo
# With Keystone, as on an undercloud (not the mode a last start recorded).
export LOOPBACK_KEYSTONE=1

names=() seconds=() states=() current='' started=0 begun=$SECONDS
summary() {
    printf '\n%-28s %7s  %s\n' step seconds status
    local i
    for i in "${!names[@]}"; do
        printf '%-28s %7s  %s\n' "${names[$i]}" "${seconds[$i]}" \
            "${states[$i]}"
    done
    printf '%-28s %7s\n' total $((SECONDS - begun))
}
step() {    # name, what it shows: the next step's heading
    done_step ok
    current=$1 started=$SECONDS
    printf '\n== [%s] %s: %s\n' "$((${#names[@]} + 1))" "$1" "$2" >&2
}
done_step() {
    if [ -n "$current" ]; then
        names+=("$current") seconds+=($((SECONDS - started))) states+=("$1")
        current=''
    fi
}
finish() {
    local rc=$?
    if [ -n "$current" ]; then
        done_step "FAILED (exit status $rc)"
        echo "demo: the step \"${names[-1]}\" failed (exit status $rc)." >&2
    fi
    summary >&2
    if [ "${DEMO_KEEP:-0}" = 1 ]; then
        cat >&2 <<EOF

The services keep running (DEMO_KEEP=1). To use them from this checkout:
  cd $repo
  export LOOPBACK_DIR=$LOOPBACK_DIR PATH=$venv/bin:\$PATH
  eval "\$(python3 tools/loopback env)"
  openstack overcloud plan show-history $plan
Stop them with: LOOPBACK_DIR=$LOOPBACK_DIR python3 tools/loopback stop
EOF
    elif [ -n "${stop_services:-}" ]; then
        python3 tools/loopback stop >&2 || true
    fi
    echo "demo: its files, the export included, are in $work" >&2
    exit $rc
}
trap finish EXIT

refused() {     # a command that must be refused: its row and exit status
    local rc=0
    "$@" || rc=$?
    echo "(exit status $rc)" >&2
    [ "$rc" -ne 0 ] || { echo "demo: that was not refused" >&2; return 1; }
}

step install "the system packages, the client's venv"
bash tools/bootstrap.sh >&2
[ -x "$venv/bin/openstack" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r requirements.txt >&2
"$venv/bin/pip" install -q --no-deps -e . >&2
export PATH=$venv/bin:$PATH

step services "start keystone swift mistral heat ironic sshd (empty)"
python3 tools/loopback stop >&2 || true
stop_services=1
python3 tools/loopback start --clean keystone swift mistral heat ironic \
    sshd >&2
eval "$(python3 tools/loopback env)"
openstack overcloud workbook install
tht=$(bash tools/fetch-tht.sh 17.0.0)
tht18=$(bash tools/fetch-tht.sh 18.0.0)

# Three fake-hardware machines (tools/demo/nodes.json): their BMCs, MACs,
# the profile each may serve, the agent's cpu and memory; then the same
# with one MAC cut short.
cp tools/demo/nodes.json "$work/nodes.json"
sed 's/"52:54:00:de:00:02"/"52:54:00:de:00"/' "$work/nodes.json" \
    > "$work/nodes-malformed.json"

step "refused import" "nodes-malformed.json refused, Ironic unchanged"
refused openstack overcloud node import "$work/nodes-malformed.json"
echo "Ironic's nodes now: $(openstack overcloud profiles list --all \
    -f value -c name | wc -l)" >&2

step "node import" "nodes.json: 3 nodes, manageable"
openstack overcloud node import "$work/nodes.json"

step "node introspect" "the demo plays each node's ramdisk agent"
OS_TOKEN=$(openstack token issue -f value -c id) \
    python3 tools/demo/agent.py "$work/nodes.json" "$LOOPBACK_IRONIC_URL" \
    300 &
agent=$!
openstack overcloud node introspect --all-manageable --timeout 300
wait $agent

step profiles "demo-node-0 control, the others compute"
openstack overcloud node tag demo-node-0 --profile control
openstack overcloud node tag demo-node-1 demo-node-2 --profile compute
openstack overcloud profiles list --all

step "node provide" "the nodes available"
openstack overcloud node provide demo-node-0 demo-node-1 demo-node-2

# The ctlplane is 127.0.0.0/24 here: the VIP 127.0.0.250 where nothing
# listens; the playbooks' plays name the stack's group (RootStackName).
cat > "$work/ctlplane.yaml" <<YAML
# The undercloud's ctlplane network as deployed servers see it.
parameter_defaults:
  RootStackName: $plan
  CtlplaneNetworkAttributes:
    network: {dns_domain: localdomain., mtu: 1500, name: ctlplane,
              tags: [127.0.0.0/24]}
    subnets:
      ctlplane-subnet: {cidr: 127.0.0.0/24, dns_nameservers: [],
                        gateway_ip: 127.0.0.1, host_routes: [],
                        ip_version: 4, name: ctlplane-subnet}
  ControlPlaneVipData:
    name: control_virtual_ip
    network: {tags: [127.0.0.0/24]}
    fixed_ips: [{ip_address: 127.0.0.250}]
    subnets: [{ip_version: 4}]
  VipPortMap: {}
YAML
# 17.0.0 has one image parameter fewer than 18.0.0.
grep -v ContainerGlanceApiInternalConfigImage \
    tests/functional/fixtures/tht18-container-images.yaml \
    > "$work/container-images.yaml"
cat > "$work/my-settings.yaml" <<YAML
# The operator's own settings, outside the templates tree.
parameter_defaults:
  NtpServer: [pool.ntp.org]
  TimeZone: UTC
YAML

step "plan create" "$plan, THT 17.0.0, rendered in Mistral"
# From the work directory: the plan records the files as named here
# (my-settings.yaml), and update and upgrade find them there again.
(cd "$work" && openstack overcloud plan create "$plan" --templates "$tht" \
    -e "$tht/overcloud-resource-registry-puppet.yaml" \
    -e "$tht/environments/low-memory-usage.yaml" \
    -e ctlplane.yaml -e container-images.yaml -e my-settings.yaml)

# Each server's ctlplane address is one of sshd's servers.
cat > "$work/baremetal-deployment.yaml" <<YAML
- name: Controller
  count: 1
  defaults: {profile: control}
  instances:
    - hostname: $plan-controller-0
      networks: [{network: ctlplane, fixed_ip: 127.0.0.2}]
- name: Compute
  count: 1
  defaults: {profile: compute}
  instances:
    - hostname: $plan-novacompute-0
      networks: [{network: ctlplane, fixed_ip: 127.0.0.3}]
YAML
step "node provision" "a controller at 127.0.0.2, a compute at 127.0.0.3"
openstack overcloud node provision --stack "$plan" \
    --ctlplane-cidr 127.0.0.0/24 --overcloud-ssh-key "$LOOPBACK_SSHD_KEY.pub" \
    -o "$work/baremetal-environment.yaml" "$work/baremetal-deployment.yaml"

step "pre-deployment validations" "install ours, run the group"
openstack overcloud validation install
openstack overcloud validation run --group pre-deployment --plan "$plan"

step deploy "Heat, config-download on the servers, post-deployment validations"
openstack overcloud deploy --stack "$plan" --run-post-validations

step update "no -e (Heat walks the whole stack: several minutes)"
openstack overcloud update --stack "$plan" -y

# The operator regenerates the images file for 18.0.0, same path.
cp tests/functional/fixtures/tht18-container-images.yaml \
    "$work/container-images.yaml"
step "upgrade preview" "--templates <THT 18.0.0>: what it would do, nothing changed"
openstack overcloud upgrade preview --stack "$plan" --templates "$tht18"

step upgrade "--templates <THT 18.0.0>, no -e (several minutes)"
openstack overcloud upgrade --stack "$plan" --templates "$tht18" -y

step "scale down" "overcloud node delete $plan-novacompute-0"
openstack overcloud node delete --stack "$plan" -y "$plan-novacompute-0"
openstack overcloud profiles list --all

step "plan diff" "the deploy (THT 17.0.0) against the plan now (18.0.0)"
deployed=$(openstack overcloud plan show-history "$plan" -f value \
    -c step -c action | awk '$2 == "deploy" {print $1}')
openstack overcloud plan diff "$plan" --from "$deployed" --no-diff

step "plan export" "kept in $work"
openstack overcloud plan export "$plan" -o "$work/$plan.tar.gz" \
    --force-overwrite

step "plan show-history" "every step of the plan's life"
openstack overcloud plan show-history "$plan"
done_step ok
