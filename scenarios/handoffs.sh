#!/usr/bin/env bash
# Counts the hand-offs a server's responses cost: thread-pool work items and context switches per response, under one
# wrk load on one route. For servers already running; start every server of a comparison the same way.
#
#   scenarios/handoffs.sh [--path /db] [--connections 256] [--duration 10] [--warmup 5] PID URL [PID URL ...]
#
# Work items come from the runtime's own counter (System.Runtime's dotnet.thread_pool.work_item.count, read with
# dotnet-counters: `dotnet tool install -g dotnet-counters` once); context switches are the sum of voluntary and
# non-voluntary switches of the server's threads (/proc/PID/task/*/status) before and after the measured window. The
# targets take turns in the order given. Prints one line per target: responses, work items and switches per response.
set -euo pipefail

path=/db connections=256 duration=10 warmup=5
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --path) path=$2 ;;
        --connections) connections=$2 ;;
        --duration) duration=$2 ;;
        --warmup) warmup=$2 ;;
        *) echo "handoffs.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[[ $# -ge 2 && $(($# % 2)) -eq 0 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
counters=$(command -v dotnet-counters || echo "$HOME/.dotnet/tools/dotnet-counters")
[[ -x $counters ]] || { echo "handoffs.sh: dotnet-counters not found (dotnet tool install -g dotnet-counters)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "handoffs.sh: wrk not found (apt-get install wrk)" >&2; exit 2; }

switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n + 0 }'
}

threads=$(( connections < $(nproc) ? connections : $(nproc) ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-8s %-28s %10s %14s %14s\n' pid url responses 'items/resp' 'switches/resp'
while [[ $# -gt 0 ]]; do
    pid=$1 url=$2
    shift 2
    wrk -t "$threads" -c "$connections" -d "${warmup}s" -H 'Host: tfb-server' "$url$path" >/dev/null
    "$counters" collect -p "$pid" --counters System.Runtime --format csv -o "$work/counters.csv" --refresh-interval 1 \
        --duration "00:00:$(printf '%02d' $((duration + 1)))" >/dev/null 2>&1 &
    collector=$!
    sleep 0.5
    before=$(switches "$pid")
    wrk -t "$threads" -c "$connections" -d "${duration}s" -H 'Host: tfb-server' "$url$path" > "$work/wrk.txt"
    after=$(switches "$pid")
    wait "$collector" || true
    responses=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
    items=$(awk -F, '$3 ~ /^dotnet.thread_pool.work_item.count/ { n += $5 } END { print n + 0 }' "$work/counters.csv")
    awk -v p="$pid" -v u="$url$path" -v r="$responses" -v i="$items" -v s="$((after - before))" \
        'BEGIN { printf "%-8s %-28s %10d %14.4f %14.4f\n", p, u, r, i / r, s / r }'
done
