#!/usr/bin/env bash
# Runs the server in Release on port 8080 (or as given), with the local PostgreSQL started (and provisioned and
# seeded on first use) by scripts/db.sh, and libdeflate installed when run as root. Extra arguments go to the server,
# e.g. --urls http://127.0.0.1:9090.
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
exec dotnet run -c Release --project "$root/src/PlatformBenchmarks" -- --ConnectionString "$connection_string" "$@"
