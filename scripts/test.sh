#!/usr/bin/env bash
# Runs the whole test suite: starts the local PostgreSQL the data tests need (scripts/db.sh, as root), then `dotnet test`
# on the solution in Release. Extra arguments go to dotnet test, e.g. scripts/test.sh --filter "FullyQualifiedName~Data".
# The data tests include stopping and restarting that PostgreSQL (OutageTests), so they need root too.
# Test runs from several worktrees at once would stop each other's database and mix their pg_stat_statements counts:
# give each its own cluster with PB_DB_CLUSTER and PB_DB_PORT (e.g. PB_DB_CLUSTER=pb-mine PB_DB_PORT=5434 scripts/test.sh).
#
#   scripts/test.sh --unit   only the tests that need neither PostgreSQL, nor wrk, nor a publish (trait Category!=System):
#                            starts and installs nothing; under a minute.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

if [[ ${1:-} == --unit ]]; then
    shift
    echo "test.sh: unit tests only (no PostgreSQL, no wrk): dotnet test PlatformBenchmarks.sln (Release);" \
        "each test is listed as it finishes"
    exec dotnet test PlatformBenchmarks.sln --configuration Release --nologo --filter "Category!=System" \
        --logger "console;verbosity=normal" "$@"
fi

scripts/db.sh start

# The load-runner tests drive scenarios/run.sh, which needs wrk (Debian's package): install it here, once, rather
# than in the middle of the test run.
source scripts/lib/packages.sh
require_command wrk wrk test.sh
# The gzip tests of the json-compressed route need libdeflate (LibDeflateTests); the server falls back without it.
require_library libdeflate.so.0 libdeflate0 test.sh
# The tests read ConnectionString; point them at the cluster just started unless told otherwise.
ConnectionString="${ConnectionString:-$(scripts/db.sh connection-string)}"
export ConnectionString

echo "test.sh: dotnet test PlatformBenchmarks.sln (Release); each test is listed as it finishes"
dotnet test PlatformBenchmarks.sln --configuration Release --nologo --logger "console;verbosity=normal" "$@"
