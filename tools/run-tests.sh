#!/usr/bin/env bash
# Pass every test from a fresh machine: install what is needed (system
# packages, the test venv, THT, the coexistence venv, the loopback
# services' venvs) and build the documentation (warnings are errors),
# then, in a network namespace of its own where only lo is up
# (tools/netns.py: nothing leaves 127.0.0.0/8, a stray address fails at
# once with "Network is unreachable"), start the loopback services
# (PostgreSQL, Keystone, Swift, RabbitMQ, Mistral with our actions, Heat;
# Ironic for the functional run that has the node tests, sshd for its
# validations on a deployed server), install our workbook, run unit +
# functional tests (the THT story with 120 s tokens, and beside it the
# record's concurrency and past-step tests and the plan-level tests; then
# the failures test; the record's tests again on a second Swift with
# three replicas and one object server stopped; one deploy story without
# Keystone), stop them; then pep8, and each phase's time.
#   tools/run-tests.sh            everything (as root: sshd, the namespace)
#   tools/run-tests.sh unit       unit tests and pep8 only: no apt, no
#                                 services, one venv (python3 and pip);
#                                 the namespace where the kernel gives a
#                                 user one (else on the machine's network,
#                                 said on stderr)
set -eu -o pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case $what in all|unit) ;; *)
    echo "usage: $0 [all|unit]" >&2; exit 2 ;;
esac
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
venv=$cache/venvs/test

# Everything that needs more than 127.0.0.1, then the tests in the
# namespace: this script again, with RUN_TESTS_PHASE=tests.
if [ "${RUN_TESTS_PHASE:-install}" = install ]; then
    # System packages serve only the loopback services of the full run.
    if [ "$what" = all ]; then
        bash tools/bootstrap.sh >&2
    fi
    if [ ! -x "$venv/bin/stestr" ]; then
        python3 -m venv "$venv"
    fi
    # constraints.txt: the versions CI ran with (contributor/testing.rst)
    "$venv/bin/pip" install -q -c constraints.txt \
        -r requirements.txt -r test-requirements.txt >&2
    "$venv/bin/pip" install -q --no-deps -e . >&2
    # tripleo-common, the reference the config-download tree is compared
    # with (tests/unit/config), and the upstream validations catalogue
    # (tests/functional/validations/test_catalogue.py: only their data
    # files under share/ansible): without their dependencies
    # (test-requirements)
    "$venv/bin/pip" install -q --no-deps -c constraints.txt tripleo-common \
        tripleo-validations validations-common >&2
    # pytest's sdist, for the Jenkins JUnit XSD it holds: the schema the
    # validations' JUnit XML is checked against (tests/unit/validations)
    if [ ! -f "$cache/pytest/pytest-8.3.3.tar.gz" ]; then
        "$venv/bin/pip" download -q --no-deps --no-binary :all: \
            --dest "$cache/pytest" pytest==8.3.3 >&2
    fi
    docs=0
    isolate=(python3 tools/netns.py --optional --)
    if [ "$what" = all ]; then
        # The unit test of the password scan reads THT 18.0.0 too; the
        # THT story and the rendering tests 17.0.0 (fetched here: the
        # tests' namespace reaches no registry).
        THT_DIR=$(bash tools/fetch-tht.sh)
        bash tools/fetch-tht.sh 17.0.0 >/dev/null
        # python-tripleoclient from PyPI beside this checkout (created
        # once, about a minute) for tests/functional/osc/test_coexistence.py.
        COEXIST_VENV=$(bash tools/coexist-venv.sh)
        export THT_DIR COEXIST_VENV
        # The services' venvs (and this checkout in Mistral's): start,
        # in the namespace, then finds them installed.
        python3 tools/loopback install keystone swift mistral heat \
            ironic sshd >&2
        # The docs build has a venv of its own (Sphinx, reno).
        bash tools/build-docs.sh >&2 || docs=1
        isolate=(python3 tools/netns.py --)
    fi
    RUN_TESTS_PHASE=tests RUN_TESTS_DOCS=$docs \
        RUN_TESTS_INSTALL_SECONDS=$SECONDS exec "${isolate[@]}" \
        bash "$0" "$what"
fi
# Each phase's wall time, for the summary at the end (CI has 45 minutes:
# know where they go).
phases=("$(printf '%-46s %5d s' 'install, docs' \
    "${RUN_TESTS_INSTALL_SECONDS:-0}")")
mark=$SECONDS
phase() {  # name: the seconds since the last phase ended
    phases+=("$(printf '%-46s %5d s' "$1" $((SECONDS - mark)))")
    mark=$SECONDS
}
export PATH=$venv/bin:$PATH
# Here only lo: proved before any test runs (the unit mode without a
# namespace says so instead).
if [ "$what" = all ] || [ "${TRIPLEOPLAN_NETNS:-}" = 1 ]; then
    python3 tools/netns.py check >&2
fi

count() {  # add the last stestr run's passed and failed [stestr args]
    # stestr last exits 1 after a failed run: under set -e, || true
    local p f
    read -r p f < <({ stestr "$@" last 2>/dev/null || true; } |
        awk '/ - Passed:/ {p=$3} / - Failed:/ {f=$3}
             END {print (p==""?0:p), (f==""?0:f)}')
    passed=$((passed + p)) failed=$((failed + f))
    # CI shows only the tail of this log: keep each failure (its id and
    # traceback: its first 20 and last 60 lines a run) for the report
    # printed at the very end.
    stestr "$@" last --subunit 2>/dev/null |
        subunit-filter --no-success --no-skip --no-passthrough |
        subunit2pyunit 2>&1 | awk '/^(FAIL|ERROR): /,0' |
        grep -v '^Ran \|^FAILED (' | awk '
            NR <= 20 {print; next} {last[NR % 60] = $0; n = NR}
            END {if (n > 80) print "[...]"
                 for (i = (n > 80 ? n - 59 : 21); i <= n; i++)
                     print last[i % 60]}' >>"$failures" || true
}
failures=$(mktemp)

passed=0 failed=0
status=${RUN_TESTS_DOCS:-0}
# The package's unit tests, then the tools' and the docs' (a test path
# each: tests/unit mirrors the package).
for tests in unit tools docs; do
    OS_TEST_PATH=./tests/$tests stestr run || status=1
    count
done
phase 'unit, tools and docs tests'

if [ "$what" = all ]; then
    trap 'python3 tools/loopback stop >&2 || true' EXIT
    # Keystone in front of Swift, Heat and Mistral. Mistral's actions call
    # only the endpoints of the caller's catalog and those its
    # configuration names: the second Swift below (no auth) is one.
    r3_swift=http://127.0.0.1:28080/v1/AUTH_tripleo
    start() {  # [more services]
        LOOPBACK_MISTRAL_EXTRA_SWIFT_URLS=$r3_swift \
            python3 tools/loopback start keystone swift mistral heat "$@" >&2
        eval "$(python3 tools/loopback env)"
        openstack overcloud workbook install -f value >&2
    }
    functional() {  # stestr arguments
        OS_TEST_PATH=./tests/functional stestr run "$@" || status=1
        count
    }
    # The record's concurrency and past-step tests run beside the THT
    # story below on the loopback Swift, then on three replicas (not in
    # the first run).
    record='plan\.test_record\.TestConcurrentWriters|plan\.test_past\.'
    record+='|plan\.test_concurrent_settings\.'
    # Ironic (fake hardware) for the node tests, and sshd (started before
    # Mistral, whose configuration then names it) for the validations
    # that log in to a server: here they fail, not skip, when it does not
    # answer (tests/functional/base.ironic_url,
    # tests/functional/validations/test_ssh.sshd_port).
    LOOPBACK_KEYSTONE=1 LOOPBACK_KEYSTONE_TOKEN_EXPIRATION=3600 \
        start ironic sshd
    phase 'services started (with Ironic, sshd)'
    # Two workers, the test classes shared out by their measured seconds
    # (tools/functional_workers.py, tests/functional/class_seconds.txt):
    # a clean clone has no timing history, and stestr then deals classes
    # out in name order (CI's workers once took 20.6 and 14.6 min).
    workers=$(mktemp --suffix .yaml)
    share=(--concurrency 2)
    # Plan-level tests (Swift and Mistral, no Ironic, no server) run
    # beside the story too: it leaves a core idle most of its time.
    plans='plan\.test_(commands|errors|show|library)\.'
    plans+='|hardening\.test_(names|render|hidden|paths|input)\.'
    later="stack\.test_deploy_tht|$record|$plans"  # run in the THT phase
    if OS_TEST_PATH=./tests/functional stestr list \
            --exclude-regex "$later" 2>/dev/null |
            python3 tools/functional_workers.py 2 >"$workers"; then
        share=(--worker-file "$workers")
    fi
    FUNCTIONAL_REQUIRE_IRONIC=1 FUNCTIONAL_REQUIRE_SSHD=1 \
        functional "${share[@]}" --exclude-regex "$later"
    rm -f "$workers"
    phase 'functional tests (2 workers)'
    python3 tools/loopback stop ironic >&2

    # The tripleo-heat-templates story with tokens that expire after 120 s
    # (keystoneauth then asks for a new one before each request): the
    # deploy, update and upgrade of minutes outlive every token.
    LOOPBACK_KEYSTONE=1 LOOPBACK_KEYSTONE_TOKEN_EXPIRATION=120 start

    # Beside the story (one test of ~15 min), one after the other, in a
    # stestr repository of their own (.loopback-r3/.stestr, runs joined
    # with --combine): the record's tests on the loopback Swift (~3 min),
    # the plan-level tests ($plans, ~6 min alone). They share Keystone, Mistral and Heat
    # with the story (their own plans and stacks, nothing counted across
    # tests) and run with its 120 s tokens. After the story, the record's
    # tests again on a second Swift with three replicas and one object
    # server stopped (the client chooses it among the endpoints Mistral's
    # actions may call): alone, as CI ran them when they passed; beside
    # the story's load a replica's lag grew past what they allow (stop 35).
    r3=(env LOOPBACK_DIR="$PWD/.loopback-r3" LOOPBACK_KEYSTONE=0
        LOOPBACK_SWIFT_REPLICAS=3
        LOOPBACK_SWIFT_PORT=28080 LOOPBACK_SWIFT_OBJECT_PORT=26010
        LOOPBACK_SWIFT_CONTAINER_PORT=26011 LOOPBACK_SWIFT_ACCOUNT_PORT=26012
        LOOPBACK_MEMCACHED_PORT=26013 LOOPBACK_SWIFT_LOG_PORT=26014
        LOOPBACK_SWIFT_RSYNC_PORT=26026)
    trap '"${r3[@]}" python3 tools/loopback stop >&2 || true
          python3 tools/loopback stop >&2 || true' EXIT
    "${r3[@]}" python3 tools/loopback start --clean swift >&2
    "${r3[@]}" python3 tools/loopback down swift-object-server-2 >&2
    mkdir -p .loopback-r3
    beside_repo=(--repo-url "$PWD/.loopback-r3")
    beside() {
        local rc=0 run=(env OS_TEST_PATH=./tests/functional stestr
                        "${beside_repo[@]}" run --concurrency 1)
        "${run[@]}" "$record" || rc=1
        "${run[@]}" --combine "$plans" || rc=1
        return $rc
    }
    beside_log=$PWD/.loopback-r3/functional.log
    beside >"$beside_log" 2>&1 &
    beside_pid=$!
    functional --concurrency 1 'stack\.test_deploy_tht\.'
    phase 'THT story (120 s tokens)'
    wait "$beside_pid" || status=1
    phase 'beside it: what was left after the story'
    # The failures test deploys THT 18 too: alone, after the story. Beside
    # it Heat once refused its stack create with a yaql parse error in
    # network/service_net_map.yaml (CI of 2026-11-29; not reproduced
    # alone).
    functional 'stack\.test_deploy_tht_failures\.'
    phase 'the failures test'
    echo "--- beside the story: the record's and the plan-level tests"
    cat "$beside_log"
    count "${beside_repo[@]}"
    FUNCTIONAL_SWIFT_URL=$r3_swift functional "$record"
    phase "the record's tests on three replicas"

    # Without Keystone (Swift without auth, Heat noauth, Mistral auth
    # off): the same services restarted so, and one deploy story.
    LOOPBACK_KEYSTONE=0 start
    functional 'stack\.test_deploy\.TestDeployStory'
    phase 'a deploy story without Keystone'
fi

flake8 tripleoplanclient tests tools || status=1
phase flake8
if [ "${RUN_TESTS_DOCS:-0}" != 0 ]; then
    echo "=== the documentation build failed (its output is above)"
fi
if [ -s "$failures" ]; then
    echo "=== the failed tests, as each run reported them"
    cat "$failures"
fi
rm -f "$failures"
echo "=== phases"
printf '%s\n' "${phases[@]}"
printf '%-46s %5d s\n' total $((${RUN_TESTS_INSTALL_SECONDS:-0} + SECONDS))
echo "tests: $passed passed, $failed failed"
exit $status
