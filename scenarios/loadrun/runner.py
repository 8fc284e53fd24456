"""The runs: TFB's sequence per test and target (primer, warm-up, measured levels), in rounds, with wrk; HttpArena's
profiles go through the same sequence with the venue's requests, by wrk or, given --gcannon, by the venue's gcannon."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from loadrun.model import (ARENA_SCRIPT, PIPELINE_DEPTH, PIPELINE_SCRIPT, PROFILES, ROOT, TFB_TESTS,
                           ArenaTest, RunError, Target, TestType)
from loadrun.gcannon import (COUNTING_DELAY_S, answer_problem, gcannon_command, parse_gcannon, url_request,
                             websocket_echo_problem, write_templates)
from loadrun.h2load import h2load_command, parse_h2load
from loadrun.processes import children_cpu_seconds, cpu_times, say, unverified_tls
from loadrun.report import fmt_ms
from loadrun.wrk import parse_wrk, problems_of


def tfb_urls(config_path: Path, test_name: str) -> dict[str, str]:
    """The test URLs of one test entry of a TFB benchmark_config.json, by this runner's test names."""
    config = json.loads(config_path.read_text(encoding="utf-8"))
    for entry in config["tests"]:
        if test_name in entry:
            urls = entry[test_name]
            return {name: urls[t.url_key] for name, t in TFB_TESTS.items() if t.url_key in urls}
    raise RunError(f"{config_path} has no test named '{test_name}'")


class Runner:
    # How long past its duration a load generator may run before the runner stops it, its run then failing.
    GENERATOR_GRACE_S = 60

    def __init__(self, args: argparse.Namespace, targets: list[Target], out_dir: Path, urls: dict[str, str],
                 servers: list | None = None):
        self.args = args
        self.targets = targets
        self.servers = servers or []  # those the runner started, in their first start's order, for --restart-rounds
        self.out_dir = out_dir
        self.urls = urls
        self.profile = PROFILES[args.profile]
        self.nproc = args.threads or os.cpu_count() or 1
        self.round = 1
        self.document = {
            "meta": run_metadata(args, self.nproc),
            "targets": [dataclasses.asdict(t) for t in targets],
            "runs": [],
            "failures": [],
        }
        if args.restart_rounds and self.servers:
            self.document["starts"] = [self.starts_entry()]
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

    def wrk(self, target: Target, test: TestType | ArenaTest, phase: str, url: str, connections: int, threads: int,
            seconds: int, level: int | None, pipeline: int = 1) -> dict:
        command = (["wrk", *header_options(test), "--latency", "-d", str(seconds), "-c", str(connections), "--timeout", "8",
                    "-t", str(threads), url] + script_options(test, pipeline))
        return self.measure(target, test, phase, url, connections, threads, seconds, level, pipeline, command, parse_wrk,
                            "requests/s", "response")

    def gcannon(self, target: Target, test: ArenaTest, phase: str, connections: int, threads: int, seconds: int,
                level: int | None, templates: list[str] | None = None) -> dict:
        """One run of the venue's load generator, with the venue's arguments for the test, in the output folder (its
        templates' paths are relative to it). In WebSocket mode each connection upgrades, then keeps one frame in flight,
        and an echo counts as a response, so the report's figures read per echo."""
        command = gcannon_command(str(self.args.gcannon), test, target.base_url, connections, threads, seconds, templates or [])

        def parse(output: str) -> dict:
            run = parse_gcannon(output, connections)
            if not test.reconnect_every and run.get("reconnects"):
                run["warnings"].append(f"gcannon reconnected {run['reconnects']} times: the server closed connections")
            return run

        return self.measure(target, test, phase, command[1], connections, threads, seconds, level, test.pipeline, command,
                            parse, "echoes/s" if test.websocket else "requests/s", "echo" if test.websocket else "response",
                            tool="gcannon", cwd=self.out_dir, counting_delay=COUNTING_DELAY_S)

    def h2load(self, target: Target, test: ArenaTest, phase: str, base_url: str, connections: int, seconds: int,
               level: int | None) -> dict:
        """One run of h2load as the venue runs it for an h2 profile: its URIs in turn from a file, its streams per
        connection; a response is a 2xx, as the venue counts them."""
        uris = self.out_dir / "raw" / f"{target.name}-{test.name}-uris.txt"
        uris.write_text("".join(base_url.rstrip("/") + request.path + "\n" for request in test.requests), encoding="utf-8")
        threads = min(connections, self.nproc)
        command = h2load_command(str(uris), connections, test.h2_streams, threads, seconds, test.cleartext, test.headers)
        return self.measure(target, test, phase, base_url, connections, threads, seconds, level, 1, command,
                            parse_h2load, "requests/s", "response", tool="h2load")

    def measure(self, target: Target, test: TestType | ArenaTest, phase: str, url: str, connections: int, threads: int,
                seconds: int, level: int | None, pipeline: int, command: list[str], parse, rate: str, unit: str,
                tool: str = "wrk", cwd: Path | None = None, counting_delay: float = 0.0) -> dict:
        """Runs the load generator's command, with the server's CPU time around it on a measured level, and records the
        run with what parse reads from its output (parse_wrk's figures). A generator that starts counting counting_delay
        seconds after its start (gcannon, after its warm-up) has the server's CPU read from then on, so that the CPU and
        the responses it is divided by span the same window."""
        label = (f"r{self.round}-" if self.args.rounds > 1 else "") + f"{target.name}-{test.name}-{phase}" + (f"-{level}" if level is not None else "")
        say(f"{label}: {shlex.join(command)}")
        measure = phase == "level" and target.pid is not None
        client_before = children_cpu_seconds()
        server_before = cpu_times(target.pid) if measure and not counting_delay else (0.0, 0.0)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
        if measure and counting_delay:
            time.sleep(counting_delay)
            server_before = cpu_times(target.pid)
        try:
            stdout, stderr = process.communicate(timeout=seconds + self.GENERATOR_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()  # the venue bounds gcannon the same way (timeout 45 in scripts/lib/tools/gcannon.sh)
            stdout, stderr = process.communicate()
            stderr += f"\n(stopped by the runner {seconds + self.GENERATOR_GRACE_S} s after its start)\n"
        client_cpu = children_cpu_seconds() - client_before
        # User time is the server's own code; system time is the kernel's work for it (on a shared machine, also where
        # most of the swings between rounds show): kept apart as well as summed.
        server_user, server_system = (None, None)
        if measure:
            server_after = cpu_times(target.pid)
            server_user, server_system = server_after[0] - server_before[0], server_after[1] - server_before[1]
        server_cpu = server_user + server_system if measure else None
        raw = self.out_dir / "raw" / (re.sub(r"[^\w.-]", "_", label) + ".txt")
        raw.write_text(shlex.join(command) + "\n\n" + stdout + stderr, encoding="utf-8")
        run = {"round": self.round, "target": target.name, "test": test.name, "phase": phase, "level": level, "url": url,
               "connections": connections, "threads": threads, "pipeline": pipeline, "duration_s": seconds,
               "tool": tool, "command": command, **parse(stdout), "exit_code": process.returncode,
               "server_cpu_s": server_cpu, "server_user_s": server_user, "server_system_s": server_system,
               "wrk_cpu_s": client_cpu, "raw": str(raw.relative_to(self.out_dir))}
        responses = run["requests"] or 0
        run["server_cpu_us_per_response"] = server_cpu * 1e6 / responses if server_cpu is not None and responses else None
        run["server_user_us_per_response"] = server_user * 1e6 / responses if server_user is not None and responses else None
        run["server_system_us_per_response"] = server_system * 1e6 / responses if server_system is not None and responses else None
        run["wrk_cpu_us_per_response"] = client_cpu * 1e6 / responses if responses else None
        self.document["runs"].append(run)
        self.save()
        problems = problems_of(run)
        if problems:
            self.fail(target, test.name, f"{phase}{'' if level is None else ' ' + str(level)}: " + "; ".join(problems)
                      + f" (see {run['raw']})")
        elif phase == "level":
            cpu = run["server_cpu_us_per_response"]
            latency = run["latency_ms"]
            say(f"{label}: {run['rps']:,.0f} {rate}, "
                + (f"p99 {fmt_ms(latency.get('p99'))} ms" if "p99" in latency or "avg" not in latency else f"mean {fmt_ms(latency['avg'])} ms")
                + (f", server {cpu:.2f} us CPU per {unit}" if cpu is not None else ""))
        return run

    def websocket_preflight(self, target: Target, test: ArenaTest, url: str) -> bool:
        """The upgrade and one echo before the load, as the venue's validation does them first."""
        problem = websocket_echo_problem(url)
        if problem:
            self.fail(target, test.name, f"WebSocket {url}: {problem}: not measured")
        return problem is None

    def preflight(self, target: Target, test: TestType | ArenaTest, url: str) -> bool:
        """One request before the load: a missing route fails here in a second, with its status in the message. For an
        HttpArena test, its first request (a POST with its body, for uploads)."""
        if isinstance(test, TestType):
            request = urllib.request.Request(url, headers={"Accept": test.accept})
        else:
            first = test.requests[0]
            body = None if first.kind == "get" else first.body.encode() if first.body is not None else bytes(first.size)
            request = urllib.request.Request(url, data=body, headers=dict(h.split(": ", 1) for h in test.headers))
        try:
            with urllib.request.urlopen(request, timeout=15, context=unverified_tls(url)) as response:
                response.read()
                return True
        except urllib.error.HTTPError as error:
            self.fail(target, test.name, f"{request.get_method()} {url} answered {error.code} {error.reason}: not measured"
                      + hint(test, error.code))
        except (urllib.error.URLError, OSError) as error:
            self.fail(target, test.name, f"{request.get_method()} {url} failed: {error}: not measured")
        return False

    def run_test(self, target: Target, test: TestType | ArenaTest) -> None:
        if isinstance(test, ArenaTest):
            self.run_arena_test(target, test)
            return
        profile = self.profile
        base = target.base_url.rstrip("/") + self.urls[test.name]
        levels = self.levels(test)
        # query.sh primes and warms with 2 rows per request; the other scripts with the plain URL.
        warm_url = base + "2" if test.method in ("query", "cached") else base
        if not self.preflight(target, test, warm_url):
            return
        say(f"== {target.name} {test.name}: {warm_url}")
        self.prime_and_warm(target, test, warm_url, 512)
        for index, level in enumerate(levels):
            if test.method in ("query", "cached"):
                self.wrk(target, test, "level", base + str(level), self.args.query_connections, self.nproc, self.duration, level)
            else:
                pipeline = PIPELINE_DEPTH if test.method == "pipeline" else 1
                self.wrk(target, test, "level", base, level, min(level, self.nproc), self.duration, level, pipeline)
            if index < len(levels) - 1:
                self.pause(profile.level_pause)

    def run_arena_test(self, target: Target, test: ArenaTest) -> None:
        """TFB's sequence with the venue's requests: primer, warm-up, then a level per connection count. The warm-up
        runs at TFB's 512 connections, or at the highest level when that is lower: upload's, as 512 connections of
        uploads of up to 20 MiB would be far past the venue's load."""
        levels = self.levels(test)
        # The URL names the first request (wrk takes the server from it); arena.lua sends the whole mix.
        url = target.base_url.rstrip("/") + test.requests[0].path
        if test.websocket:
            self.run_websocket_test(target, test, url, levels)
            return
        if test.h2load:
            self.run_h2load_test(target, test, levels)
            return
        if test.gcannon and self.args.gcannon is not None:
            self.run_gcannon_test(target, test, levels)
            return
        if not self.preflight(target, test, url):
            return
        say(f"== {target.name} {test.name}: HttpArena's {test.profile} profile at {target.base_url}")
        self.prime_and_warm(target, test, url, min(512, max(levels)))
        for index, level in enumerate(levels):
            self.wrk(target, test, "level", url, level, min(level, self.nproc), self.duration, level, test.pipeline)
            if index < len(levels) - 1:
                self.pause(self.profile.level_pause)

    def run_websocket_test(self, target: Target, test: ArenaTest, url: str, levels: list[int]) -> None:
        """The same sequence with gcannon --ws: primer, warm-up at the lowest level, then the levels."""
        if not self.websocket_preflight(target, test, url):
            return
        say(f"== {target.name} {test.name}: HttpArena's {test.profile} profile at {url}, gcannon --ws")
        self.gcannon_sequence(target, test, levels, min(levels), [])

    def run_gcannon_test(self, target: Target, test: ArenaTest, levels: list[int]) -> None:
        """The sequence with the venue's gcannon, as the venue drives the test: its templates written into the output
        folder, each first sent alone and its answer checked (the status and the test's checks, which gcannon does not
        make: it counts statuses only), then the primer, the warm-up at wrk's connections and the levels."""
        parsed = urllib.parse.urlsplit(target.base_url)
        if parsed.scheme != "http" or parsed.path not in ("", "/"):
            self.fail(target, test.name, f"gcannon sends to an http://host:port base URL, and its templates name their own "
                                         f"paths; {target.base_url} is not one: not measured")
            return
        templates = write_templates(test, self.out_dir) if test.gcannon == "raw" else []
        requests = ([(name, (self.out_dir / name).read_bytes()) for name in templates] if templates else
                    [(f"GET {test.requests[0].path}", url_request(target.base_url.rstrip("/") + test.requests[0].path))])
        for name, request in requests:
            status, problem = answer_problem(target.base_url, request, test.checks)
            if problem:
                self.fail(target, test.name, f"{name} {problem}: not measured" + hint(test, status or 0))
                return
        say(f"== {target.name} {test.name}: HttpArena's {test.profile} profile at {target.base_url}, gcannon")
        self.gcannon_sequence(target, test, levels, min(512, max(levels)), templates)

    def gcannon_sequence(self, target: Target, test: ArenaTest, levels: list[int], warm: int, templates: list[str]) -> None:
        """TFB's sequence by gcannon: the primer at 8 connections, the warm-up at warm, the levels."""
        self.gcannon(target, test, "primer", 8, min(8, self.nproc), self.args.primer or self.profile.primer, None, templates)
        self.pause(self.profile.primer_pause)
        self.gcannon(target, test, "warmup", warm, min(warm, self.nproc), self.args.warmup or self.profile.warmup, None,
                     templates)
        self.pause(self.profile.warmup_pause)
        for index, level in enumerate(levels):
            self.gcannon(target, test, "level", level, min(level, self.nproc), self.duration, level, templates)
            if index < len(levels) - 1:
                self.pause(self.profile.level_pause)

    def run_h2load_test(self, target: Target, test: ArenaTest, levels: list[int]) -> None:
        """The same sequence with h2load on the target's HTTP/2 listener: primer, warm-up at the lowest level, levels.
        The primer is the check before the load: a run whose responses are not 2xx fails there."""
        base_url = target.h2c_url if test.cleartext else target.h2_url
        if base_url is None:
            option = "--h2c-url" if test.cleartext else "--h2-url"
            self.fail(target, test.name, f"no {'h2c' if test.cleartext else 'TLS h2'} listener known ({option} after its --url): not measured")
            return
        say(f"== {target.name} {test.name}: HttpArena's {test.profile} profile at {base_url}, h2load")
        primer = self.h2load(target, test, "primer", base_url, 8, self.args.primer or self.profile.primer, None)
        if problems_of(primer):
            return  # recorded as a failure: a route the server lacks answers 404 here, and its load would measure nothing
        self.pause(self.profile.primer_pause)
        self.h2load(target, test, "warmup", base_url, min(levels), self.args.warmup or self.profile.warmup, None)
        self.pause(self.profile.warmup_pause)
        for index, level in enumerate(levels):
            self.h2load(target, test, "level", base_url, level, self.duration, level)
            if index < len(levels) - 1:
                self.pause(self.profile.level_pause)

    def levels(self, test: TestType | ArenaTest) -> list[int]:
        given = self.args.levels.get(test.method) if self.args.levels else None
        return given or self.profile.levels[test.method]

    @property
    def duration(self) -> int:
        return self.args.duration or self.profile.duration

    def prime_and_warm(self, target: Target, test: TestType | ArenaTest, url: str, warm_connections: int) -> None:
        """TFB's primer (8 connections, 8 threads) and warm-up (the CPUs' threads), each followed by its pause."""
        pipeline = test.pipeline if isinstance(test, ArenaTest) else 1
        self.wrk(target, test, "primer", url, 8, 8, self.args.primer or self.profile.primer, None, pipeline)
        self.pause(self.profile.primer_pause)
        self.wrk(target, test, "warmup", url, warm_connections, min(warm_connections, self.nproc),
                 self.args.warmup or self.profile.warmup, None, pipeline)
        self.pause(self.profile.warmup_pause)

    def run(self, tests: list[TestType | ArenaTest]) -> None:
        for test in tests:
            if isinstance(test, TestType) and test.name not in self.urls:
                raise RunError(f"the TFB config has no {test.url_key} for the test '{test.name}'")
        # Targets take turns per test, and rounds repeat the whole sequence, so a comparison between targets sees the
        # same machine state and its drift averages out. Each round starts one target later than the one before: the
        # target measured first after another's load tends to come out lower, and rotating spreads that over all of
        # them (with as many rounds as targets, or a multiple, each goes first equally often).
        for self.round in range(1, self.args.rounds + 1):
            if self.args.rounds > 1:
                say(f"== round {self.round} of {self.args.rounds}")
            if self.round > 1 and self.args.restart_rounds and self.servers:
                self.restart()
            for test in tests:
                for target in rotated(self.targets, self.round - 1):
                    self.run_test(target, test)
        self.document["meta"]["finished"] = now_iso()
        self.save()

    def restart(self) -> None:
        """--restart-rounds: every server the runner started is stopped, then started again, one later in the order each
        round, as the measuring order rotates, so that no server is always the one started first: a start order held for
        the whole run may favour one of them (two runs here read a build several per cent dearer when it was started
        first; a run with this option did not confirm it), and rotating it leaves nothing to that order."""
        for server in self.servers:
            server.stop()
        order = rotated(self.servers, self.round - 1)
        say(f"restarting {', '.join(server.target.name for server in order)}, in that order")
        for server in order:
            server.start()
        self.document["targets"] = [dataclasses.asdict(t) for t in self.targets]
        self.document["starts"].append(self.starts_entry(order))
        self.save()

    def starts_entry(self, order: list | None = None) -> dict:
        """The round's start order, with the pids whose CPU is counted from then on."""
        order = self.servers if order is None else order
        return {"round": self.round, "order": [server.target.name for server in order],
                "pids": {server.target.name: server.target.pid for server in order}}


def header_options(test: TestType | ArenaTest) -> list[str]:
    """wrk's -H options: TFB's three headers, or the venue's own (wrk adds the Host)."""
    headers = test.headers if isinstance(test, ArenaTest) else ["Host: tfb-server", f"Accept: {test.accept}",
                                                                  "Connection: keep-alive"]
    return [option for header in headers for option in ("-H", header)]


def script_options(test: TestType | ArenaTest, pipeline: int) -> list[str]:
    """wrk's script and its arguments: pipelining for TFB's plaintext and the venue's pipelined profile (its one request
    repeated), arena.lua with the venue's mix for the other HttpArena profiles, none for TFB's other tests."""
    if pipeline > 1:
        return ["-s", str(PIPELINE_SCRIPT), "--", str(pipeline)]
    if isinstance(test, ArenaTest):
        return ["-s", str(ARENA_SCRIPT), "--", *test.script_arguments()]
    return []


def hint(test: TestType | ArenaTest, status: int) -> str:
    """What a failed first request most likely means, for the message."""
    if isinstance(test, TestType):
        return (" (this server has no database routes: run it with them, or leave the database tests out with --tests"
                " plaintext,json)" if test.uses_database and status == 404 else "")
    if test.name in ("json-arena", "json-comp", "json-tls") and status == 503:
        return " (the server has no dataset: for this server give --arena-data DIR, the folder of dataset.json)"
    if test.name == "static" and status == 404:
        return " (the server has no static files: for this server give --arena-data DIR, the folder of static/)"
    if test.uses_database and status in (500, 503):
        return " (the server has no database: scripts/db.sh start, and give the other server its DATABASE_URL)"
    return ""


def rotated(items: list, shift: int) -> list:
    """The items, starting at index shift (modulo their count) and wrapping around."""
    shift %= len(items)
    return items[shift:] + items[:shift]


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
        "rounds": args.rounds,
        "baseline": args.baseline,
        "command": shlex.join(["scenarios/run.sh"] + sys.argv[1:]),  # re-runs as written, quoting kept
        "host": {"cpu": cpu, "logical_cpus": os.cpu_count(), "kernel": os.uname().release},
        "wrk": (re.findall(r"^wrk \S+", output("wrk", "-v")) or ["wrk (version unknown)"])[0],
        "wrk_threads_max": nproc,
        "git": {"commit": output("git", "rev-parse", "--short", "HEAD"),
                "dirty": bool(output("git", "status", "--porcelain", "--untracked-files=no"))},
    }
