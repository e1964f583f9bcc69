#!/usr/bin/env bash
# System packages the loopback services use (Debian). Safe to run again.
#   memcached        Swift's cache (optional: Swift runs without it, ~2x slower)
#   rabbitmq-server  the message broker of Mistral and Heat
#   postgresql       the database of Mistral and Heat
#   rsync            whole-database copies between Swift's replicas
#                    (LOOPBACK_SWIFT_REPLICAS=3 only)
#   bubblewrap       the sandbox (bwrap) validation playbooks run in
#   openssh-server   sshd, the "deployed server" validations log in to
# tools/loopback runs private instances of these on 127.0.0.1 with their
# state under its state directory; the system services the packages bring
# are neither needed nor touched.
set -eu -o pipefail
need=()
command -v memcached >/dev/null || need+=(memcached)
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || need+=(rabbitmq-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null ||
    need+=(postgresql)
command -v rsync >/dev/null || need+=(rsync)
command -v bwrap >/dev/null || need+=(bubblewrap)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${need[@]}"
    else
        echo "bootstrap: please install ${need[*]} (as root:" \
             "apt-get install ${need[*]}; Swift runs without memcached," \
             "about 2x slower; Mistral and Heat need the other two)" >&2
    fi
fi
