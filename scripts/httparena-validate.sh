#!/usr/bin/env bash
# Runs HttpArena's own validation (MDA2AV/HttpArena, scripts/validate.sh) against this server, from a local checkout
# of the venue: this script downloads nothing and needs no Docker daemon.
#
#   scripts/httparena-validate.sh HTTPARENA_CHECKOUT [--out DIR]
#
# The venue's script builds the entry's image and runs it with `docker`. Here a stand-in `docker` command, first on the
# PATH of that script only, runs this repository's Release build instead: `docker run` starts the server on port 8080
# with the venue's mounts turned into settings (/data/dataset.json -> HttpArena:DatasetPath, /data/static ->
# HttpArena:StaticPath, /certs -> TLS_CERT and TLS_KEY, and https:// listeners on 8081 for json-tls and on 8443 for
# the h2 profiles; the h2c:// listener on 8082 always, as the image has it) and its -e
# variables in the environment; `docker rm -f` stops it. The profiles checked are
# those docker/httparena/meta.json lists. The checkout is read, never written: the venue's script runs from a scratch
# folder whose data/ points into it. The report goes to DIR (default scenarios/runs/httparena-validate-<UTC time>/,
# which git ignores); the exit code is the venue script's.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
checkout=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) out="${2:?--out needs a value}"; shift 2 ;;
        -*) echo "httparena-validate.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) if [[ -n $checkout ]]; then echo "httparena-validate.sh: one checkout only (see --help)" >&2; exit 2; fi
           checkout="$1"; shift ;;
    esac
done
if [[ -z $checkout ]]; then usage >&2; exit 2; fi
checkout="$(cd "$checkout" && pwd)"
[[ -f $checkout/scripts/validate.sh && -d $checkout/data ]] \
    || { echo "httparena-validate.sh: $checkout is not an HttpArena checkout (no scripts/validate.sh or data/)" >&2; exit 2; }
if (exec 3<> /dev/tcp/127.0.0.1/8080) 2> /dev/null; then
    echo "httparena-validate.sh: something already listens on port 8080, where the venue's checks connect" >&2
    exit 2
fi

out="${out:-$root/scenarios/runs/httparena-validate-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

echo "httparena-validate.sh: building the server (Release)" >&2
dotnet build -c Release "$root/src/PlatformBenchmarks" -v quiet -nologo > "$out/build.log" 2>&1 \
    || { cat "$out/build.log" >&2; exit 1; }
server="$root/src/PlatformBenchmarks/bin/Release/net10.0/PlatformBenchmarks"

# The venue's layout, in a scratch folder: its scripts and data, our entry's meta.json, and a build.sh (which the
# venue's script runs instead of `docker build` when present) that has nothing left to build.
arena="$out/arena"
rm -rf "$arena"
mkdir -p "$arena/frameworks/platformbenchmarks" "$out/bin"
cp -r "$checkout/scripts" "$arena/scripts"
ln -s "$checkout/data" "$arena/data"
[[ -d $checkout/certs ]] && ln -s "$checkout/certs" "$arena/certs"
cp "$root/docker/httparena/meta.json" "$arena/frameworks/platformbenchmarks/meta.json"
printf '#!/bin/sh\necho "build.sh: the Release build of this repository stands for the image"\n' > "$arena/frameworks/platformbenchmarks/build.sh"
chmod +x "$arena/frameworks/platformbenchmarks/build.sh"

cat > "$out/bin/docker" <<'SHIM'
#!/usr/bin/env bash
# Stands for `docker` in HttpArena's validate.sh: runs the server build named by PB_SERVER instead of a container.
set -u
state="$PB_STATE"
stop() { [[ -f $state/pid ]] && { kill "$(cat "$state/pid")" 2> /dev/null; sleep 1; rm -f "$state/pid"; }; return 0; }
case "${1:-}" in
    rm) stop ;;
    run)
        shift
        settings=() environment=()
        while [[ $# -gt 1 ]]; do
            case "$1" in
                -v) mount="$2"; source="${mount%%:*}"; target="${mount#*:}"; target="${target%%:*}"
                    case "$target" in
                        /data/dataset.json) settings+=(--HttpArena:DatasetPath "$source") ;;
                        /data/static) settings+=(--HttpArena:StaticPath "$source") ;;
                        /certs) environment+=("TLS_CERT=$source/server.crt" "TLS_KEY=$source/server.key") ;;
                    esac
                    shift 2 ;;
                -e) environment+=("$2"); shift 2 ;;
                --name|-p|--network|--ulimit|--security-opt|--cpuset-cpus|--memory) shift 2 ;;
                *) shift ;;
            esac
        done
        stop
        # The TLS listeners (json-tls's, the h2 profiles') only when the venue mounts its certificates, as it does for an
        # entry that lists one of those profiles.
        urls="http://*:8080;h2c://*:8082"
        [[ " ${environment[*]} " == *" TLS_CERT="* ]] && urls="$urls;https://*:8081;https://*:8443"
        env "${environment[@]}" "$PB_SERVER" --urls "$urls" "${settings[@]}" >> "$state/server.log" 2>&1 &
        echo $! > "$state/pid"
        echo "docker (stand-in): started $PB_SERVER ${settings[*]}" >&2 ;;
    logs) cat "$state/server.log" ;;
    *) echo "docker (stand-in): ignored: $*" >&2 ;;
esac
SHIM
chmod +x "$out/bin/docker"

export PB_SERVER="$server" PB_STATE="$out"
venue=""
# The venue's script leaves its watchdog behind, a `sleep` of the whole time budget that its cleanup's TERM does not
# end, and it holds the script's output open: so the report is a file, not a pipe that would stay open until the sleep
# ends. The server is stopped as the venue's cleanup stops it; whatever else is left of the script's session is then
# killed outright (a TERM would have the watchdog's shell add "Terminated" to the report).
finish() {
    "$out/bin/docker" rm -f httparena-validate-platformbenchmarks
    if [[ -n $venue ]]; then kill -KILL -- "-$venue" 2> /dev/null || true; fi
}
trap finish EXIT
echo "httparena-validate.sh: running the venue's validate.sh for: $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['tests']))" "$arena/frameworks/platformbenchmarks/meta.json")" >&2
# setsid: a session (and process group) of its own, whose id is the script's pid, so that what it leaves can be ended.
# The report exists before tail opens it: the background shell may not have made it yet.
: > "$out/validate.txt"
(cd "$arena" && PATH="$out/bin:$PATH" exec setsid bash scripts/validate.sh platformbenchmarks) >> "$out/validate.txt" 2>&1 < /dev/null &
venue=$!
tail -n +1 -s 0.2 -f --pid="$venue" "$out/validate.txt"
set +e
wait "$venue"
status=$?
set -e
echo "httparena-validate.sh: report in $out/validate.txt, server log in $out/server.log" >&2
exit "$status"
