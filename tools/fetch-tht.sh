#!/bin/bash
# Fetch a tripleo-heat-templates release (default 18.0.0) for functional
# tests, benchmarks and the demo, and print the absolute path of the
# extracted tree on stdout (and nothing else there; progress goes to stderr).
#
#   THT=$(tools/fetch-tht.sh)          # 18.0.0
#   THT17=$(tools/fetch-tht.sh 17.0.0)
#
# The PyPI wheel carries no templates; the sdist has them, with
# tools/process-templates.py.  Downloaded once into $LOOPBACK_CACHE/tht/
# (default ~/.cache/tripleoplanclient/tht/), extracted once, reused after.
set -eu -o pipefail

version=${1:-18.0.0}
cache=${LOOPBACK_CACHE:-$HOME/.cache/tripleoplanclient}
dir=$cache/tht
tree=$dir/tripleo-heat-templates-$version
python=${LOOPBACK_PYTHON:-python3}

log() { echo "fetch-tht: $*" >&2; }

check_tree() {
    local f
    for f in overcloud.j2.yaml roles_data.yaml tools/process-templates.py; do
        if [ ! -f "$1/$f" ]; then
            log "missing $f in $1"
            return 1
        fi
    done
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
tree=$dir/tripleo-heat-templates-$version

if [ -d "$tree" ] && check_tree "$tree" 2>/dev/null; then
    echo "$tree"
    exit 0
fi

find_sdist() {
    # the file name's project part may be spelled with - or _
    local f
    for f in "$dir"/tripleo[-_]heat[-_]templates-"$version".tar.gz; do
        if [ -f "$f" ]; then
            echo "$f"
            return 0
        fi
    done
    return 1
}

if ! sdist=$(find_sdist); then
    log "downloading the tripleo-heat-templates==$version sdist from PyPI"
    "$python" -m pip download --quiet --disable-pip-version-check \
        --no-binary :all: --no-deps \
        --dest "$dir" "tripleo-heat-templates==$version" >&2
    sdist=$(find_sdist) || { log "no sdist found in $dir after download"; exit 1; }
fi

log "extracting $(basename "$sdist")"
tmp=$(mktemp -d "$dir/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar --no-same-owner -xzf "$sdist" -C "$tmp"
top=("$tmp"/*)
if [ ${#top[@]} -ne 1 ] || [ ! -d "${top[0]}" ]; then
    log "unexpected layout in $sdist"
    exit 1
fi
check_tree "${top[0]}"
rm -rf "$tree"
mv "${top[0]}" "$tree"
log "templates in $tree"
echo "$tree"
