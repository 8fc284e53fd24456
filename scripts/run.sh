#!/usr/bin/env bash
# Runs the server in Release on port 8080 (or as given), with the local PostgreSQL started (and provisioned and
# seeded on first use) by scripts/db.sh. Extra arguments go to the server, e.g. --urls http://127.0.0.1:9090.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/db.sh" start
connection_string="$(bash "$root/scripts/db.sh" connection-string)"
exec dotnet run -c Release --project "$root/src/PlatformBenchmarks" -- --ConnectionString "$connection_string" "$@"
