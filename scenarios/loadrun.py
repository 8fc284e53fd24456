#!/usr/bin/env python3
"""Local load runs with TechEmpower's method (docs/tfb-rules.md section 9), standard library only.

    scenarios/run.sh [--profile short|full] [--tests plaintext,json,...] [--url [NAME=]URL [--pid PID]]... [--self]
                     [--out DIR]
    python3 scenarios/loadrun.py parse-wrk < wrk-output.txt     (the parser alone, as JSON)
    python3 scenarios/loadrun.py report DIR                     (rewrite results.md and chart.svg from results.json)

Each selected test runs, for each target, TFB's sequence: a primer, a warm-up, then the measured levels, with wrk,
TFB's headers and TFB's sleeps. Per level it records requests/s, latency percentiles, socket errors, non-2xx
responses and, when it knows the server's process, the server's CPU time per response. It writes results.json
(after every level, so an interrupted run keeps what it measured), results.md and chart.svg into the output folder,
and exits 1 with a list of the offending runs when any wrk run saw an error or a non-2xx response.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import html
import json
import math
import os
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIPELINE_SCRIPT = Path(__file__).resolve().parent / "pipeline.lua"
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


# ---------------------------------------------------------------------------------------------------------------
# wrk output

_TIME_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def _time_ms(text: str) -> float | None:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    return round(float(match.group(1)) * _TIME_UNITS_MS[match.group(2)], 4) if match else None


def parse_wrk(output: str) -> dict:
    """The figures of one wrk 4.x run. wrk omits the socket-error and non-2xx lines when they are zero."""
    result: dict = {"requests": None, "seconds": None, "rps": None, "latency_ms": {},
                    "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx": 0}
    match = re.search(r"^\s*(\d+) requests in ([\d.]+(?:us|ms|s|m|h))", output, re.M)
    if match:
        result["requests"] = int(match.group(1))
        elapsed = _time_ms(match.group(2))
        result["seconds"] = elapsed / 1000.0 if elapsed is not None else None
    match = re.search(r"^Requests/sec:\s+([\d.]+)", output, re.M)
    if match:
        result["rps"] = float(match.group(1))
    match = re.search(r"^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)", output, re.M)
    if match:
        for key, text in zip(("avg", "stdev", "max"), match.groups()):
            result["latency_ms"][key] = _time_ms(text)
    for percent, text in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", output, re.M):
        result["latency_ms"]["p" + percent] = _time_ms(text)
    # wrk 4.1 sometimes prints a percentile as 0.00us (seen for p99 at 16384 pipelined connections): a value below
    # a lower percentile is wrk's error, not a measurement, so it is left out and noted.
    result["warnings"] = []
    floor = 0.0
    for key in ("p50", "p75", "p90", "p99"):
        value = result["latency_ms"].get(key)
        if value is None:
            continue
        if value < floor:
            result["latency_ms"][key] = None
            result["warnings"].append(f"wrk reported {key} = {value} ms, below a lower percentile: left out")
        else:
            floor = value
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if match:
        result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, match.groups())))
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if match:
        result["non_2xx"] = int(match.group(1))
    return result


def problems_of(run: dict) -> list[str]:
    """Why a wrk run counts as failed, if it does."""
    found = []
    if run.get("exit_code"):
        found.append(f"wrk exited with {run['exit_code']}")
    if run.get("requests") is None:
        found.append("no response was counted (wrk's output did not say 'N requests in')")
    elif run["requests"] == 0:
        found.append(f"no response arrived in the {run.get('duration_s')} s window")
    errors = run.get("socket_errors", {})
    if any(errors.values()):
        found.append("socket errors " + ", ".join(f"{k} {v}" for k, v in errors.items() if v))
    if run.get("non_2xx"):
        found.append(f"{run['non_2xx']} non-2xx/3xx responses")
    return found


# ---------------------------------------------------------------------------------------------------------------
# Processes

def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a whole process. /proc/<pid>/stat also counts threads that have already exited,
    which summing /proc/<pid>/task/*/stat would miss."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    # After the command name: state is field 3, utime field 14, stime field 15 (proc(5)).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def say(message: str) -> None:
    print(f"[loadrun {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class Target:
    name: str
    base_url: str
    pid: int | None = None
    started_here: bool = False
    banner: list[str] = dataclasses.field(default_factory=list)


class LocalServer:
    """This repository's server, built in Release and started on a free loopback port."""

    READY_TEXT = "Application started."
    START_TIMEOUT = 60  # TFB gives a server 60 s to answer its first request

    def __init__(self, out_dir: Path, build: bool, env: dict[str, str]):
        self.out_dir = out_dir
        self.build = build
        self.env = env
        self.process: subprocess.Popen | None = None
        self.log_path = out_dir / "server.log"
        self.log = None

    def start(self) -> Target:
        if self.build:
            say(f"building {SERVER_PROJECT.relative_to(ROOT)} in Release")
            built = subprocess.run(["dotnet", "build", str(SERVER_PROJECT), "-c", "Release", "-nologo", "-v", "q"],
                                   cwd=ROOT, capture_output=True, text=True)
            if built.returncode != 0:
                raise RunError("the Release build failed:\n" + built.stdout[-4000:] + built.stderr[-2000:])
        apphost = SERVER_BIN / "PlatformBenchmarks"
        dll = SERVER_BIN / "PlatformBenchmarks.dll"
        # The apphost keeps the server's own pid (no `dotnet` launcher in between) for the CPU accounting.
        command = [str(apphost)] if apphost.exists() else ["dotnet", str(dll)]
        if not apphost.exists() and not dll.exists():
            raise RunError(f"no build output in {SERVER_BIN} (run without --no-build)")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command += ["--urls", url]
        say(f"starting {' '.join(command)}")
        self.log = open(self.log_path, "w", encoding="utf-8")  # closed by stop()
        # A process group of its own keeps a Ctrl+C in the terminal from reaching the server before stop() does. Not a
        # session of its own: with Linux's scheduler autogroups (on by default) a new session gets its own CPU share,
        # and the server would then get half of the machine against wrk's half instead of competing thread by thread,
        # as a server started from the same shell does. Measured: 0.87M against 1.25M plaintext requests/s (1.37
        # against 0.80 us of server CPU per response), the same build in one run, setsid being the only difference.
        self.process = subprocess.Popen(command, cwd=SERVER_BIN, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                        process_group=0)
        deadline = time.monotonic() + self.START_TIMEOUT
        while True:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            if self.READY_TEXT in text:
                break
            if self.process.poll() is not None:
                raise RunError(f"the server exited during start-up with {self.process.returncode}:\n{text[-3000:]}")
            if time.monotonic() > deadline:
                raise RunError(f"the server did not print '{self.READY_TEXT}' within {self.START_TIMEOUT} s:\n{text[-3000:]}")
            time.sleep(0.1)
        # The banner (runtime, GC, transport settings) follows the host's start-up line; its last line lists the routes.
        for _ in range(50):
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            if "\n  Routes:" in text:
                break
            time.sleep(0.1)
        banner = [line for line in text.splitlines()
                  if line.startswith(("PlatformBenchmarks", "  ")) and not line.startswith("      ")]  # not log bodies
        return Target("platformbenchmarks", url, self.process.pid, True, banner)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                say("the server ignored SIGTERM for 15 s: killing it")
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()


def start_database(env: dict[str, str]) -> str | None:
    """Starts the local PostgreSQL (scripts/db.sh) and returns its connection string, unless one is already set."""
    if env.get("ConnectionString"):
        say("using the ConnectionString from the environment")
        return env["ConnectionString"]
    if not DB_SCRIPT.exists():
        say(f"{DB_SCRIPT.relative_to(ROOT)} does not exist on this branch: the database tests will fail against a "
            "server without database routes")
        return None
    say("starting the local PostgreSQL: scripts/db.sh start")
    started = subprocess.run(["bash", str(DB_SCRIPT), "start"], cwd=ROOT)
    if started.returncode != 0:
        raise RunError("scripts/db.sh start failed")
    return subprocess.run(["bash", str(DB_SCRIPT), "connection-string"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


# ---------------------------------------------------------------------------------------------------------------
# The runs

def tfb_urls(config_path: Path, test_name: str) -> dict[str, str]:
    """The test URLs of one test entry of a TFB benchmark_config.json, by this runner's test names."""
    config = json.loads(config_path.read_text(encoding="utf-8"))
    for entry in config["tests"]:
        if test_name in entry:
            urls = entry[test_name]
            return {name: urls[t.url_key] for name, t in TESTS.items() if t.url_key in urls}
    raise RunError(f"{config_path} has no test named '{test_name}'")


class Runner:
    def __init__(self, args: argparse.Namespace, targets: list[Target], out_dir: Path, urls: dict[str, str]):
        self.args = args
        self.targets = targets
        self.out_dir = out_dir
        self.urls = urls
        self.profile = PROFILES[args.profile]
        self.nproc = args.threads or os.cpu_count() or 1
        self.document = {
            "meta": run_metadata(args, self.nproc),
            "targets": [dataclasses.asdict(t) for t in targets],
            "runs": [],
            "failures": [],
        }
        (out_dir / "raw").mkdir(parents=True, exist_ok=True)

    def pause(self, seconds: int) -> None:
        if seconds and not self.args.no_pauses:
            time.sleep(seconds)

    def save(self) -> None:
        write_json(self.out_dir / "results.json", self.document)

    def fail(self, target: Target, test: str, what: str) -> None:
        message = f"{target.name} {test}: {what}"
        say("FAILED " + message)
        self.document["failures"].append(message)

    def wrk(self, target: Target, test: TestType, phase: str, url: str, connections: int, threads: int,
            seconds: int, level: int | None, pipeline: int = 1) -> dict:
        command = ["wrk", "-H", "Host: tfb-server", "-H", f"Accept: {test.accept}", "-H", "Connection: keep-alive",
                   "--latency", "-d", str(seconds), "-c", str(connections), "--timeout", "8", "-t", str(threads), url]
        if pipeline > 1:
            command += ["-s", str(PIPELINE_SCRIPT), "--", str(pipeline)]
        label = f"{target.name}-{test.name}-{phase}" + (f"-{level}" if level is not None else "")
        say(f"{label}: {shlex.join(command)}")
        measure = phase == "level" and target.pid is not None
        server_before = cpu_seconds(target.pid) if measure else 0.0
        client_before = children_cpu_seconds()
        finished = subprocess.run(command, capture_output=True, text=True)
        client_cpu = children_cpu_seconds() - client_before
        server_cpu = cpu_seconds(target.pid) - server_before if measure else None
        raw = self.out_dir / "raw" / (re.sub(r"[^\w.-]", "_", label) + ".txt")
        raw.write_text(shlex.join(command) + "\n\n" + finished.stdout + finished.stderr, encoding="utf-8")
        run = {"target": target.name, "test": test.name, "phase": phase, "level": level, "url": url,
               "connections": connections, "threads": threads, "pipeline": pipeline, "duration_s": seconds,
               **parse_wrk(finished.stdout), "exit_code": finished.returncode,
               "server_cpu_s": server_cpu, "wrk_cpu_s": client_cpu, "raw": str(raw.relative_to(self.out_dir))}
        responses = run["requests"] or 0
        run["server_cpu_us_per_response"] = server_cpu * 1e6 / responses if server_cpu is not None and responses else None
        run["wrk_cpu_us_per_response"] = client_cpu * 1e6 / responses if responses else None
        self.document["runs"].append(run)
        self.save()
        problems = problems_of(run)
        if problems:
            self.fail(target, test.name, f"{phase}{'' if level is None else ' ' + str(level)}: " + "; ".join(problems)
                      + f" (see {run['raw']})")
        elif phase == "level":
            cpu = run["server_cpu_us_per_response"]
            say(f"{label}: {run['rps']:,.0f} requests/s, p99 {fmt_ms(run['latency_ms'].get('p99'))} ms"
                + (f", server {cpu:.2f} us CPU per response" if cpu is not None else ""))
        return run

    def preflight(self, target: Target, test: TestType, url: str) -> bool:
        """One request before the load: a missing route fails here in a second, with its status in the message."""
        request = urllib.request.Request(url, headers={"Accept": test.accept})
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                response.read()
                return True
        except urllib.error.HTTPError as error:
            self.fail(target, test.name, f"GET {url} answered {error.code} {error.reason}: not measured"
                      + (" (the database routes are not on this branch yet?)" if test.uses_database and error.code == 404 else ""))
        except (urllib.error.URLError, OSError) as error:
            self.fail(target, test.name, f"GET {url} failed: {error}: not measured")
        return False

    def run_test(self, target: Target, test: TestType) -> None:
        profile = self.profile
        base = target.base_url.rstrip("/") + self.urls[test.name]
        levels = self.args.levels.get(test.method) if self.args.levels else None
        levels = levels or profile.levels[test.method]
        primer, warmup, duration = (self.args.primer or profile.primer, self.args.warmup or profile.warmup,
                                    self.args.duration or profile.duration)
        # query.sh primes and warms with 2 rows per request; the other scripts with the plain URL.
        warm_url = base + "2" if test.method in ("query", "cached") else base
        if not self.preflight(target, test, warm_url):
            return
        say(f"== {target.name} {test.name}: {warm_url}")
        self.wrk(target, test, "primer", warm_url, 8, 8, primer, None)
        self.pause(profile.primer_pause)
        self.wrk(target, test, "warmup", warm_url, 512, self.nproc, warmup, None)
        self.pause(profile.warmup_pause)
        for index, level in enumerate(levels):
            if test.method in ("query", "cached"):
                self.wrk(target, test, "level", base + str(level), QUERY_CONNECTIONS, self.nproc, duration, level)
            else:
                pipeline = PIPELINE_DEPTH if test.method == "pipeline" else 1
                self.wrk(target, test, "level", base, level, min(level, self.nproc), duration, level, pipeline)
            if index < len(levels) - 1:
                self.pause(profile.level_pause)

    def run(self, tests: list[TestType]) -> None:
        for test in tests:
            if test.name not in self.urls:
                raise RunError(f"the TFB config has no {TESTS[test.name].url_key} for the test '{test.name}'")
            # Targets take turns per test, so a comparison between them sees the same machine state.
            for target in self.targets:
                self.run_test(target, test)
        self.document["meta"]["finished"] = now_iso()
        self.save()


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_json(path: Path, document: dict) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def run_metadata(args: argparse.Namespace, nproc: int) -> dict:
    def output(*command: str) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=10)
            return (done.stdout + done.stderr).strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown")
    return {
        "started": now_iso(),
        "profile": args.profile,
        "command": " ".join(["scenarios/run.sh"] + sys.argv[1:]),
        "host": {"cpu": cpu, "logical_cpus": os.cpu_count(), "kernel": os.uname().release},
        "wrk": (re.findall(r"^wrk \S+", output("wrk", "-v")) or ["wrk (version unknown)"])[0],
        "wrk_threads_max": nproc,
        "git": {"commit": output("git", "rev-parse", "--short", "HEAD"),
                "dirty": bool(output("git", "status", "--porcelain", "--untracked-files=no"))},
    }


# ---------------------------------------------------------------------------------------------------------------
# Reports

def fmt_count(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def measured(document: dict) -> list[dict]:
    return [run for run in document["runs"] if run["phase"] == "level"]


def markdown(document: dict) -> str:
    meta = document["meta"]
    lines = [
        "# Load run",
        "",
        f"- Profile **{meta['profile']}**, started {meta['started']}, finished {meta.get('finished', '(interrupted)')}",
        f"- Command: `{meta['command']}`",
        f"- Machine: {meta['host']['cpu']}, {meta['host']['logical_cpus']} logical CPUs, Linux {meta['host']['kernel']}; "
        f"the load generator shares it ({meta['wrk']}, at most {meta['wrk_threads_max']} threads)",
        f"- Commit {meta['git']['commit']}{' with uncommitted changes' if meta['git']['dirty'] else ''}",
    ]
    for target in document["targets"]:
        how = "started by the runner" if target["started_here"] else "given by --url"
        cpu = f", CPU of pid {target['pid']} counted" if target["pid"] else ", server CPU not counted"
        lines.append(f"- Target **{target['name']}**: {target['base_url']} ({how}{cpu})")
        lines += [f"  - `{line.strip()}`" for line in target.get("banner", [])]
    lines += ["", "Requests/s and latency come from wrk; server CPU is user+system time of the server process over the",
              "measured window divided by the responses; wrk CPU likewise for the load generator. Non-2xx counts what",
              "wrk reports as `Non-2xx or 3xx responses` (status 400 and above).", ""]
    runs = measured(document)
    for name, test in TESTS.items():
        rows = [run for run in runs if run["test"] == name]
        if not rows:
            continue
        lines += [f"## {name}", "", f"Level: {test.level_unit}.", "",
                  "| Level | Target | Requests/s | p50 ms | p75 ms | p90 ms | p99 ms | Socket errors c/r/w/t | Non-2xx "
                  "| Server CPU µs/resp | wrk CPU µs/resp |",
                  "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for run in rows:
            if run["rps"] is None:
                lines.append(f"| {run['level']} | {run['target']} | no result: {'; '.join(problems_of(run))} |"
                             + " |" * 8)
                continue
            latency = run["latency_ms"]
            errors = run["socket_errors"]
            server = run["server_cpu_us_per_response"]
            client = run["wrk_cpu_us_per_response"]
            lines.append(
                f"| {run['level']} | {run['target']} | {run['rps']:,.0f} | {fmt_ms(latency.get('p50'))} | "
                f"{fmt_ms(latency.get('p75'))} | {fmt_ms(latency.get('p90'))} | {fmt_ms(latency.get('p99'))} | "
                f"{errors['connect']}/{errors['read']}/{errors['write']}/{errors['timeout']} | {run['non_2xx']} | "
                f"{'–' if server is None else f'{server:.2f}'} | {'–' if client is None else f'{client:.2f}'} |")
        lines.append("")
    notes = [f"{run['target']} {run['test']} {run['level']}: {warning}" for run in runs for warning in run.get("warnings", [])]
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    if document["failures"]:
        lines += ["## Failures", ""] + [f"- {failure}" for failure in document["failures"]] + [""]
    return "\n".join(lines)


PALETTE = ["#2f6db5", "#e07b28", "#3a9a5b", "#b8433b", "#7b5ea7", "#8c6d31"]


def nice_step(maximum: float, ticks: int = 5) -> float:
    raw = maximum / ticks if maximum > 0 else 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def chart_svg(document: dict) -> str:
    """Requests/s per level, one panel per test, one bar colour per target. Hand-written SVG: no dependencies."""
    runs = measured(document)
    tests = [name for name in TESTS if any(run["test"] == name for run in runs)]
    targets = [target["name"] for target in document["targets"]]
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(targets)}
    columns = 2 if len(tests) > 1 else 1
    panel_w, panel_h, top = (520 if columns > 1 else 640), 300, 88
    width = columns * panel_w + 20
    height = top + math.ceil(max(len(tests), 1) / columns) * panel_h + 10
    meta = document["meta"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="20" y="28" font-size="18" font-weight="bold">Requests per second by load level</text>',
           f'<text x="20" y="48" font-size="12" fill="#555">{html.escape(meta["profile"])} profile, {html.escape(meta["started"])}, '
           f'{meta["host"]["logical_cpus"]} CPUs shared with wrk, commit {html.escape(meta["git"]["commit"])}</text>']
    legend_x = 20.0  # its own line under the subtitle, so it never runs into the title
    for name in targets:
        out.append(f'<rect x="{legend_x:.0f}" y="60" width="12" height="12" fill="{colours[name]}"/>'
                   f'<text x="{legend_x + 17:.0f}" y="71" font-size="12">{html.escape(name)}</text>')
        legend_x += 7.2 * len(name) + 36
    for index, name in enumerate(tests):
        rows = [run for run in runs if run["test"] == name]
        levels = sorted({run["level"] for run in rows})
        x0 = 10 + (index % columns) * panel_w
        y0 = top + (index // columns) * panel_h
        plot_l, plot_r, plot_t, plot_b = x0 + 62, x0 + panel_w - 16, y0 + 30, y0 + panel_h - 52
        peak = max((run["rps"] or 0 for run in rows), default=0)
        step = nice_step(peak * 1.08)
        ceiling = step * math.ceil(peak * 1.08 / step) if peak else step
        scale = (plot_b - plot_t) / ceiling
        out.append(f'<text x="{x0 + 8}" y="{y0 + 16}" font-size="14" font-weight="bold">{html.escape(name)}</text>')
        tick = 0.0
        while tick <= ceiling + step / 2:
            y = plot_b - tick * scale
            out.append(f'<line x1="{plot_l}" y1="{y:.1f}" x2="{plot_r}" y2="{y:.1f}" stroke="#e3e3e3"/>'
                       f'<text x="{plot_l - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#444">'
                       f'{fmt_count(tick)}</text>')
            tick += step
        out.append(f'<line x1="{plot_l}" y1="{plot_b}" x2="{plot_r}" y2="{plot_b}" stroke="#888"/>')
        group_w = (plot_r - plot_l) / max(len(levels), 1)
        bar_w = min(44.0, group_w * 0.8 / max(len(targets), 1))
        for li, level in enumerate(levels):
            centre = plot_l + group_w * (li + 0.5)
            first = centre - bar_w * len(targets) / 2
            for ti, target in enumerate(targets):
                run = next((r for r in rows if r["level"] == level and r["target"] == target), None)
                if run is None or run["rps"] is None:
                    continue
                h = run["rps"] * scale
                x = first + ti * bar_w
                failed = bool(problems_of(run))
                outline = ' stroke="#d00" stroke-width="2"' if failed else ""  # a run with errors
                out.append(f'<rect x="{x:.1f}" y="{plot_b - h:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" '
                           f'fill="{colours[target]}"{outline}>'
                           f'<title>{html.escape(target)} {name} {level}: {run["rps"]:,.0f} requests/s</title></rect>')
                out.append(f'<text x="{x + (bar_w - 2) / 2:.1f}" y="{plot_b - h - 4:.1f}" font-size="10" '
                           f'text-anchor="middle" fill="#222">{fmt_count(run["rps"])}{" ✗" if failed else ""}</text>')
                cpu = run["server_cpu_us_per_response"]
                if cpu is not None:  # the figure to compare servers by when they share the machine with wrk
                    out.append(f'<text x="{x + (bar_w - 2) / 2:.1f}" y="{plot_b + 27}" font-size="9" '
                               f'text-anchor="middle" fill="#777">{cpu:.2f}</text>')
            out.append(f'<text x="{centre:.1f}" y="{plot_b + 14}" font-size="11" text-anchor="middle">{level}</text>')
        has_cpu = any(run["server_cpu_us_per_response"] is not None for run in rows)
        out.append(f'<text x="{(plot_l + plot_r) / 2:.0f}" y="{plot_b + 43}" font-size="11" text-anchor="middle" '
                   f'fill="#555">{html.escape(TESTS[name].level_unit)}'
                   f'{"; grey: server CPU µs per response" if has_cpu else ""}</text>')
    if not tests:
        out.append(f'<text x="20" y="{top + 30}" font-size="14">No measured level.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_reports(out_dir: Path, document: dict, png: bool) -> None:
    (out_dir / "results.md").write_text(markdown(document), encoding="utf-8")
    (out_dir / "chart.svg").write_text(chart_svg(document), encoding="utf-8")
    if png:
        converter = shutil.which("rsvg-convert")
        if converter is None:
            say("--png: rsvg-convert is not installed (apt-get install librsvg2-bin); only chart.svg written")
        else:
            subprocess.run([converter, "-o", str(out_dir / "chart.png"), str(out_dir / "chart.svg")], check=True)


# ---------------------------------------------------------------------------------------------------------------
# Command line

class UrlAction(argparse.Action):
    """--url [NAME=]URL, repeatable; a following --pid belongs to the URL before it."""

    def __call__(self, parser, namespace, value, option_string=None):
        targets = getattr(namespace, "url_targets", None) or []
        name, _, url = value.rpartition("=") if re.match(r"^[\w.-]+=", value) else ("", "", value)
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme != "http" or not parsed.netloc:
            parser.error(f"--url needs an http://host:port base URL, got '{url}'")
        targets.append(Target(name or parsed.netloc, url))
        namespace.url_targets = targets


class PidAction(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        targets = getattr(namespace, "url_targets", None)
        if not targets:
            parser.error("--pid must follow the --url of the server it belongs to")
        if not Path(f"/proc/{value}/stat").exists():
            parser.error(f"--pid {value}: no such process")
        targets[-1].pid = value


def parse_levels(text: str) -> dict[str, list[int]]:
    levels: dict[str, list[int]] = {}
    for part in text.split(";"):
        method, _, values = part.partition("=")
        if method not in ("concurrency", "pipeline", "query", "cached") or not values:
            raise argparse.ArgumentTypeError(f"expected METHOD=N,N,... with METHOD one of concurrency, pipeline, "
                                             f"query, cached; got '{part}'")
        levels[method] = [int(v) for v in values.split(",")]
    return levels


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scenarios/run.sh", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="short",
                        help="full: TFB's levels and durations (about 15 min for all seven tests); short (default): "
                             "fewer levels, a few seconds each")
    parser.add_argument("--tests", default="plaintext,json",
                        help=f"comma-separated, from {', '.join(TESTS)} or 'all' (default: plaintext,json)")
    parser.add_argument("--url", action=UrlAction, metavar="[NAME=]URL",
                        help="measure the server at this base URL instead of starting this one; repeatable, to "
                             "measure several implementations in one run")
    parser.add_argument("--pid", action=PidAction, type=int,
                        help="the process id of the server of the preceding --url, for its CPU time per response")
    parser.add_argument("--self", action="store_true", dest="include_self",
                        help="also build, start and measure this repository's server when --url is given")
    parser.add_argument("--out", type=Path, help="output folder (default: scenarios/runs/<UTC time>-<profile>, which git ignores; to keep a run, give --out scenarios/results/<name> and commit it)")
    parser.add_argument("--no-build", action="store_true", help="start the existing Release build as it is")
    parser.add_argument("--tfb-config", type=Path, default=DEFAULT_TFB_CONFIG,
                        help="benchmark_config.json whose URLs are used (default: docker/tfb/benchmark_config.json)")
    parser.add_argument("--tfb-test", default="default", help="the test entry in that file (default: default)")
    parser.add_argument("--duration", type=int, help="override the seconds per measured level")
    parser.add_argument("--warmup", type=int, help="override the warm-up seconds")
    parser.add_argument("--primer", type=int, help="override the primer seconds")
    parser.add_argument("--levels", type=parse_levels, metavar="METHOD=N,..;...",
                        help="override levels, e.g. 'concurrency=64,256;pipeline=1024'")
    parser.add_argument("--threads", type=int, help="wrk threads at most (default: the number of CPUs, as TFB)")
    parser.add_argument("--no-pauses", action="store_true", help="skip TFB's sleeps between runs (tests only)")
    parser.add_argument("--png", action="store_true", help="also render chart.png with rsvg-convert")
    args = parser.parse_args(argv)
    names = list(TESTS) if args.tests == "all" else [ALIASES.get(n.strip(), n.strip()) for n in args.tests.split(",")]
    unknown = [n for n in names if n not in TESTS]
    if unknown:
        parser.error(f"unknown test(s) {', '.join(unknown)}; choose from {', '.join(TESTS)} or all")
    args.test_types = [TESTS[n] for n in names]
    args.url_targets = getattr(args, "url_targets", None) or []
    return args


def main(argv: list[str]) -> int:
    if argv[:1] == ["parse-wrk"]:
        print(json.dumps(parse_wrk(sys.stdin.read()), indent=2))
        return 0
    if argv[:1] == ["report"]:
        out_dir = Path(argv[1])
        document = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
        write_reports(out_dir, document, "--png" in argv)
        return 0

    args = parse_args(argv)
    if shutil.which("wrk") is None:
        print("loadrun: error: wrk is not installed (scenarios/run.sh installs it)", file=sys.stderr)
        return 2
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_dir = (args.out or ROOT / "scenarios" / "runs" / f"{stamp}-{args.profile}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    server = None
    try:
        urls = tfb_urls(args.tfb_config, args.tfb_test)
        targets = list(args.url_targets)
        if args.include_self or not targets:
            env = dict(os.environ)
            if any(t.uses_database for t in args.test_types):
                connection_string = start_database(env)
                if connection_string:
                    env["ConnectionString"] = connection_string
            server = LocalServer(out_dir, not args.no_build, env)
            targets.insert(0, server.start())
        runner = Runner(args, targets, out_dir, urls)
        try:
            runner.run(args.test_types)
        finally:
            runner.save()
            write_reports(out_dir, runner.document, args.png)
    except RunError as error:
        print(f"loadrun: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("loadrun: interrupted; partial results are in " + str(out_dir), file=sys.stderr)
        return 130
    finally:
        if server is not None:
            server.stop()

    print(f"results: {out_dir}/results.md, results.json, chart.svg", file=sys.stderr)
    failures = runner.document["failures"]
    if failures:
        print(f"\nloadrun: FAILED: {len(failures)} run(s) saw errors or non-2xx responses:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
