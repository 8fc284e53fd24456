"""What a load run is made of: TFB's test types, HttpArena's HTTP/1.1 profiles, the run profiles, the targets, and the
run's own error."""

from __future__ import annotations

import dataclasses
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PIPELINE_SCRIPT = ROOT / "scenarios" / "pipeline.lua"
ARENA_SCRIPT = ROOT / "scenarios" / "arena.lua"
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


TFB_TESTS = {
    t.name: t
    for t in [
        TestType("plaintext", "plaintext_url", "pipeline", ACCEPT_PLAINTEXT, False, "connections (16 pipelined)"),
        TestType("json", "json_url", "concurrency", ACCEPT_JSON, False, "connections"),
        TestType("db", "db_url", "concurrency", ACCEPT_JSON, True, "connections"),
        TestType("queries", "query_url", "query", ACCEPT_JSON, True, "queries per request"),
        TestType("updates", "update_url", "query", ACCEPT_JSON, True, "updates per request"),
        TestType("fortunes", "fortune_url", "concurrency", ACCEPT_JSON, True, "connections"),
        TestType("cached", "cached_query_url", "cached", ACCEPT_JSON, True, "cached rows per request"),
    ]
}
PIPELINE_DEPTH = 16
QUERY_CONNECTIONS = 512  # query.sh: every query, update and cached level runs at the maximum concurrency (--query-connections)


@dataclasses.dataclass(frozen=True)
class ArenaRequest:
    """One request of an HttpArena profile's mix, in scenarios/arena.lua's words."""

    kind: str  # get, post (a Content-Length body) or chunked (a POST whose body is one chunk)
    path: str
    body: str | None = None  # a text body
    size: int = 0  # or a body of this many bytes

    def arguments(self) -> list[str]:
        return ([f"{self.kind}={self.path}"] + ([f"body={self.body}"] if self.body is not None else [])
                + ([f"bytes={self.size}"] if self.size else []))


@dataclasses.dataclass(frozen=True)
class ArenaTest:
    """One of HttpArena's HTTP/1.1 isolated profiles as wrk sends it: the venue's requests in its order, its connection
    counts and its reconnections, from its docs (site/content/docs/test-profiles/h1/isolated/), its request templates
    (requests/) and its load scripts (scripts/lib/profiles.sh, scripts/lib/tools/)."""

    name: str
    profile: str  # the venue's name for it
    levels: tuple[int, ...]  # the venue's connection counts
    requests: tuple[ArenaRequest, ...]  # sent in turn
    level_unit: str
    # The venue's load generator opens a new connection after this many requests on one (gcannon -r; 0: never). wrk
    # cannot close a connection itself, so arena.lua asks the server to, with Connection: close, as often.
    reconnect_every: int = 0
    pipeline: int = 1
    headers: tuple[str, ...] = ()  # on every request, beside the Host that wrk sends
    checks: tuple[str, ...] = ()  # arena.lua's checks of every response; each makes wrk keep the bodies, so cheap ones
    uses_database: bool = False
    # Driven by the venue's own load generator in WebSocket mode (gcannon --ws, from --gcannon PATH) instead of wrk: the
    # first request's path is upgraded, then each connection keeps one "hello" text frame in flight.
    websocket: bool = False
    # How the venue's gcannon sends it (scripts/lib/tools/gcannon.sh), which the runner does too when --gcannon is given:
    # "raw", the requests as template files (--raw), one per connection and the next on each reconnect; "url", gcannon's
    # own GET of the URL (pipelined's /pipeline). "": wrk here, as the venue drives it with another tool (static and
    # json-tls with wrk), or, for upload, with bodies of random bytes it does not publish whole.
    gcannon: str = ""
    # Driven by h2load, as the venue drives its h2 profiles: this many streams in flight per connection (-m), on the
    # target's HTTP/2 listener, over TLS with ALPN h2 or, when cleartext, with prior knowledge (h2load -p h2c).
    h2_streams: int = 0
    cleartext: bool = False
    # The venue sends it over TLS, to a listener of its own (port 8081): the target's URL says where, https:// as the
    # venue does, or http:// for the same load in the clear, the figure TLS is compared against. Named alone, not in
    # 'arena', whose targets are the plaintext listeners.
    tls: bool = False

    @property
    def method(self) -> str:
        """The key of its levels in a profile and in --levels: its own name, as its levels are its own."""
        return self.name

    @property
    def h2load(self) -> bool:
        return self.h2_streams > 0

    def script_arguments(self) -> list[str]:
        """What follows `--` on wrk's command line for arena.lua."""
        every = [f"every={self.reconnect_every}"] if self.reconnect_every else []
        return every + [word for request in self.requests for word in request.arguments()] + list(self.checks)


def _baseline_mix() -> tuple[ArenaRequest, ...]:
    path = "/baseline11?a=13&b=42"  # requests/get.raw, post_cl.raw and post_chunked.raw
    return ArenaRequest("get", path), ArenaRequest("post", path, "20"), ArenaRequest("chunked", path, "20")


# requests/static-rotate.lua's order.
ARENA_STATIC_FILES = ("reset.css", "layout.css", "theme.css", "components.css", "utilities.css", "analytics.js",
                      "helpers.js", "app.js", "vendor.js", "router.js", "header.html", "footer.html", "regular.woff2",
                      "bold.woff2", "logo.svg", "icon-sprite.svg", "hero.webp", "thumb1.webp", "thumb2.webp",
                      "manifest.json")
ARENA_UPLOAD_SIZES = (512_000, 2_097_152, 10_485_760, 20_971_520)  # requests/upload-{500k,2m,10m,20m}.raw
# The json profile's count and multiplier pairs, in the venue's order (requests/json-*.raw, json-tls-rotate.lua).
JSON_PAIRS = tuple(ArenaRequest("get", f"/json/{count}?m={m}")
                   for count, m in ((1, 3), (5, 7), (10, 2), (15, 5), (25, 4), (40, 8), (50, 6)))
BASELINE_SUMS = "expect=55,75"  # 13 + 42, and 13 + 42 + 20 for the POSTs

ARENA_TESTS = {
    t.name: t
    for t in [
        ArenaTest("baseline", "baseline", (512, 4096), _baseline_mix(),
                  "connections (GET, POST, chunked POST to /baseline11 in turn)", checks=(BASELINE_SUMS,), gcannon="raw"),
        ArenaTest("limited-conn", "limited-conn", (512, 4096), _baseline_mix(),
                  "connections (as baseline, a new connection per 10 requests)", reconnect_every=10,
                  checks=(BASELINE_SUMS,), gcannon="raw"),
        ArenaTest("pipelined", "pipelined", (512, 4096), (ArenaRequest("get", "/pipeline"),),
                  "connections (/pipeline, 16 pipelined)", pipeline=PIPELINE_DEPTH, gcannon="url"),
        ArenaTest("json-arena", "json", (4096,), JSON_PAIRS,
                  "connections (/json/N?m=M, 7 pairs in turn, a new connection per 25 requests)", reconnect_every=25,
                  gcannon="raw"),
        ArenaTest("json-comp", "json-comp", (512, 4096, 16384),
                  tuple(ArenaRequest("get", f"/json/{count}?m={m}") for count, m in ((25, 4), (40, 8), (50, 6))),
                  "connections (/json/N?m=M gzip or br, 3 pairs in turn, a new connection per 25 requests)",
                  reconnect_every=25, headers=("Accept-Encoding: gzip, br",), checks=("encoding=gzip,br",), gcannon="raw"),
        # requests/json-tls-rotate.lua: json's seven pairs, no Accept-Encoding, connections kept open.
        ArenaTest("json-tls", "json-tls", (4096,), JSON_PAIRS,
                  "connections (/json/N?m=M, 7 pairs in turn, over the URL's scheme: https:// as the venue)", tls=True),
        ArenaTest("upload", "upload", (32, 256),
                  tuple(ArenaRequest("post", "/upload", size=size) for size in ARENA_UPLOAD_SIZES),
                  "connections (POST /upload of 500 KiB, 2, 10 and 20 MiB in turn, a new connection per 5)",
                  reconnect_every=5, checks=("expect=" + ",".join(map(str, ARENA_UPLOAD_SIZES)),)),
        ArenaTest("static", "static", (1024, 4096, 6800),
                  tuple(ArenaRequest("get", f"/static/{name}") for name in ARENA_STATIC_FILES),
                  "connections (20 files under /static/ in turn, br or gzip preferred)",
                  headers=("Accept-Encoding: br;q=1, gzip;q=0.8",)),
        ArenaTest("async-db", "async-db", (1024,),
                  tuple(ArenaRequest("get", f"/async-db?min=10&max=50&limit={limit}") for limit in (5, 10, 20, 35, 50)),
                  "connections (/async-db, limits 5 to 50 in turn, a new connection per 25 requests)",
                  reconnect_every=25, checks=('match="count":[1-9]',), uses_database=True, gcannon="raw"),
        ArenaTest("echo-ws", "echo-ws", (512, 4096, 16384), (ArenaRequest("get", "/ws"),),
                  "connections (WebSocket on /ws, one 'hello' text frame in flight each; gcannon --ws)", websocket=True),
        # The h2 profiles (scripts/lib/tools/h2load.sh, requests/static-h2-uris.txt and json-h2c-uris.txt).
        ArenaTest("baseline-h2", "baseline-h2", (256, 1024), (ArenaRequest("get", "/baseline2?a=1&b=1"),),
                  "connections (/baseline2 over TLS, ALPN h2, 100 streams each; h2load)", h2_streams=100),
        ArenaTest("static-h2", "static-h2", (256, 1024),
                  tuple(ArenaRequest("get", f"/static/{name}") for name in ARENA_STATIC_FILES),
                  "connections (20 files under /static/ over TLS, ALPN h2, 32 streams each, br or gzip preferred; h2load)",
                  headers=("Accept-Encoding: br;q=1, gzip;q=0.8",), h2_streams=32),
        ArenaTest("baseline-h2c", "baseline-h2c", (256, 1024, 4096), (ArenaRequest("get", "/baseline2?a=1&b=1"),),
                  "connections (/baseline2 over h2c by prior knowledge, 100 streams each; h2load -p h2c)",
                  h2_streams=100, cleartext=True),
        ArenaTest("json-h2c", "json-h2c", (1024, 4096), JSON_PAIRS,
                  "connections (/json/N?m=M over h2c, 7 pairs in turn, 32 streams each; h2load -p h2c)",
                  h2_streams=32, cleartext=True),
    ]
}

# Every test by name, in the order the report lists them.
TESTS: dict[str, TestType | ArenaTest] = {**TFB_TESTS, **ARENA_TESTS}
# TFB's own type names, and other names of HttpArena's profiles, accepted on the command line too.
ALIASES = {"query": "queries", "update": "updates", "fortune": "fortunes", "cached-query": "cached", "cached_query": "cached",
           "arena-json": "json-arena", "short-lived": "limited-conn", "async-database": "async-db"}
# The short profile runs each HttpArena test at the venue's lowest connection count, at most this many.
ARENA_SHORT_MAX = 1024


def arena_levels(short: bool) -> dict[str, list[int]]:
    """The HttpArena tests' levels: the venue's connection counts, or for the short profile its lowest one, capped."""
    return {name: [min(min(test.levels), ARENA_SHORT_MAX)] if short else list(test.levels)
            for name, test in ARENA_TESTS.items()}


@dataclasses.dataclass(frozen=True)
class Profile:
    primer: int  # seconds; TFB: wrk -d 5 -c 8 -t 8, then sleep 5
    primer_pause: int
    warmup: int  # seconds; TFB: wrk -d 15 -c 512 -t nproc, then sleep 5
    warmup_pause: int
    duration: int  # seconds per measured level; TFB: 15, then sleep 2
    level_pause: int
    levels: dict[str, list[int]]  # by TFB method, and by HttpArena test


PROFILES = {
    # Exactly TFB's defaults (run-tests.py and the concurrency, pipeline and query scripts); the venue's connection
    # counts for the HttpArena tests.
    "full": Profile(5, 5, 15, 5, 15, 2, {
        "concurrency": [16, 32, 64, 128, 256, 512],
        "pipeline": [256, 1024, 4096, 16384],
        "query": [1, 5, 10, 15, 20],
        "cached": [1, 10, 20, 50, 100],
        **arena_levels(short=False),
    }),
    # A smoke run: the same sequence, with the ends and the middle of each range, a few seconds each.
    "short": Profile(2, 1, 3, 1, 3, 1, {
        "concurrency": [16, 128, 512],
        "pipeline": [256, 1024],
        "query": [1, 20],
        "cached": [1, 100],
        **arena_levels(short=True),
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
    # Its HTTP/2 listeners for HttpArena's h2 profiles: with prior knowledge (h2c) and over TLS (ALPN h2).
    h2c_url: str | None = None
    h2_url: str | None = None
