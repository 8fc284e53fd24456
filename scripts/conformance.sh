#!/usr/bin/env bash
# Scores the server with Http11Probe (MDA2AV/Http11Probe), an outside suite of HTTP/1.1 conformance, smuggling and
# malformed-input probes, from a local checkout of it: this script downloads nothing.
#
#   scripts/conformance.sh HTTP11PROBE_CHECKOUT [--url http://127.0.0.1:PORT] [--out DIR]
#
# Without --url it builds this server in Release and starts it on a free loopback port (no database: the probes use
# no database route), and stops it at the end. With --url it probes a server already running there (another server,
# for a side-by-side score). The probe's CLI is built from a copy of the checkout; where the NuGet feed lacks the
# System.CommandLine prerelease it pins, NuGet resolves 2.0.0, and the copy's one call that differs is adapted. The
# console report and the JSON report go to DIR (default scenarios/runs/conformance-<UTC time>/, which git ignores);
# the last line printed is the probe's score.
set -euo pipefail

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
checkout=""
url=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --url) url="${2:?--url needs a value}"; shift 2 ;;
        --out) out="${2:?--out needs a value}"; shift 2 ;;
        -*) echo "conformance.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) if [[ -n $checkout ]]; then echo "conformance.sh: one checkout only (see --help)" >&2; exit 2; fi
           checkout="$1"; shift ;;
    esac
done
if [[ -z $checkout || ! -f $checkout/src/Http11Probe.Cli/Http11Probe.Cli.csproj ]]; then
    echo "conformance.sh: give the path of an Http11Probe checkout (it has src/Http11Probe.Cli); see --help" >&2
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

echo "conformance.sh: building Http11Probe's CLI from a copy of $checkout"
cp -r "$checkout/." "$work/probe"
cli_project="$work/probe/src/Http11Probe.Cli/Http11Probe.Cli.csproj"
if ! dotnet build "$cli_project" -c Release -o "$work/cli" >"$out/probe-build.log" 2>&1; then
    if ! grep -q "CommandLineConfiguration" "$out/probe-build.log"; then
        echo "conformance.sh: Http11Probe did not build; see $out/probe-build.log" >&2
        exit 1
    fi

    # The feed lacks the System.CommandLine prerelease the probe pins, and NuGet resolved 2.0.0 (NU1603), which
    # replaced CommandLineConfiguration's InvokeAsync with ParseResult.InvokeAsync: the one line to adapt.
    sed -i -E 's/^var config = new CommandLineConfiguration\(rootCommand\);$//; s/^return await config\.InvokeAsync\(args\);$/return await rootCommand.Parse(args).InvokeAsync();/' \
        "$work/probe/src/Http11Probe.Cli/Program.cs"
    echo "conformance.sh: built against System.CommandLine 2.0.0 (the pinned prerelease is not on the feed), one call adapted"
    dotnet build "$cli_project" -c Release -o "$work/cli" >"$out/probe-build.log" 2>&1 \
        || { echo "conformance.sh: Http11Probe did not build; see $out/probe-build.log" >&2; exit 1; }
fi

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
dotnet "$work/cli/Http11Probe.Cli.dll" --host "$host" --port "$port" --output "$out/probe.json" >"$out/probe.txt" 2>&1 || true
grep -E "Score:" "$out/probe.txt" || { echo "conformance.sh: no score; see $out/probe.txt" >&2; exit 1; }
echo "conformance.sh: report in $out/probe.txt and $out/probe.json"
