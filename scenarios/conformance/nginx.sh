#!/usr/bin/env bash
# Starts nginx, configured as Http11Probe configures it for its own score (nginx.conf and routes.js beside this
# script), on a loopback port, in the foreground, until it is stopped (Ctrl-C or a TERM to this script's process):
#
#   scenarios/conformance/nginx.sh PORT
#
# then, from another shell: scripts/conformance.sh HTTP11PROBE_CHECKOUT --url http://127.0.0.1:PORT
# nginx and its njs module come from Debian's packages (nginx-light, libnginx-mod-http-js); as root, this script
# installs them when they are missing. nginx runs from a fresh temporary folder (config, pid, logs, temp files),
# removed at the end; the error log is copied to the standard error stream as it is written.
set -euo pipefail

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    ''|*[!0-9]*) echo "nginx.sh: give the port to listen on (see --help)" >&2; exit 2 ;;
esac
port="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module=/usr/lib/nginx/modules/ngx_http_js_module.so

if ! command -v nginx >/dev/null || [[ ! -f $module ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "nginx.sh: needs nginx and its njs module: apt-get install nginx-light libnginx-mod-http-js (as root)" >&2
        exit 1
    fi

    # The packages' own start of nginx (its service on port 80) is held back: this script starts its own.
    policy=/usr/sbin/policy-rc.d
    had_policy=false
    [[ -e $policy ]] && had_policy=true
    $had_policy || { printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; }
    apt-get install -y --no-install-recommends nginx-light libnginx-mod-http-js >/dev/null
    $had_policy || rm -f "$policy"
fi

prefix="$(mktemp -d)"
sed "s/@PORT@/$port/" "$here/nginx.conf" >"$prefix/nginx.conf"
cp "$here/routes.js" "$prefix/routes.js"
touch "$prefix/error.log"
tail -F -n +1 "$prefix/error.log" >&2 &
tail_pid=$!
nginx_pid=""
cleanup() {
    if [[ -n $nginx_pid ]]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
    kill "$tail_pid" 2>/dev/null || true
    rm -rf "$prefix"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

nginx -t -q -p "$prefix" -c "$prefix/nginx.conf"
echo "nginx.sh: nginx $(nginx -v 2>&1 | sed 's|.*/||') on http://127.0.0.1:$port"
nginx -p "$prefix" -c "$prefix/nginx.conf" &
nginx_pid=$!
wait "$nginx_pid"
