#!/usr/bin/env bash
# System packages the loopback services use. Safe to run again.
set -eu -o pipefail
need=()
command -v memcached >/dev/null || need+=(memcached)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
    else
        echo "bootstrap: please install ${need[*]} (Swift runs without" \
             "memcached, about 2x slower)" >&2
    fi
fi
