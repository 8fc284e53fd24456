"""What a load run is made of: TFB's test types and profiles, the targets, and the run's own error."""

from __future__ import annotations

import dataclasses
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PIPELINE_SCRIPT = ROOT / "scenarios" / "pipeline.lua"
SERVER_PROJECT = ROOT / "src" / "PlatformBenchmarks" / "PlatformBenchmarks.csproj"
SERVER_BIN = ROOT / "src" / "PlatformBenchmarks" / "bin" / "Release" / "net10.0"
DB_SCRIPT = ROOT / "scripts" / "db.sh"
DEFAULT_TFB_CONFIG = ROOT / "docker" / "tfb" / "benchmark_config.json"

# The Accept headers wrk sends in TFB (docs/tfb-rules.md section 9): plaintext has its own, every other test,
# fortunes included, sends the JSON one.
ACCEPT_PLAINTEXT = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"
ACCEPT_JSON = "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"


@dataclasses.dataclass(frozen=True)
class TestType:
    name: str
    url_key: str  # the key in benchmark_config.json
    method: str  # which TFB script runs it: concurrency, pipeline, query (query levels) or cached (cached levels)
    accept: str
    uses_database: bool
    level_unit: str  # what a level means, for the report


TESTS = {
    t.name: t
    for t in [
        TestType("plaintext", "plaintext_url", "pipeline", ACCEPT_PLAINTEXT, False, "connections (16 pipelined)"),
        TestType("json", "json_url", "concurrency", ACCEPT_JSON, False, "connections"),
        TestType("db", "db_url", "concurrency", ACCEPT_JSON, True, "connections"),
        TestType("queries", "query_url", "query", ACCEPT_JSON, True, "queries per request (512 connections)"),
        TestType("updates", "update_url", "query", ACCEPT_JSON, True, "updates per request (512 connections)"),
        TestType("fortunes", "fortune_url", "concurrency", ACCEPT_JSON, True, "connections"),
        TestType("cached", "cached_query_url", "cached", ACCEPT_JSON, True, "cached rows per request (512 connections)"),
    ]
}
# TFB's own type names, accepted on the command line too.
ALIASES = {"query": "queries", "update": "updates", "fortune": "fortunes", "cached-query": "cached", "cached_query": "cached"}

PIPELINE_DEPTH = 16
QUERY_CONNECTIONS = 512  # query.sh: every query, update and cached level runs at the maximum concurrency


@dataclasses.dataclass(frozen=True)
class Profile:
    primer: int  # seconds; TFB: wrk -d 5 -c 8 -t 8, then sleep 5
    primer_pause: int
    warmup: int  # seconds; TFB: wrk -d 15 -c 512 -t nproc, then sleep 5
    warmup_pause: int
    duration: int  # seconds per measured level; TFB: 15, then sleep 2
    level_pause: int
    levels: dict[str, list[int]]


PROFILES = {
    # Exactly TFB's defaults (run-tests.py and the concurrency, pipeline and query scripts).
    "full": Profile(5, 5, 15, 5, 15, 2, {
        "concurrency": [16, 32, 64, 128, 256, 512],
        "pipeline": [256, 1024, 4096, 16384],
        "query": [1, 5, 10, 15, 20],
        "cached": [1, 10, 20, 50, 100],
    }),
    # A smoke run: the same sequence, with the ends and the middle of each range, a few seconds each.
    "short": Profile(2, 1, 3, 1, 3, 1, {
        "concurrency": [16, 128, 512],
        "pipeline": [256, 1024],
        "query": [1, 20],
        "cached": [1, 100],
    }),
}


class RunError(Exception):
    """A problem that stops the run before or outside the measurements (exit status 2)."""

@dataclasses.dataclass
class Target:
    """A server under load: its base URL, and its process when known (for CPU per response)."""

    name: str
    base_url: str
    pid: int | None = None
    started_here: bool = False
    banner: list[str] = dataclasses.field(default_factory=list)
    command: str | None = None  # the shell command that starts it, when the runner starts it
