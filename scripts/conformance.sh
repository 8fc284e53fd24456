#!/usr/bin/env bash
# Scores the server with Http11Probe (MDA2AV/Http11Probe), an outside suite of HTTP/1.1 conformance, smuggling and
# malformed-input probes. It runs the suite's command-line program, built beforehand by you as its own README says;
# this script builds and downloads nothing of the suite's.
#
#   scripts/conformance.sh PROBE_CLI [--url http://127.0.0.1:PORT] [--out DIR]
#
# PROBE_CLI is the built probe: its Http11Probe.Cli.dll (run with dotnet) or its Http11Probe.Cli executable. Without
# --url this script builds this server in Release and starts it on a free loopback port (no database: the probes use
# no database route), and stops it at the end. With --url it probes a server already running there (another server,
# for a side-by-side score). The console report and the JSON report go to DIR (default
# scenarios/runs/conformance-<UTC time>/, which git ignores); the last line printed is the probe's score.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
probe=""
url=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --url) url="${2:?--url needs a value}"; shift 2 ;;
        --out) out="${2:?--out needs a value}"; shift 2 ;;
        -*) echo "conformance.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) if [[ -n $probe ]]; then echo "conformance.sh: one probe only (see --help)" >&2; exit 2; fi
           probe="$1"; shift ;;
    esac
done
if [[ -z $probe ]]; then
    echo "conformance.sh: give the path of the built probe, Http11Probe.Cli.dll or Http11Probe.Cli (see --help)" >&2
    exit 2
fi
if [[ ! -f $probe ]]; then
    echo "conformance.sh: $probe is not a file: give the built probe, Http11Probe.Cli.dll or Http11Probe.Cli (see --help)" >&2
    exit 2
fi
# A .dll runs on the dotnet host; anything else must be a program of its own.
if [[ $probe == *.dll ]]; then
    run_probe=(dotnet "$probe")
elif [[ -x $probe ]]; then
    run_probe=("$probe")
else
    echo "conformance.sh: $probe is neither a .dll nor executable (see --help)" >&2
    exit 2
fi

out="${out:-$root/scenarios/runs/conformance-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

if [[ -z $url ]]; then
    echo "conformance.sh: building this server (Release)"
    dotnet build "$root/src/PlatformBenchmarks" -c Release -o "$work/server" >"$out/server-build.log" 2>&1 \
        || { echo "conformance.sh: the server did not build; see $out/server-build.log" >&2; exit 1; }
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    url="http://127.0.0.1:$port"
    "$work/server/PlatformBenchmarks" --urls "$url" >"$out/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        if grep -q "Application started." "$out/server.log" 2>/dev/null; then break; fi
        if ! kill -0 "$server_pid" 2>/dev/null; then echo "conformance.sh: the server exited; see $out/server.log" >&2; exit 1; fi
        sleep 0.2
    done
fi

host="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).hostname)' "$url")"
port="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port or 80)' "$url")"
echo "conformance.sh: probing $url"
# The probe's exit code says whether tests failed; the score is the report's to give, so it never stops this script.
"${run_probe[@]}" --host "$host" --port "$port" --output "$out/probe.json" >"$out/probe.txt" 2>&1 || true
grep -E "Score:" "$out/probe.txt" || { echo "conformance.sh: no score; see $out/probe.txt" >&2; exit 1; }
echo "conformance.sh: report in $out/probe.txt and $out/probe.json"
