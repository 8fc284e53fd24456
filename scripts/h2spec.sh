#!/usr/bin/env bash
# Runs h2spec (github.com/summerwind/h2spec, an HTTP/2 conformance suite built outside this repository) against this
# server's two HTTP/2 listeners: h2c:// (prior knowledge) and https:// (h2 by ALPN, over TLS).
#
#   scripts/h2spec.sh H2SPEC_BINARY [--out DIR] [--no-build]
#
# The Release build starts on free loopback ports with a self-signed certificate made for the run (openssl), and
# h2spec runs once per listener with -P '/baseline11?a=10000&b=20000' and a 3 s timeout per case: a route whose
# handler reads a request's content, so h2spec's content-length cases are judged (a handler that answers from the head
# alone is answered before the content, RFC 9113 §8.1), with a body of 5 bytes (h2spec skips its negative-window test
# when the body is shorter). The reports go to DIR (default scenarios/runs/h2spec-<UTC time>/,
# which git ignores): h2c.txt, tls.txt, server.log. Exit code: 0 when every case passed on both, 1 otherwise.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
h2spec="" out="" build=true
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) out="${2:?--out needs a value}"; shift 2 ;;
        --no-build) build=false; shift ;;
        -*) echo "h2spec.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) h2spec="$1"; shift ;;
    esac
done
[[ -n $h2spec ]] || { usage >&2; exit 2; }
[[ -x $h2spec ]] || { echo "h2spec.sh: $h2spec is not an executable" >&2; exit 2; }
command -v openssl > /dev/null || { echo "h2spec.sh: openssl is needed for the run's certificate" >&2; exit 2; }

out="${out:-$root/scenarios/runs/h2spec-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
if $build; then
    dotnet build -c Release "$root/src/PlatformBenchmarks" -v quiet -nologo > "$out/build.log" 2>&1 \
        || { cat "$out/build.log" >&2; exit 1; }
fi

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$out/server.key" -out "$out/server.crt" 2> /dev/null
read -r h2c_port tls_port < <(python3 -c 'import socket
ports = []
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ports.append(s); 
print(*(s.getsockname()[1] for s in ports))')

TLS_CERT="$out/server.crt" TLS_KEY="$out/server.key" \
    "$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks" \
    --urls "h2c://127.0.0.1:$h2c_port;https://127.0.0.1:$tls_port" > "$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null || true' EXIT
for _ in $(seq 1 300); do
    grep -q "Application started." "$out/server.log" && break
    kill -0 "$server" 2> /dev/null || { cat "$out/server.log" >&2; exit 1; }
    sleep 0.1
done

status=0
path='/baseline11?a=10000&b=20000'
"$h2spec" -h 127.0.0.1 -p "$h2c_port" -P "$path" -o 3 > "$out/h2c.txt" 2>&1 || status=1
"$h2spec" -h 127.0.0.1 -p "$tls_port" -t -k -P "$path" -o 3 > "$out/tls.txt" 2>&1 || status=1
echo "h2spec.sh: h2c:// $(tail -n 1 "$out/h2c.txt"); https:// (h2 by ALPN) $(tail -n 1 "$out/tls.txt"); reports in $out" >&2
exit "$status"
