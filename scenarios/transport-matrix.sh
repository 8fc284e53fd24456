#!/usr/bin/env bash
# Measures the socket transport settings side by side: for each configuration, starts the Release server with it,
# runs wrk on /plaintext (pipelined 16 deep) and /json at 256 connections, and prints requests/s and the server's
# CPU time per response (from /proc/<pid>/stat before and after the measured window). The configurations take
# turns in rounds, so drift on a shared machine spreads over all of them.
#
#   scenarios/transport-matrix.sh [--rounds N] [--duration SECONDS] [--connections N]
#
# The defaults in Program.cs (TransportSettings) were chosen from this script's output.
set -euo pipefail

rounds=2
duration=8
connections=256
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        *) echo "transport-matrix.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
command -v wrk > /dev/null || { echo "transport-matrix.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

dotnet build -c Release "$root/src/PlatformBenchmarks" -v quiet -nologo > /dev/null
server="$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks"
port=18080
ticks=$(getconf CLK_TCK)
plain_accept='text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7'
json_accept='application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7'

# name|arguments
configs=(
    "default|"
    "inline|--Transport:UnsafePreferInlineScheduling true"
    "no-wait|--Transport:WaitForDataBeforeAllocatingBuffer false"
    "queues-1|--Transport:IOQueueCount 1"
    "queues-4|--Transport:IOQueueCount 4"
)

pid=
trap '[[ -n $pid ]] && kill "$pid" 2> /dev/null || true' EXIT

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# Prints "requests/s cpu-us-per-response" for one wrk run against the running server.
measure() {
    local pid=$1 url=$2 accept=$3 before after output requests
    shift 3
    before=$(cpu_ticks "$pid")
    output=$(wrk -t "$(nproc)" -c "$connections" -d "${duration}s" --timeout 8 -H 'Host: tfb-server' \
        -H "Accept: $accept" -H 'Connection: keep-alive' "$url" "$@")
    after=$(cpu_ticks "$pid")
    if grep -qE 'Socket errors|Non-2xx' <<< "$output"; then
        echo "transport-matrix.sh: errors during the run:" >&2
        echo "$output" >&2
        return 1
    fi

    requests=$(awk '/requests in/ { print $1 }' <<< "$output")
    awk -v r="$requests" -v d="$duration" -v t=$((after - before)) -v hz="$ticks" \
        'BEGIN { printf "%.0f %.2f\n", r / d, (t / hz) * 1e6 / r }'
}

printf '%-10s %-6s %14s %14s %12s %12s\n' config round plaintext/s 'µs/resp' json/s 'µs/resp'
for round in $(seq 1 "$rounds"); do
    for entry in "${configs[@]}"; do
        name="${entry%%|*}"
        read -r -a arguments <<< "${entry#*|}"
        "$server" --urls "http://127.0.0.1:$port" "${arguments[@]}" > /tmp/transport-matrix-server.log 2>&1 &
        pid=$!
        for _ in $(seq 1 100); do
            grep -q 'Application started' /tmp/transport-matrix-server.log && break
            sleep 0.1
        done

        # A short warm-up so the JIT has tiered up before the measured windows.
        wrk -t 2 -c 64 -d 3s "http://127.0.0.1:$port/json" > /dev/null
        wrk -t 2 -c 64 -d 2s "http://127.0.0.1:$port/plaintext" -s "$root/scenarios/pipeline.lua" -- 16 > /dev/null
        read -r plain plain_cpu < <(measure "$pid" "http://127.0.0.1:$port/plaintext" "$plain_accept" -s "$root/scenarios/pipeline.lua" -- 16)
        read -r json json_cpu < <(measure "$pid" "http://127.0.0.1:$port/json" "$json_accept")
        kill "$pid"
        wait "$pid" 2> /dev/null || true
        printf '%-10s %-6s %14s %14s %12s %12s\n' "$name" "$round" "$plain" "$plain_cpu" "$json" "$json_cpu"
    done
done
