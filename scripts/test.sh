#!/usr/bin/env bash
# Runs the whole test suite: starts the local PostgreSQL the data tests need (scripts/db.sh, as root), then `dotnet test`
# on the solution in Release. Extra arguments go to dotnet test, e.g. scripts/test.sh --filter "FullyQualifiedName~Data".
# The data tests include stopping and restarting that PostgreSQL (OutageTests), so they need root too.
# Test runs from several worktrees at once would stop each other's database and mix their pg_stat_statements counts:
# give each its own cluster with PB_DB_CLUSTER and PB_DB_PORT (e.g. PB_DB_CLUSTER=pb-mine PB_DB_PORT=5434 scripts/test.sh).
#
#   scripts/test.sh --unit   only the tests that need neither PostgreSQL, nor wrk, nor a publish (trait Category!=System):
#                            starts and installs nothing; under a minute. A --filter given too narrows these.
#
# Each test is listed as it finishes; the last line is the total over every test project: "N passed, N failed"
# (", N skipped" when some were).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

# dotnet test on the solution prints a summary per test project: at normal verbosity (the console logger below) a block
# from "Total tests: N" to "Total time: ...", with "Passed: N", "Failed: N" and "Skipped: N" lines between; at minimal
# verbosity one line, "Passed!  - Failed: 0, Passed: 12, Skipped: 0, Total: 12, ...". The last line printed adds them
# up, and the exit code stays dotnet test's.
run_tests() {
    local status
    set +e
    dotnet test PlatformBenchmarks.sln --configuration Release --nologo --logger "console;verbosity=normal" "$@" | awk '
        { print; fflush() }
        {
            line = $0
            gsub(/\033\[[0-9;]*m/, "", line)
            if (line ~ /^Total tests: +[0-9]+ *$/) { block = 1; blocks++; next }
            if (block && line ~ /^ +(Passed|Failed|Skipped): +[0-9]+ *$/) {
                split(line, field, /: +/)
                gsub(/ /, "", field[1])
                count[field[1]] += field[2]
                next
            }
            if (line ~ /^ +Total time:/) { block = 0; next }
            if (line ~ /(Passed|Failed|Skipped)! +- +Failed: +[0-9]+, +Passed: +[0-9]+, +Skipped: +[0-9]+, +Total: +[0-9]+/) {
                split(line, field, /[^0-9]+/)
                # field[1] is empty (the line starts with a word): then failed, passed, skipped, total.
                failed += field[2]; passed += field[3]; skipped += field[4]; lines++
            }
        }
        END {
            if (blocks > 0) { passed = count["Passed"]; failed = count["Failed"]; skipped = count["Skipped"] }
            else if (lines == 0) { print "test.sh: no test summary was printed (did the build fail?)"; exit }
            printf "%d passed, %d failed", passed, failed
            if (skipped > 0) printf ", %d skipped", skipped
            printf "\n"
        }'
    status=${PIPESTATUS[0]}
    set -e
    return "$status"
}

if [[ ${1:-} == --unit ]]; then
    shift
    echo "test.sh: unit tests only (no PostgreSQL, no wrk): dotnet test PlatformBenchmarks.sln (Release);" \
        "each test is listed as it finishes"
    # A --filter of the caller's narrows the unit tests; it does not replace the filter that leaves out the system tests.
    arguments=() filter="Category!=System"
    while [[ $# -gt 0 ]]; do
        if [[ $1 == --filter && $# -gt 1 ]]; then filter="($filter)&($2)"; shift 2; else arguments+=("$1"); shift; fi
    done
    run_tests --filter "$filter" "${arguments[@]}"
    exit
fi

scripts/db.sh start

# The load-runner tests drive scenarios/run.sh, which needs wrk (Debian's package): install it here, once, rather
# than in the middle of the test run.
source scripts/lib/packages.sh
require_command wrk wrk test.sh
# SocketCompletionsTests read which threads send the responses with strace.
require_command strace strace test.sh
# The load runner, the report parsers' tests and docker/verify-publish.sh run python3; verify-publish.sh makes a
# certificate with openssl and checks HTTP/2 with curl.
require_command python3 python3 test.sh
require_command openssl openssl test.sh
require_command curl curl test.sh
# ListenBacklogTests read a server's listening sockets' backlogs with ss.
require_command ss iproute2 test.sh
# The gzip tests of the json-compressed route need libdeflate (LibDeflateTests); the server falls back without it.
require_library libdeflate.so.0 libdeflate0 test.sh
# TLS listeners run on OpenSSL 3 by default (Tls:Engine OpenSsl); the TLS tests run both engines.
require_library libssl.so.3 libssl3 test.sh
# The tests read ConnectionString; point them at the cluster just started unless told otherwise.
ConnectionString="${ConnectionString:-$(scripts/db.sh connection-string)}"
export ConnectionString

echo "test.sh: dotnet test PlatformBenchmarks.sln (Release); each test is listed as it finishes"
run_tests "$@"
