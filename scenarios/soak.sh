#!/usr/bin/env bash
# A soak: the Release server under mixed load for a long while (pipelined plaintext, json, /db, /updates/20 and
# /fortunes at once, one wrk each), its resident memory, descriptors and threads sampled at an interval, and with
# --churn connections opened and aborted all the while (scenarios/churn.py) beside the wrk load. It writes results.md:
# the samples, wrk's totals per route and a verdict (no errors, memory flat after the warm-up, descriptors back to the
# baseline once the load stops).
#
#   scenarios/soak.sh [--duration 30m] [--transport IoUring] [--interval 60] [--churn] [--churn-rate 50]
#                     [--connections 64] [--warmup 5m] [--out DIR] [--no-build]
#
#   --duration D      how long the load runs (s, m or h; a plain number is seconds); default 30m
#   --transport KIND  the server's --Transport:Kind: IoUring (default), Epoll, Sockets or Auto
#   --interval S      seconds between samples; default 60
#   --churn           also open and abort connections during the whole load; --churn-rate per second, default 50
#   --connections N   connections of each wrk; default 64 (five wrks and PostgreSQL share the machine)
#   --warmup D        samples from then on must show flat memory; default 5m
#   --out DIR         default scenarios/runs/soak-<UTC time>/ (git ignores it); wrk's reports, the server's log and
#                     the samples go to DIR/raw/, which ignores itself, so under scenarios/results/ only results.md
#                     is committed
#   --no-build        start the existing Release build
#
# Needs wrk (installed from Debian's packages when missing, as root), python3 for the churn, and root for
# scripts/db.sh start; PostgreSQL is stopped at the end only when this script started it. Exits 0 when the verdict
# passes, 1 when it fails, 2 on a setup problem. --help prints this text.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/packages.sh"

die() { printf 'soak.sh: error: %s\n' "$*" >&2; exit 2; }
say() { printf '[soak %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Seconds from 90, 90s, 5m or 1h.
seconds_of() {
    [[ $1 =~ ^([0-9]+)([smh]?)$ ]] || die "not a duration: $1 (e.g. 90, 90s, 5m, 1h)"
    case "${BASH_REMATCH[2]}" in
        h) echo $((BASH_REMATCH[1] * 3600)) ;;
        m) echo $((BASH_REMATCH[1] * 60)) ;;
        *) echo "${BASH_REMATCH[1]}" ;;
    esac
}

command_line="scenarios/soak.sh $*"
duration=$(seconds_of 30m)
warmup=$(seconds_of 5m)
transport=IoUring
interval=60
churn=0
churn_rate=50
connections=64
out=
build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) duration=$(seconds_of "${2:?--duration needs a value}"); shift 2 ;;
        --transport) transport="${2:?--transport needs a value}"; shift 2 ;;
        --interval) interval="${2:?--interval needs a value}"; shift 2 ;;
        --churn) churn=1; shift ;;
        --churn-rate) churn_rate="${2:?--churn-rate needs a value}"; shift 2 ;;
        --connections) connections="${2:?--connections needs a value}"; shift 2 ;;
        --warmup) warmup=$(seconds_of "${2:?--warmup needs a value}"); shift 2 ;;
        --out) out="${2:?--out needs a value}"; shift 2 ;;
        --no-build) build=0; shift ;;
        -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done
[[ $interval =~ ^[1-9][0-9]*$ ]] || die "--interval takes whole seconds, not $interval"
[[ $connections =~ ^[1-9][0-9]*$ ]] || die "--connections takes a positive number, not $connections"
((duration >= interval)) || die "--duration must cover at least one --interval"

out="${out:-$root/scenarios/runs/soak-$(date -u +%Y%m%dT%H%M%SZ)}"
raw="$out/raw"
mkdir -p "$raw"
# Raw reports and logs are large and machine-specific: the folder keeps itself out of git.
echo '*' > "$raw/.gitignore"

require_command wrk wrk soak.sh
command -v python3 > /dev/null || die "python3 is required for the churn and the report"
# Five wrks of --connections each, the churn and the database pool, all as descriptors of one server.
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

# The load: name, route, and whether it is pipelined 16 deep as TFB's plaintext.
loads=("plaintext /plaintext 16" "json /json 1" "db /db 1" "updates /updates/20 1" "fortunes /fortunes 1")

server_pid=
churn_pid=
wrk_pids=()
started_database=0

stop_server() {
    [[ -n $server_pid ]] || return 0
    kill -TERM "$server_pid" 2> /dev/null || true
    for _ in $(seq 150); do
        kill -0 "$server_pid" 2> /dev/null || break
        sleep 0.1
    done
    kill -KILL "$server_pid" 2> /dev/null || true
    server_exit=0
    wait "$server_pid" 2> /dev/null || server_exit=$?
    server_pid=
}

cleanup() {
    local pid
    for pid in "${wrk_pids[@]}" $churn_pid; do
        kill -TERM "$pid" 2> /dev/null || true
    done
    stop_server
    wait 2> /dev/null || true
    if ((started_database)); then
        bash "$root/scripts/db.sh" stop > /dev/null 2>&1 || true
    fi
}
trap cleanup EXIT
# Background jobs of a script ignore Ctrl+C; the traps turn it into an exit, and the exit into cleanup.
trap 'exit 130' INT
trap 'exit 143' TERM

if ((build)); then
    say "building src/PlatformBenchmarks (Release)"
    dotnet build "$root/src/PlatformBenchmarks" -c Release -nologo -v quiet > "$raw/build.log" 2>&1 \
        || { tail -n 30 "$raw/build.log" >&2; die "the Release build failed (log: $raw/build.log)"; }
fi
server="$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks"
[[ -x $server ]] || die "no Release build at $server (run without --no-build)"

bash "$root/scripts/db.sh" status > /dev/null 2>&1 || started_database=1
bash "$root/scripts/db.sh" start || die "scripts/db.sh start failed"
connection_string="$(bash "$root/scripts/db.sh" connection-string)"
db_port=$(sed -E 's/.*Port=([0-9]+).*/\1/' <<< "$connection_string")

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
say "starting the server on $url, --Transport:Kind $transport"
# In this script's session, like a server started from the shell (scenarios/README.md, "Fair comparisons").
ConnectionString="$connection_string" "$server" --urls "$url" --Transport:Kind "$transport" > "$raw/server.log" 2>&1 &
server_pid=$!
# TFB gives a server 60 s; the host's ready line comes after the database probe, the cache's warm-up and the banner.
for _ in $(seq 600); do
    grep -q 'Application started\.' "$raw/server.log" && break
    kill -0 "$server_pid" 2> /dev/null || { tail -n 30 "$raw/server.log" >&2; die "the server exited during start-up"; }
    sleep 0.1
done
grep -q 'Application started\.' "$raw/server.log" && grep -q '^  Cache:' "$raw/server.log" \
    || die "the server did not start within 60 s (log: $raw/server.log)"
for route in /plaintext /json /db /updates/20 /fortunes; do
    status=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -H 'Host: tfb-server' "$url$route") || status=none
    [[ $status == 200 ]] || die "$route answered $status before the load"
done

ticks=$(getconf CLK_TCK)
http_hex=$(printf '%04X' "$port")
db_hex=$(printf '%04X' "$db_port")

# Prints "rss_kib fds http_connections database_connections threads cpu_seconds" for the server. Its descriptors
# are read once; the sockets among them are matched with /proc/net/tcp to tell HTTP connections (local port the
# server's, not listening) from database connections (remote port the database's).
sample_server() {
    local links http database
    links=$(cd "/proc/$server_pid/fd" && find . -mindepth 1 -maxdepth 1 -printf '%l\n' 2> /dev/null) || true
    read -r http database < <(
        {
            echo x # the first file of the awk below is never empty
            sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' <<< "$links"
        } | awk -v http="$http_hex" -v db="$db_hex" '
            NR == FNR { want[$1] = 1; next }
            FNR == 1 { next }
            $10 in want { split($2, l, ":"); split($3, r, ":")
                          if (l[2] == http && $4 != "0A") h++; else if (r[2] == db) d++ }
            END { printf "%d %d\n", h, d }' - /proc/net/tcp /proc/net/tcp6)
    awk -v fds="$(grep -c . <<< "$links")" -v h="$http" -v d="$database" -v hz="$ticks" -v stat="$(cat "/proc/$server_pid/stat")" '
        /^VmRSS:/ { rss = $2 } /^Threads:/ { threads = $2 }
        END { sub(/.*\) /, "", stat); split(stat, f, " ")
              printf "%d %d %d %d %d %.1f\n", rss, fds, h, d, threads, (f[12] + f[13]) / hz }' "/proc/$server_pid/status"
}

churn_opened() {
    if ((churn)) && [[ -f $raw/churn-counts.json ]]; then
        sed -n 's/.*"opened": \([0-9]*\).*/\1/p' "$raw/churn-counts.json"
    else
        echo -
    fi
}

# samples.tsv: label, seconds since the load started, then sample_server's columns and the churn's count. On a
# saturated machine a sample takes seconds to be scheduled, so it carries the time it was taken, not the one planned.
record() {
    local elapsed=$(($(date +%s) - ${start:-$(date +%s)}))
    printf '%s\t%s\t%s\t%s\n' "$1" "$elapsed" "$(sample_server | tr ' ' '\t')" "$(churn_opened)" >> "$raw/samples.tsv"
}

: > "$raw/samples.tsv"
sleep 2
find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 -printf '%f %l\n' 2> /dev/null | sort -n > "$raw/fds-baseline.txt" || true
record baseline

say "load for ${duration} s: ${#loads[@]} wrks of $connections connections$( ((churn)) && echo ", churn at $churn_rate/s")"
start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
start=$(date +%s)
# wrk runs a few seconds past the last sample, so every sample is taken under the full load.
wrk_seconds=$((duration + 5))
for entry in "${loads[@]}"; do
    read -r name route depth <<< "$entry"
    pipeline=()
    ((depth > 1)) && pipeline=(-s "$root/scenarios/pipeline.lua" -- "$depth")
    wrk -t 1 -c "$connections" -d "${wrk_seconds}s" --timeout 8 --latency -H 'Host: tfb-server' \
        -H "Accept: $(tfb_accept "$route")" -H 'Connection: keep-alive' "$url$route" "${pipeline[@]}" \
        > "$raw/wrk-$name.txt" 2>&1 &
    wrk_pids+=($!)
done
if ((churn)); then
    python3 "$root/scenarios/churn.py" --url "$url" --rate "$churn_rate" --counts "$raw/churn-counts.json" \
        > "$raw/churn.json" 2> "$raw/churn.log" &
    churn_pid=$!
fi

for ((k = 1; k * interval <= duration; k++)); do
    wait_for=$((start + k * interval - $(date +%s)))
    ((wait_for > 0)) && sleep "$wait_for"
    kill -0 "$server_pid" 2> /dev/null || die "the server exited during the load (log: $raw/server.log)"
    record load
    say "$(tail -n 1 "$raw/samples.tsv" | awk -F'\t' '{ printf "%ds: RSS %.1f MiB, %d fds (%d HTTP, %d database), %d threads, churn %s", $2, $3 / 1024, $4, $5, $6, $7, $9 }')"
done

for pid in "${wrk_pids[@]}"; do
    wait "$pid" || true
done
wrk_pids=()
if [[ -n $churn_pid ]]; then
    kill -TERM "$churn_pid" 2> /dev/null || true
    wait "$churn_pid" || true
    churn_pid=
fi
end_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# Once the load has stopped, the server should hold no HTTP connection; allow the closes 30 s to land.
for _ in $(seq 300); do
    read -r _ _ http _ < <(sample_server)
    ((http == 0)) && break
    sleep 0.1
done
sleep 2
record after
find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 -printf '%f %l\n' 2> /dev/null | sort -n > "$raw/fds-after.txt" || true
grep -E '^(warn|fail|crit):' "$raw/server.log" > "$raw/server-problems.txt" || true
stop_server
say "server stopped with exit $server_exit"

# The report: everything below reads the files in raw/.
wrk_row() { # name route: "requests req/s avg p99 max connect read write timeout non2xx complete"
    awk '
        / requests in / { requests = $1; complete = 1 }
        /Requests\/sec:/ { rate = $2 }
        /^    Latency/ { avg = $2; max = $4 }
        /^ +99%/ { p99 = $2 }
        /Socket errors:/ { gsub(/,/, ""); c = $4; r = $6; w = $8; t = $10 }
        /Non-2xx or 3xx responses:/ { non = $NF }
        END { printf "%s %s %s %s %s %d %d %d %d %d %d\n", requests + 0, rate + 0, avg == "" ? "-" : avg, p99 == "" ? "-" : p99,
                     max == "" ? "-" : max, c, r, w, t, non, complete }
    ' "$raw/wrk-$1.txt"
}

verdict_errors=pass
wrk_table=""
error_total=0
for entry in "${loads[@]}"; do
    read -r name route depth <<< "$entry"
    read -r requests rate avg p99 max c r w t non complete <<< "$(wrk_row "$name")"
    errors=$((c + r + w + t))
    ((errors == 0 && non == 0 && complete == 1)) || verdict_errors=fail
    error_total=$((error_total + errors + non))
    label="\`$route\`"
    ((depth > 1)) && label+=", $depth pipelined"
    ((complete == 1)) || label+=" (no report: wrk failed)"
    wrk_table+="| $label | $connections | $requests | $rate | $avg | $p99 | $max | $c / $r / $w / $t | $non |"$'\n'
done
problems=$(wc -l < "$raw/server-problems.txt")
((problems == 0)) || verdict_errors=fail

churn_section=""
if ((churn)); then
    # The counts file is rewritten once more when the churn stops, so it holds the totals.
    churn_section=$(python3 - "$raw/churn-counts.json" "$churn_rate" << 'PY'
import json, sys
counts = json.load(open(sys.argv[1]))
good = sum(n for status, n in counts["answered"].items() if status.startswith("HTTP/1.1 200 "))
bad = {status: n for status, n in counts["answered"].items() if not status.startswith("HTTP/1.1 200 ")}
listed = lambda d: ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "none"
print(f"{counts['opened']} connections opened and reset in {counts['seconds']:.0f} s (asked: {sys.argv[2]}/s), "
      f"connect failures: {listed(counts['connect_failed'])}, ticks skipped at the in-flight cap: {counts['skipped']}.\n")
print(f"- completed, by way of leaving: {listed(counts['completed'])}")
print(f"- full requests read back: {good} answered 200; other answers: {listed(bad)}")
print(f"- errors on the churn's own sockets (expected, not counted against the server): {listed(counts['errors'])}")
print(f"BAD {sum(bad.values())}")
PY
)
    bad_answers=$(sed -n 's/^BAD //p' <<< "$churn_section")
    churn_section=$(grep -v '^BAD ' <<< "$churn_section")
    ((bad_answers == 0)) || verdict_errors=fail
fi

# Memory, descriptors, threads: from samples.tsv. A leak shows as growth, so memory is judged by its largest rise:
# after the warm-up, no sample more than 10% above the lowest sample before it. A fall (the GC giving memory back) is
# shown but passes. The least-squares slope is shown too, for a slow climb that stays under 10% in this run's length.
IFS=$'\t' read -r memory_line verdict_memory < <(awk -F'\t' -v w="$warmup" '
    $1 == "load" && $2 >= w { n++; x = $2 / 600; y = $3 / 1024
                             if (n == 1) first = low = min = max = y
                             last = y; if (y > max) max = y; if (y < min) min = y; if (y < low) low = y
                             if ((y - low) / low * 100 > rise) { rise = (y - low) / low * 100; rise_mib = y - low }
                             sx += x; sy += y; sxx += x * x; sxy += x * y }
    END { if (n < 2) { print "too few samples after the warm-up\tfail"; exit }
          slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
          printf "first %.1f MiB, last %.1f MiB, min %.1f, max %.1f (max - min %.1f%% of the first); largest rise above an earlier low %.1f%% (%.1f MiB); slope %+.2f MiB per 10 min\t%s\n",
                 first, last, min, max, (max - min) / first * 100, rise, rise_mib, slope, rise <= 10 ? "pass" : "fail" }' "$raw/samples.tsv")

read -r base_fds base_http base_db base_threads < <(awk -F'\t' '$1 == "baseline" { print $4, $5, $6, $7 }' "$raw/samples.tsv")
read -r end_fds end_http end_db end_threads < <(awk -F'\t' '$1 == "after" { print $4, $5, $6, $7 }' "$raw/samples.tsv")
verdict_fds=fail
((end_http == 0 && end_fds - end_db == base_fds - base_db)) && verdict_fds=pass
read -r load_fds_min load_fds_max threads_min threads_max < <(awk -F'\t' -v w="$warmup" '
    $1 == "load" && $2 >= w { if (!n++) { a = b = $4; c = d = $7 }
                             if ($4 < a) a = $4; if ($4 > b) b = $4; if ($7 < c) c = $7; if ($7 > d) d = $7 }
    END { print a + 0, b + 0, c + 0, d + 0 }' "$raw/samples.tsv")

verdict=PASS
[[ $verdict_errors == pass && $verdict_memory == pass && $verdict_fds == pass ]] || verdict=FAIL

kind_label=$transport
case "$transport" in IoUring) kind_label=io_uring ;; Epoll) kind_label=epoll ;; esac
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src 2> /dev/null || echo ' with uncommitted changes under src/')"
minutes() { awk -v s="$1" 'BEGIN { printf (s % 60 ? "%.1f" : "%d"), s / 60 }'; }

{
    echo "# Soak: $kind_label, $(minutes "$duration") min of mixed load$( ((churn)) && echo ' with connection churn')"
    echo
    echo "- Verdict: **$verdict**"
    echo "- Run: $start_utc to $end_utc, commit $commit, $(nproc) CPUs, Linux $(uname -r)"
    echo "- Command: \`$command_line\`"
    echo "- Load, all at once for $duration s: one wrk per route (1 thread, $connections connections, TFB's headers,"
    echo "  \`--timeout 8\`)$( ((churn)) && echo ", and beside them, for the whole time, \`scenarios/churn.py\` opening and resetting $churn_rate connections a second: the churn ran together with the mixed load, not as a separate run")."
    echo "  PostgreSQL ran on the same machine."
    echo
    echo '```'
    sed -n '/^PlatformBenchmarks /,/^  Cache:/p' "$raw/server.log"
    echo '```'
    echo
    echo "## Verdict"
    echo
    echo "- Errors: **$verdict_errors**. wrk's socket errors and non-2xx responses: $error_total in all (every route must"
    echo "  show 0 and a complete report); warnings or errors in the server's log: $problems$( ((churn)) && echo "; answers other than 200 to the churn's full requests: $bad_answers")."
    echo "- Memory flat after the warm-up: **$verdict_memory**. Criterion: no growth. From $(minutes "$warmup") min to the end of the"
    echo "  load, no RSS sample more than 10% above the lowest sample before it (a fall passes). $memory_line."
    echo "- Descriptors back to the baseline: **$verdict_fds**. Criterion: once the load has stopped, no HTTP connection"
    echo "  left and the descriptors other than database connections as many as before the load (the database pool may"
    echo "  keep the connections it opened). Before: $base_fds ($base_http HTTP, $base_db database); after: $end_fds ($end_http HTTP, $end_db database);"
    echo "  under load after the warm-up: $load_fds_min to $load_fds_max."
    echo "- Threads (shown, not judged): $base_threads before the load, $threads_min to $threads_max after the warm-up, $end_threads after."
    echo "- The server stopped on SIGTERM with exit $server_exit."
    echo
    echo "## Samples"
    echo
    echo "| minute | RSS MiB | fds | HTTP connections | database connections | threads | server CPU s | churn connections |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F'\t' '{ m = $1 == "baseline" ? "before" : $1 == "after" ? sprintf("after (%.1f)", $2 / 60) : sprintf($2 % 60 ? "%.1f" : "%d", $2 / 60)
                  printf "| %s | %.1f | %d | %d | %d | %d | %.1f | %s |\n", m, $3 / 1024, $4, $5, $6, $7, $8, $9 }' "$raw/samples.tsv"
    echo
    echo "## wrk, per route"
    echo
    echo "| route | connections | requests | requests/s | latency avg | p99 | max | socket errors (connect / read / write / timeout) | non-2xx |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$wrk_table"
    if ((churn)); then
        echo
        echo "## Churn"
        echo
        echo "$churn_section"
    fi
    if ((problems > 0)); then
        echo
        echo "## Warnings and errors in the server's log (first 20)"
        echo
        echo '```'
        head -n 20 "$raw/server-problems.txt"
        echo '```'
    fi
} > "$out/results.md"

say "$verdict: $out/results.md"
[[ $verdict == PASS ]]
