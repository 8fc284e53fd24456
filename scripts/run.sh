#!/usr/bin/env bash
# Runs the server in Release on port 8080 (or as given), with the local PostgreSQL started (and provisioned and
# seeded on first use) by scripts/db.sh, and libdeflate installed when run as root. Extra arguments go to the server,
# e.g. --urls http://127.0.0.1:9090.
# Unless the command line or the environment (HttpArena__DatasetPath, HttpArena__StaticPath) names them, /json/{count}
# and /static/{file} serve the small sample in samples/httparena/ instead of the venue's /data mounts.
# --help (or -h) prints the server's settings, and starts neither PostgreSQL nor the server.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for argument in "$@"; do
    if [[ $argument == --help || $argument == -h ]]; then
        echo "scripts/run.sh [setting...]: the server in Release, against the local PostgreSQL, which it starts first."
        exec dotnet run -c Release --project "$root/src/PlatformBenchmarks" -- --help
    fi
done
bash "$root/scripts/db.sh" start
# libdeflate writes the gzip bodies of /json/{count} (HttpArena:Gzip). Installing it needs root and the package lists;
# when that cannot be done the server still runs, on System.IO.Compression's gzip, which its banner names.
source "$root/scripts/lib/packages.sh"
if ! ldconfig -p | grep -F libdeflate.so.0 > /dev/null; then
    if [[ $(id -u) -ne 0 ]] || ! install_package libdeflate0 run.sh; then
        echo "run.sh: libdeflate0 is not installed; gzip bodies come from System.IO.Compression" >&2
    fi
fi
connection_string="$(bash "$root/scripts/db.sh" connection-string)"

# given KEY: whether the command line (--HttpArena:KEY value, --HttpArena:KEY=value, /HttpArena:KEY) or the environment
# (HttpArena__KEY) sets HttpArena:KEY. Configuration keys ignore case, so this does too.
given() {
    local argument
    for argument in "${arguments[@]}"; do
        [[ ${argument,,} =~ ^(--|/)httparena:${1,,}(=|$) ]] && return 0
    done
    env | grep -qi "^httparena__$1="
}
arguments=("$@")
sample=()
given DatasetPath || sample+=(--HttpArena:DatasetPath "$root/samples/httparena/dataset.json")
given StaticPath || sample+=(--HttpArena:StaticPath "$root/samples/httparena/static")
exec dotnet run -c Release --project "$root/src/PlatformBenchmarks" -- --ConnectionString "$connection_string" "${sample[@]}" "$@"
