#!/usr/bin/env bash
# Profiles the Release server under load: starts it with the runtime's perf map (so perf names JIT-compiled methods),
# runs wrk on one route with TFB's headers, samples the server with `perf record` in the middle of the load, and prints
# where its CPU went: by thread, then the hottest symbols. The samples stay in the output folder for `perf report -i`.
#
#   scenarios/profile.sh [--connections N] [--seconds N] [--session] [--tls DIR] [--out DIR] ROUTE [-- SERVER ARGUMENTS...]
#
# --tls DIR serves https:// with DIR/server.crt and DIR/server.key (TLS_CERT and TLS_KEY) and loads it over TLS.
# e.g. scenarios/profile.sh /updates/20, or scenarios/profile.sh /db -- --Database:Multiplexing false. --session starts
# the server in a session of its own (setsid), which the scheduler's autogroups starve of CPU, as a container's quota does.
# Database routes need the local PostgreSQL (scripts/db.sh start); its connection string is passed to the server.
# Needs perf (Debian's linux-perf, installed when missing) and wrk. The default output folder is under
# scenarios/runs/, which git ignores. --help prints this text.
set -euo pipefail

connections=256
seconds=6
out=
session=()
tls=
while [[ $# -gt 0 ]]; do
    case "$1" in
        --connections) connections="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --session) session=(setsid); shift ;;
        --tls) tls="$2"; shift 2 ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        --) shift; break ;;
        -*) echo "profile.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
        *) route="$1"; shift ;;
    esac
done
[[ -n ${route:-} ]] || { echo "profile.sh: which route? e.g. scenarios/profile.sh /fortunes (--help)" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${out:-$root/scenarios/runs/profile-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
source "$root/scripts/lib/packages.sh"
require_command perf linux-perf profile.sh
require_command wrk wrk profile.sh
connection_string=$(bash "$root/scripts/db.sh" connection-string 2> /dev/null || true)
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

echo "profile.sh: building the server (Release)" >&2
dotnet build -c Release "$root/src/PlatformBenchmarks" -v quiet -nologo > /dev/null
port=18079
scheme=http
tls_files=()
if [[ -n $tls ]]; then
    scheme=https
    tls_files=(env "TLS_CERT=$tls/server.crt" "TLS_KEY=$tls/server.key")
fi
# The perf map names JIT-compiled code; with W^X on, that code runs from a second mapping the map does not cover.
# A background job of a script is no process group leader, so setsid makes its session without forking: $! stays the server.
DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 "${session[@]}" "${tls_files[@]}" \
    "$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks" --urls "$scheme://127.0.0.1:$port" \
    ${connection_string:+--ConnectionString "$connection_string"} "$@" > "$out/server.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2> /dev/null || true' EXIT
for _ in $(seq 100); do
    curl -skf -o /dev/null "$scheme://127.0.0.1:$port/plaintext" && break
    kill -0 "$pid" 2> /dev/null || { echo "profile.sh: the server exited; see $out/server.log" >&2; exit 1; }
    sleep 0.1
done

url="$scheme://127.0.0.1:$port$route"
headers=(-H 'Host: tfb-server' -H 'Connection: keep-alive' -H "Accept: $(tfb_accept "$route")")
echo "profile.sh: warming $url for 4 s" >&2
wrk -t "$(nproc)" -c "$connections" -d 4s "${headers[@]}" "$url" > /dev/null
echo "profile.sh: loading $url for $((seconds + 4)) s, sampling the server for the middle $seconds s" >&2
wrk -t "$(nproc)" -c "$connections" -d "$((seconds + 4))s" "${headers[@]}" "$url" > "$out/wrk.txt" &
load=$!
sleep 2
perf record -F 499 -g -p "$pid" -o "$out/perf.data" -- sleep "$seconds" > /dev/null 2>&1
wait "$load"
grep -E 'Requests/sec|Non-2xx|Socket errors' "$out/wrk.txt" || true

report() { perf report -i "$out/perf.data" --no-children -g none --stdio "$@" 2> /dev/null | grep '%' | sed -E 's/ +$//'; }
echo "== CPU samples by thread"
report --sort comm | head -10 | tee "$out/threads.txt"
echo "== hottest symbols"
report --sort dso,symbol | cut -c1-180 | head -40 | tee "$out/symbols.txt"
echo "profile.sh: samples in $out/perf.data (perf report -i $out/perf.data)" >&2
