#!/usr/bin/env bash
# Runs the build stage of the TFB dockerfiles and of the HttpArena entry's without Docker, then smoke-tests what it
# produced.
#
#   docker/verify-publish.sh [jit|aot|httparena|all]     (default: all)
#
# For each dockerfile it reads the first stage and replays it on this machine: COPY lines copy the same files
# from the repository (what git tracks or would track, so bin/ and obj/ stay out as .dockerignore keeps them out
# of an image), WORKDIR and `RUN dotnet publish ...` run verbatim with the image's absolute paths moved under a
# scratch directory, and `RUN apt-get ... install <packages>` installs whichever of those packages are missing
# (never the rest of that line: it would wipe this machine's apt lists). Anything else in the build stage is an
# error, so a dockerfile cannot drift away from what this script checks. It then checks that the runtime stage's
# base image can run what was published (the aspnet image: a framework-dependent app on at most the .NET and ASP.NET
# Core frameworks of its version; runtime-deps: a self-contained native executable) and that no debug symbols would
# be copied into the image. The runtime stage may install Debian packages too; those are installed here when missing,
# so that the smoke run has what the image has. Last, it starts the published server the way ENTRYPOINT does, with
# the listen port (benchmark_config.json's for a TFB test, 8080 for HttpArena) moved to a free loopback port, and
# requires 200 and the expected body from /plaintext and /json (TFB) or /pipeline and /baseline11 (HttpArena, and
# /baseline11 again over TLS on the json-tls listener, and /baseline2 over TLS on 8443 and by h2c on 8082, each moved
# the same way, with a throwaway certificate).
# The HttpArena dockerfile is built from a checkout of the venue whose frameworks/platformbenchmarks/ holds this
# repository's files (docker/httparena/README.md), so its COPY sources are read from here without that prefix.
#
# On two cores jit takes 10-60 s and aot about 40 s (the ILCompiler and the native link), more the first time, while
# NuGet downloads the ILCompiler and NativeAOT runtime packages.
# Exit status: 0 when every selected variant published and answered.
set -euo pipefail

readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly TFB_DIR="$ROOT/docker/tfb"
readonly ARENA_DOCKERFILE="$ROOT/docker/httparena/Dockerfile"
# HttpArena's validate.sh and load generator connect to every entry on port 8080.
readonly ARENA_PORT=8080
# Its json-tls profile connects on 8081, over TLS with the certificate it mounts at /certs.
readonly ARENA_TLS_PORT=8081
# Its h2 profiles: HTTP/2 over TLS by ALPN on 8443, HTTP/2 with prior knowledge on 8082.
readonly ARENA_H2_PORT=8443
readonly ARENA_H2C_PORT=8082
# The build context's folder that holds this repository, for the dockerfile being replayed ('' for TFB's).
context_prefix=""

say() { printf 'verify-publish: %s\n' "$*" >&2; }
die() { printf 'verify-publish: error: %s\n' "$*" >&2; exit 1; }

# Files under a repository path the way the build context sees them: tracked or untracked-but-not-ignored, or,
# outside a git checkout (a source archive), everything but the bin/ and obj/ folders .dockerignore leaves out.
context_files() {
    if git -C "$ROOT" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        git -C "$ROOT" ls-files --cached --others --exclude-standard -- "$1"
    else
        (cd "$ROOT" && find "${1%/}" -type f -not -path '*/bin/*' -not -path '*/obj/*')
    fi
}

# COPY <src>... <dest> relative to WORKDIR; a directory source copies its content, as Docker does.
replay_copy() {
    local fs="$1" workdir="$2"
    shift 2
    local dest="${!#}" target src file
    [[ $dest == /* ]] && target="$fs$dest" || target="$fs$workdir/$dest"
    for src in "${@:1:$#-1}"; do
        if [[ -n $context_prefix ]]; then
            [[ $src == "$context_prefix"* ]] || die "COPY source '$src' is outside $context_prefix, where the repository sits in the context"
            src="${src#"$context_prefix"}"
        fi
        [[ -e "$ROOT/$src" ]] || die "COPY source '$src' does not exist in the repository"
        if [[ -d "$ROOT/$src" ]]; then
            while IFS= read -r file; do
                [[ -e "$ROOT/$file" ]] || continue # deleted but not yet committed
                mkdir -p "$target/$(dirname "${file#"${src%/}"/}")"
                cp "$ROOT/$file" "$target/${file#"${src%/}"/}"
            done < <(context_files "$src")
        else
            mkdir -p "$target"
            cp "$ROOT/$src" "$target/"
        fi
    done
}

replay_apt() {
    local words=() word missing=() in_install=0
    read -ra words <<< "$1" # read, unlike an unquoted expansion, leaves globs like lists/* alone
    for word in "${words[@]}"; do
        case "$word" in
            install) in_install=1 ;;
            '&&' | ';') in_install=0 ;;
            -*) ;;
            *) if ((in_install)) && ! dpkg -s "$word" > /dev/null 2>&1; then missing+=("$word"); fi ;;
        esac
    done
    if ((${#missing[@]} == 0)); then
        say "the packages its apt-get installs are installed here already"
        return
    fi
    [[ $(id -u) -eq 0 ]] || die "the dockerfile installs ${missing[*]}: run as root or install them"
    say "installing ${missing[*]} (the dockerfile's apt-get install)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}

# `dotnet publish` with every absolute path argument (the output folder) moved under the scratch root.
replay_publish() {
    local fs="$1" workdir="$2" log="$3"
    shift 3
    local args=() arg
    for arg in "${@:2}"; do # $1 is "dotnet"
        [[ $arg == /* ]] && args+=("$fs$arg") || args+=("$arg")
    done
    say "dotnet ${*:2}   (in $workdir, / mapped to $fs)"
    if ! (cd "$fs$workdir" && dotnet "${args[@]}" -nologo) > "$log" 2>&1; then
        grep -E 'error|Error' "$log" | sort -u | tail -n 20 >&2 || true
        die "publish failed; full log: $log"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# GET <url>; prints "<status> <body>" or fails.
http_get() {
    python3 - "$1" << 'PY'
import ssl, sys, urllib.request, urllib.error
try:
    # https:// here is the smoke run's own throwaway certificate: nothing to verify it against.
    with urllib.request.urlopen(sys.argv[1], timeout=5, context=ssl._create_unverified_context()) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, "")
PY
}

# The port benchmark_config.json gives the test that TFB builds from this dockerfile (<framework>[-<test>].dockerfile).
config_port() {
    python3 - "$TFB_DIR/benchmark_config.json" "$(basename "$1" .dockerfile)" << 'PY'
import json, sys
config = json.load(open(sys.argv[1]))
for group in config["tests"]:
    for name, test in group.items():
        if (config["framework"] if name == "default" else f"{config['framework']}-{name}") == sys.argv[2]:
            print(test["port"])
            sys.exit(0)
sys.exit(f"no test in benchmark_config.json is built from {sys.argv[2]}.dockerfile")
PY
}

# Can the runtime stage's base image run the published folder? aspnet:<v> has the .NET and ASP.NET Core shared
# frameworks of version v and runs `dotnet <app>.dll`; runtime-deps:<v> has no .NET at all, so the entry point must
# be a self-contained native executable.
check_runtime_image() {
    local image="$1" dir="$2" entrypoint="$3" program
    program="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[0])' "$entrypoint")"
    case "$image" in
        mcr.microsoft.com/dotnet/aspnet:*)
            [[ $program == dotnet ]] || die "the aspnet image runs a .NET app through 'dotnet', ENTRYPOINT runs $program"
            python3 - "$dir" "${image##*:}" << 'PY' || die "the published app needs a framework $image does not have"
import glob, json, sys
folder, version = sys.argv[1], sys.argv[2].split(".")[0]
configs = glob.glob(f"{folder}/*.runtimeconfig.json")
if len(configs) != 1:
    sys.exit(f"expected one runtimeconfig.json, found {configs}")
options = json.load(open(configs[0]))["runtimeOptions"]
frameworks = options.get("frameworks") or [options["framework"]]
for framework in frameworks:
    if framework["name"] not in ("Microsoft.NETCore.App", "Microsoft.AspNetCore.App") or framework["version"].split(".")[0] != version:
        sys.exit(f"needs {framework['name']} {framework['version']}")
print(f"verify-publish: {', '.join(f['name'] + ' ' + f['version'] for f in frameworks)}: in {sys.argv[2]}'s aspnet image", file=sys.stderr)
PY
            ;;
        mcr.microsoft.com/dotnet/runtime-deps:*)
            [[ $program == ./* ]] || die "the runtime-deps image has no .NET: ENTRYPOINT must run the native executable, not $program"
            [[ $(head -c 4 "$dir/${program#./}" | od -An -c | tr -d ' ') == 177ELF ]] \
                || die "$program is not a native executable: the runtime-deps image could not run it"
            if compgen -G "$dir/*.runtimeconfig.json" > /dev/null; then
                die "the published folder has a runtimeconfig.json: it needs a .NET runtime that runtime-deps does not have"
            fi
            say "$program is a native executable: runtime-deps can run it"
            ;;
        *) die "unknown runtime image $image (expected mcr.microsoft.com/dotnet/aspnet or runtime-deps)" ;;
    esac
}

# GET <url> and require "<status> <body>"; says what came and returns 1 when it differs.
expect_get() {
    local url="$1" expected="$2" path answer
    path="${url#http*://*/}"
    answer="$(http_get "$url")"
    if [[ $answer == "$expected" ]]; then
        say "/$path: $answer"
    else
        say "/$path answered: $answer"
        return 1
    fi
}

smoke() {
    local variant="$1" dir="$2" entrypoint="$3" log="$4" listen="$5"
    local port tls_port="" h2_port="" h2c_port="" argv=() arg pid i environment=()
    port="$(free_port)"
    [[ $entrypoint == *"http://*:$listen"[\;\"]* ]] || die "ENTRYPOINT does not listen on http://*:$listen, the port benchmark_config.json names: $entrypoint"
    if [[ $variant == httparena && $entrypoint == *"https://*:$ARENA_TLS_PORT"* ]]; then
        # The json-tls listener: moved to a free port too, with a throwaway certificate in place of the venue's /certs.
        tls_port="$(free_port)"
        # The image's OPENSSL_CONF (exported above) is relative to /app, not to this command's directory.
        env -u OPENSSL_CONF openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
            -keyout "$log.key" -out "$log.crt" 2> /dev/null || die "openssl could not make a test certificate"
        environment=("TLS_CERT=$log.crt" "TLS_KEY=$log.key")
    fi
    if [[ $variant == httparena ]]; then
        [[ $entrypoint == *"https://*:$ARENA_H2_PORT"* ]] && h2_port="$(free_port)"
        [[ $entrypoint == *"h2c://*:$ARENA_H2C_PORT"* ]] && h2c_port="$(free_port)"
    fi
    while IFS= read -r arg; do
        arg="${arg//http:\/\/\*:$listen/http://127.0.0.1:$port}"
        [[ -n $tls_port ]] && arg="${arg//https:\/\/\*:$ARENA_TLS_PORT/https://127.0.0.1:$tls_port}"
        [[ -n $h2_port ]] && arg="${arg//https:\/\/\*:$ARENA_H2_PORT/https://127.0.0.1:$h2_port}"
        [[ -n $h2c_port ]] && arg="${arg//h2c:\/\/\*:$ARENA_H2C_PORT/h2c://127.0.0.1:$h2c_port}"
        argv+=("$arg")
    done < <(python3 -c 'import json, sys; print("\n".join(json.loads(sys.argv[1])))' "$entrypoint")
    say "starting ${environment[*]} ${argv[*]}   (in the published folder)"
    (cd "$dir" && exec env "${environment[@]}" "${argv[@]}") > "$log" 2>&1 &
    pid=$!
    for ((i = 0; i < 150; i++)); do
        grep -q 'Application started\.' "$log" 2> /dev/null && break
        kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; die "the published server exited during start-up"; }
        sleep 0.2
    done
    grep -q 'Application started\.' "$log" || { kill "$pid"; cat "$log" >&2; die "no 'Application started.' within 30 s"; }
    local failed=0 base="http://127.0.0.1:$port"
    if [[ $variant == httparena ]]; then
        expect_get "$base/pipeline" "200 ok" || failed=1
        expect_get "$base/baseline11?a=13&b=29" "200 42" || failed=1
        if [[ -n $tls_port ]]; then
            expect_get "https://127.0.0.1:$tls_port/baseline11?a=13&b=29" "200 42" || failed=1
        fi
        # HTTP/2 by curl, as the venue's checks send it (Python's client speaks HTTP/1.1 only): with prior knowledge on
        # the h2c port, by ALPN on the h2 port.
        local answer
        if [[ -n $h2_port ]]; then
            answer="$(curl -sk --http2 -w ' %{http_version}' "https://127.0.0.1:$h2_port/baseline2?a=13&b=29")"
            say "/baseline2 over h2 (TLS): $answer"
            [[ $answer == "42 2" ]] || failed=1
        fi
        if [[ -n $h2c_port ]]; then
            answer="$(curl -s --http2-prior-knowledge -w ' %{http_version}' "http://127.0.0.1:$h2c_port/baseline2?a=13&b=29")"
            say "/baseline2 over h2c: $answer"
            [[ $answer == "42 2" ]] || failed=1
        fi
    else
        expect_get "$base/plaintext" "200 Hello, World!" || failed=1
        expect_get "$base/json" '200 {"message":"Hello, World!"}' || failed=1
    fi
    kill -TERM "$pid"
    wait "$pid" || true
    sed -n '/^PlatformBenchmarks /,/^  Compress:/p' "$log" | sed 's/^/    /' >&2 # the server's start-up banner, to its last line
    ((failed == 0)) || die "smoke requests failed"
}

verify() {
    local variant="$1" dockerfile="$2"
    [[ -f $dockerfile ]] || die "$dockerfile not found"
    local scratch fs stage=0 workdir=/ line keyword rest runtime_from="" entrypoint="" runtime_workdir=/ runtime_image="" listen
    if [[ $variant == httparena ]]; then
        listen=$ARENA_PORT
        context_prefix="frameworks/platformbenchmarks/"
    else
        listen="$(config_port "$dockerfile")" || die "$(basename "$dockerfile") is not the dockerfile of a test in benchmark_config.json"
        context_prefix=""
    fi
    scratch="$(mktemp -d "${TMPDIR:-/tmp}/verify-publish-$variant.XXXXXX")"
    fs="$scratch/fs"
    mkdir -p "$fs"
    say "== $variant: $(basename "$dockerfile") (scratch: $scratch)"
    local started=$SECONDS
    while IFS= read -r line || [[ -n $line ]]; do
        [[ -z ${line// /} || $line == \#* ]] && continue
        [[ $line == *\\ ]] && die "line continuations are not supported: $line"
        keyword="${line%% *}"
        rest="${line#* }"
        # COPY and RUN arguments go through eval below: the shell splits and unquotes them as Docker's shell form would.
        case "$stage:$keyword" in
            *:FROM)
                stage=$((stage + 1))
                ((stage == 2)) && read -r runtime_image _ <<< "$rest"
                ;;
            1:WORKDIR) workdir="$rest" && mkdir -p "$fs$workdir" ;;
            1:COPY) eval "replay_copy \"\$fs\" \"\$workdir\" $rest" ;;
            1:RUN)
                case "$rest" in
                    apt-get\ *) replay_apt "$rest" ;;
                    dotnet\ publish\ *)
                        say "publishing ($variant: $([[ $variant == aot ]] && echo 'about 40 s' || echo 'under a minute'); log in $scratch/publish.log)"
                        eval "replay_publish \"\$fs\" \"\$workdir\" \"\$scratch/publish.log\" $rest"
                        ;;
                    *) die "unsupported build step (only apt-get and dotnet publish are replayed): $line" ;;
                esac
                ;;
            1:ENV | 1:ARG) die "the build stage must not depend on $keyword (this script could not replay it): $line" ;;
            2:COPY)
                [[ $rest == --from=build\ * ]] || die "the runtime stage may only copy from the build stage: $line"
                read -r _ runtime_from _ <<< "$rest"
                ;;
            2:WORKDIR) runtime_workdir="$rest" ;;
            2:RUN)
                # Only package installs: anything else would change the image in ways this script cannot check.
                [[ $rest == apt-get\ * ]] || die "unsupported runtime step (only apt-get is replayed): $line"
                replay_apt "$rest"
                ;;
            2:ENTRYPOINT) entrypoint="$rest" ;;
            2:ENV)
                # The runtime settings apply to the smoke run too (ConnectionString included: nothing connects yet).
                local name="${rest%%=*}" value="${rest#*=}"
                value="${value#\"}" && value="${value%\"}"
                export "$name=$value"
                ;;
            2:EXPOSE) ;;
            *) die "unexpected line in stage $stage: $line" ;;
        esac
    done < "$dockerfile"
    [[ -n $runtime_from && -n $entrypoint ]] || die "no COPY --from=build or ENTRYPOINT in the runtime stage"
    [[ $runtime_workdir == /app ]] || die "the runtime WORKDIR must be /app, where the build output is copied"
    say "published in $((SECONDS - started)) s: $(du -sh "$fs$runtime_from" | cut -f1) in $runtime_from"
    # What the image would carry: no debug symbols, neither native (a Native AOT .dbg is twice the binary's size) nor
    # managed (.pdb, which a publish copies for every project it builds).
    local symbols
    symbols="$(find "$fs$runtime_from" \( -name '*.dbg' -o -name '*.pdb' \) | head -n 3)"
    [[ -z $symbols ]] || die "symbol files would be copied into the image: $symbols"
    check_runtime_image "$runtime_image" "$fs$runtime_from" "$entrypoint"
    smoke "$variant" "$fs$runtime_from" "$entrypoint" "$scratch/server.log" "$listen"
    say "== $variant: OK"
    rm -rf "$scratch"
}

main() {
    local which="${1:-all}"
    command -v dotnet > /dev/null || die "dotnet is not on PATH"
    command -v python3 > /dev/null || die "python3 is not on PATH"
    case "$which" in
        jit) verify jit "$TFB_DIR/platformbenchmarks.dockerfile" ;;
        aot) verify aot "$TFB_DIR/platformbenchmarks-aot.dockerfile" ;;
        httparena) verify httparena "$ARENA_DOCKERFILE" ;;
        all)
            verify jit "$TFB_DIR/platformbenchmarks.dockerfile"
            verify aot "$TFB_DIR/platformbenchmarks-aot.dockerfile"
            verify httparena "$ARENA_DOCKERFILE"
            ;;
        -h | --help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
        *) die "unknown variant '$which' (jit, aot, httparena, all)" ;;
    esac
}

main "$@"
