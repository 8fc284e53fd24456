#!/usr/bin/env bash
# Measures server settings side by side: for each configuration, starts the Release server with it, runs wrk on each
# route at the given connection count, and prints requests/s and the server's CPU time per response (from
# /proc/<pid>/stat before and after each measured window). /plaintext is pipelined 16 deep, as in TFB. The
# configurations take turns in rounds, so drift on a shared machine spreads over all of them.
#
#   scenarios/settings-matrix.sh [--rounds N] [--duration SECONDS] [--connections N]
#                                [--config NAME='[VARIABLE=value ...] --Key value ...']... [--route PATH]...
#
# A configuration is server arguments, optionally preceded by environment variables for the runtime
# (e.g. --config 'no-spin=DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0').
# Without --config it compares Kestrel's own defaults, the socket settings here and the epoll and io_uring
# transports; without --route it measures /plaintext and /json. --help prints this text.
# Database routes need the local PostgreSQL (scripts/db.sh start); its connection string is passed to every run.
# After the rounds it prints each configuration's mean over them. The defaults in Hosting/KestrelSocketSettings.cs and
# Data/DatabaseOptions.cs were chosen from this script's output.
set -euo pipefail

rounds=2
duration=8
connections=256
configs=()
routes=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --config) configs+=("${2%%=*}|${2#*=}"); shift 2 ;;
        --route) routes+=("$2"); shift 2 ;;
        -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "settings-matrix.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    esac
done

if [[ ${#configs[@]} -eq 0 ]]; then
    # name|[VARIABLE=value ...] arguments. The Sockets:* settings apply only to Kestrel's sockets (Transport:Kind Sockets).
    # "kestrel" is Kestrel's own defaults: no inline scheduling, and the runtime's completions queued to the pool
    # (Main would otherwise turn inline completions on).
    configs=(
        "kestrel|DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=0 --Transport:Kind Sockets --Sockets:UnsafePreferInlineScheduling false"
        "sockets|--Transport:Kind Sockets"
        "no-wait|--Transport:Kind Sockets --Sockets:WaitForDataBeforeAllocatingBuffer false"
        "queues-1|--Transport:Kind Sockets --Sockets:IOQueueCount 1"
        "epoll|--Transport:Kind Epoll"
        "iouring|--Transport:Kind IoUring"
    )
fi

[[ ${#routes[@]} -gt 0 ]] || routes=(/plaintext /json)

root="$(cd "$(dirname "$0")/.." && pwd)"
connection_string=$(bash "$root/scripts/db.sh" connection-string 2> /dev/null || true)
source "$root/scripts/lib/packages.sh"
require_command wrk wrk settings-matrix.sh
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

echo "settings-matrix.sh: building the server (dotnet build -c Release src/PlatformBenchmarks)" >&2
dotnet build -c Release "$root/src/PlatformBenchmarks" -v quiet -nologo > /dev/null
server="$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks"
port=18080
ticks=$(getconf CLK_TCK)

pid=
rows=()
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
        echo "settings-matrix.sh: errors during the run:" >&2
        echo "$output" >&2
        return 1
    fi

    requests=$(awk '/requests in/ { print $1 }' <<< "$output")
    awk -v r="$requests" -v d="$duration" -v t=$((after - before)) -v hz="$ticks" \
        'BEGIN { printf "%.0f %.2f\n", r / d, (t / hz) * 1e6 / r }'
}

header=$(printf '%-12s %-5s' config round)
for route in "${routes[@]}"; do
    header+=$(printf ' %18s %8s' "$route" 'µs/resp')
done
echo "$header"

for round in $(seq 1 "$rounds"); do
    for entry in "${configs[@]}"; do
        name="${entry%%|*}"
        echo "settings-matrix.sh: $name, round $round: starting" >&2
        read -r -a words <<< "${entry#*|}"
        environment=()
        arguments=()
        for word in "${words[@]}"; do
            if [[ ${#arguments[@]} -eq 0 && $word =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then
                environment+=("$word")
            else
                arguments+=("$word")
            fi
        done

        env "${environment[@]}" "$server" --urls "http://127.0.0.1:$port" --ConnectionString "$connection_string" \
            "${arguments[@]}" > /tmp/settings-matrix-server.log 2>&1 &
        pid=$!
        for _ in $(seq 1 100); do
            grep -q 'Cache:' /tmp/settings-matrix-server.log && break
            sleep 0.1
        done

        row=$(printf '%-12s %-5s' "$name" "$round")
        for route in "${routes[@]}"; do
            pipeline=()
            if [[ $route == /plaintext ]]; then
                pipeline=(-s "$root/scenarios/pipeline.lua" -- 16)
            fi

            # A short warm-up per route so the JIT has tiered up before the measured window.
            wrk -t 2 -c 64 -d 2s "http://127.0.0.1:$port$route" "${pipeline[@]}" > /dev/null
            read -r rate cpu < <(measure "$pid" "http://127.0.0.1:$port$route" "$(tfb_accept "$route")" "${pipeline[@]}")
            row+=$(printf ' %18s %8s' "$rate" "$cpu")
        done

        kill "$pid"
        wait "$pid" 2> /dev/null || true
        pid=
        echo "$row"
        rows+=("$row")
    done
done

# The mean of every column over the rounds, configuration by configuration, in the order they were given.
echo
echo "$header" | sed 's/round/     /'
printf '%s\n' "${rows[@]}" | awk '
    { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } count[$1]++
      for (i = 3; i <= NF; i++) sum[$1, i] += $i; fields = NF }
    END { for (k = 1; k <= n; k++) { c = order[k]; line = sprintf("%-12s %-5s", c, "mean")
          for (i = 3; i <= fields; i++) line = line sprintf(i % 2 ? " %18.0f" : " %8.2f", sum[c, i] / count[c])
          print line } }'

