"""Local load runs with TechEmpower's method (docs/tfb-rules.md section 9), the standard library and, for the chart, matplotlib.

    scenarios/run.sh [--profile short|full] [--tests plaintext,json,...|all|arena|echo-ws] [--rounds N] [--gcannon PATH]
                     [--url [NAME=]URL [--pid PID | --start COMMAND]]... [--self] [--baseline NAME] [--out DIR]
                     [--arena-data DIR] [--restart-rounds]
    python3 scenarios/loadrun parse-wrk < wrk-output.txt     (the parser alone, as JSON)
    python3 scenarios/loadrun parse-gcannon CONNECTIONS < gcannon-json-output.txt
    python3 scenarios/loadrun gcannon-command TEST URL CONNECTIONS THREADS SECONDS DIR
                                                             (the command line, as JSON; the templates into DIR)
    python3 scenarios/loadrun parse-h2load < h2load-output.txt
    python3 scenarios/loadrun report DIR                     (rewrite results.md and the chart from results.json)

Each selected test runs, for each target, TFB's sequence: a primer, a warm-up, then the measured levels, with wrk,
TFB's headers and TFB's sleeps; HttpArena's HTTP/1.1 profiles (baseline, pipelined, json-arena, ...) run the same
sequence with the venue's requests, connection counts and reconnections (scenarios/arena.lua), or, given the venue's
own load generator (--gcannon PATH), those the venue drives with it by gcannon with the venue's arguments and request
templates; its echo-ws profile by gcannon in WebSocket mode (--ws), an echo counting as a response, and its h2
profiles (--tests h2) with h2load as the venue runs it (its URIs, -m streams per connection, -p h2c on the cleartext
listener), on this server's h2c:// and https:// listeners or another's --h2c-url and --h2-url. Per level it records
requests/s, latency percentiles, socket errors, non-2xx responses and, when it knows the server's process, the
server's CPU time per response. With several targets, they take turns test by test, and --rounds repeats the whole
sequence; the report then compares them level by level, with ratios against a baseline. It writes results.json (after
every level, so an interrupted run keeps what it measured), results.md and chart.svg/chart.png into the output folder,
and exits 1 with a list of the offending runs when any wrk run saw an error, a non-2xx response or a response that
failed arena.lua's checks.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import sys
import urllib.parse
from pathlib import Path

from loadrun.chart import draw
from loadrun.gcannon import gcannon_command, parse_gcannon, write_templates
from loadrun.h2load import parse_h2load
from loadrun.model import ALIASES, ARENA_TESTS, DEFAULT_TFB_CONFIG, PROFILES, QUERY_CONNECTIONS, ROOT, TESTS, TFB_TESTS, RunError, Target
from loadrun.processes import CommandServer, LocalServer, say, start_database
from loadrun.report import markdown
from loadrun.runner import Runner, tfb_urls
from loadrun.wrk import parse_wrk


def write_reports(out_dir: Path, document: dict) -> None:
    (out_dir / "results.md").write_text(markdown(document), encoding="utf-8")
    try:
        draw(document, out_dir)
    except ImportError:
        say("no chart: matplotlib is not installed (apt-get install python3-matplotlib; scenarios/run.sh installs it as root)")


class UrlAction(argparse.Action):
    """--url [NAME=]URL, repeatable; a following --pid belongs to the URL before it."""

    def __call__(self, parser, namespace, value, option_string=None):
        targets = getattr(namespace, "url_targets", None) or []
        name, _, url = value.rpartition("=") if re.match(r"^[\w.-]+=", value) else ("", "", value)
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            parser.error(f"--url needs an http://host:port or https://host:port base URL, got '{url}'")
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


class Http2UrlAction(argparse.Action):
    """--h2c-url URL and --h2-url URL: the HTTP/2 listeners of the preceding --url's server, for the h2 profiles."""

    def __call__(self, parser, namespace, value, option_string=None):
        targets = getattr(namespace, "url_targets", None)
        if not targets:
            parser.error(f"{option_string} must follow the --url of the server it belongs to")
        scheme = "http" if option_string == "--h2c-url" else "https"
        if urllib.parse.urlsplit(value).scheme != scheme:
            parser.error(f"{option_string} needs a {scheme}:// base URL, got '{value}'")
        setattr(targets[-1], "h2c_url" if option_string == "--h2c-url" else "h2_url", value)


class StartAction(argparse.Action):
    """--start COMMAND: the runner starts the server of the preceding --url with this shell command, and stops it."""

    def __call__(self, parser, namespace, value, option_string=None):
        targets = getattr(namespace, "url_targets", None)
        if not targets:
            parser.error("--start must follow the --url of the server it starts")
        if targets[-1].pid is not None:
            parser.error("--start and --pid cannot both be given for one --url")
        targets[-1].command = value


def parse_levels(text: str) -> dict[str, list[int]]:
    keys = list(PROFILES["full"].levels)
    levels: dict[str, list[int]] = {}
    for part in text.split(";"):
        key, _, values = part.partition("=")
        if key not in keys or not values:
            raise argparse.ArgumentTypeError(f"expected KEY=N,N,... with KEY one of {', '.join(keys)}; got '{part}'")
        levels[key] = [int(v) for v in values.split(",")]
    return levels


def arena_data(text: str) -> Path:
    """The folder holding HttpArena's dataset.json and static/: the venue's data/ folder, or a checkout of the venue."""
    folder = Path(text).resolve()
    for candidate in (folder, folder / "data"):
        if (candidate / "dataset.json").is_file():
            return candidate
    raise argparse.ArgumentTypeError(f"{text} holds no dataset.json (nor data/dataset.json): give HttpArena's data/ "
                                     "folder, or a checkout of the venue")


def arena_settings(folder: Path | None) -> list[str]:
    """This server's arguments for HttpArena's data, as the venue mounts it; none without --arena-data (the server's own
    settings then apply: /data/dataset.json and /data/static, where the venue mounts them)."""
    if folder is None:
        return []
    return ["--HttpArena:DatasetPath", str(folder / "dataset.json"), "--HttpArena:StaticPath", str(folder / "static")]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scenarios/run.sh", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="short",
                        help="full: TFB's levels and durations (about 15 min for all seven tests), the venue's "
                             "connection counts for HttpArena's tests; short (default): fewer levels, a few seconds each")
    parser.add_argument("--tests", default="plaintext,json",
                        help=f"comma-separated, from {', '.join(TESTS)}; or 'all' (TFB's seven), 'arena' (HttpArena's "
                             "HTTP/1.1 profiles but json-tls and echo-ws) or 'h2' (its HTTP/2 profiles, by h2load) (default: plaintext,json)")
    parser.add_argument("--url", action=UrlAction, metavar="[NAME=]URL",
                        help="measure the server at this base URL instead of starting this one; repeatable, to "
                             "measure several implementations in one run")
    parser.add_argument("--pid", action=PidAction, type=int,
                        help="the process id of the server of the preceding --url, for its CPU time per response")
    parser.add_argument("--h2c-url", action=Http2UrlAction, metavar="URL",
                        help="the preceding --url's server's HTTP/2 listener with prior knowledge (an http:// base URL), "
                             "for baseline-h2c and json-h2c")
    parser.add_argument("--h2-url", action=Http2UrlAction, metavar="URL",
                        help="the preceding --url's server's TLS listener that offers h2 by ALPN (an https:// base URL), "
                             "for baseline-h2 and static-h2")
    parser.add_argument("--start", action=StartAction, metavar="COMMAND",
                        help="a shell command that starts the server of the preceding --url (the runner waits until the "
                             "URL answers, counts the command's process tree's CPU, and stops it at the end)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the whole sequence this many times, the targets taking turns in each (default: 1)")
    parser.add_argument("--restart-rounds", action="store_true",
                        help="before every round after the first, stop the servers the runner started and start them "
                             "again, one later in the start order each round, as the measuring order rotates")
    parser.add_argument("--baseline", metavar="NAME",
                        help="the target the comparison's ratios are against (default: the first target)")
    parser.add_argument("--self", action="store_true", dest="include_self",
                        help="also build, start and measure this repository's server when --url is given")
    parser.add_argument("--out", type=Path, help="output folder (default: scenarios/runs/<UTC time>-<profile>, which git ignores; to keep a run, give --out scenarios/results/<name> and commit its results.md)")
    parser.add_argument("--no-build", action="store_true", help="start the existing Release build as it is")
    parser.add_argument("--arena-data", type=arena_data, metavar="DIR",
                        help="HttpArena's data for this server: the folder of dataset.json and static/ (the venue's "
                             "data/ folder, or its checkout); default: the server's settings, /data as the venue mounts it")
    parser.add_argument("--tfb-config", type=Path, default=DEFAULT_TFB_CONFIG,
                        help="benchmark_config.json whose URLs are used (default: docker/tfb/benchmark_config.json)")
    parser.add_argument("--tfb-test", default="default", help="the test entry in that file (default: default)")
    parser.add_argument("--duration", type=int, help="override the seconds per measured level")
    parser.add_argument("--warmup", type=int, help="override the warm-up seconds")
    parser.add_argument("--primer", type=int, help="override the primer seconds")
    parser.add_argument("--levels", type=parse_levels, metavar="KEY=N,..;...",
                        help="override levels, by TFB method or HttpArena test, e.g. 'concurrency=64,256;pipeline=1024' "
                             "or 'static=256;upload=8'")
    parser.add_argument("--gcannon", type=Path, metavar="PATH",
                        help="the venue's load generator (github.com/MDA2AV/gcannon, built outside this repository): it "
                             "then drives the HttpArena tests the venue drives with it (baseline, limited-conn, pipelined, "
                             "json-arena, json-comp, async-db) as the venue does, and echo-ws in its WebSocket mode")
    parser.add_argument("--threads", type=int, help="wrk threads at most (default: the number of CPUs, as TFB)")
    parser.add_argument("--query-connections", type=int, default=QUERY_CONNECTIONS, metavar="N",
                        help=f"connections of the queries, updates and cached levels (default: TFB's {QUERY_CONNECTIONS})")
    parser.add_argument("--sessions", action="store_true",
                        help="start each server in a session of its own (setsid): with the scheduler's autogroups it "
                             "then gets one CPU share against wrk's and each database backend's, a starved regime")
    parser.add_argument("--no-pauses", action="store_true", help="skip TFB's sleeps between runs (tests only)")
    args = parser.parse_args(argv)
    if args.query_connections < 1:
        parser.error("--query-connections must be at least 1")
    # 'arena' is the profiles wrk drives on the plaintext listener; echo-ws needs the venue's own load generator
    # (--gcannon) and json-tls a TLS listener's URL, so each is named alone. 'h2' is the venue's h2 profiles, which
    # h2load drives.
    groups = {"all": list(TFB_TESTS),
              "arena": [name for name, test in ARENA_TESTS.items() if not test.websocket and not test.tls and not test.h2load],
              "h2": [name for name, test in ARENA_TESTS.items() if test.h2load]}
    names = [name for part in args.tests.split(",")
             for name in groups.get(part.strip(), [ALIASES.get(part.strip(), part.strip())])]
    unknown = [n for n in names if n not in TESTS]
    if unknown:
        parser.error(f"unknown test(s) {', '.join(unknown)}; choose from {', '.join(TESTS)}, all, arena or h2")
    args.test_types = [TESTS[n] for n in names]
    if any(getattr(t, "websocket", False) for t in args.test_types) and args.gcannon is None:
        parser.error("echo-ws runs the venue's gcannon in its WebSocket mode: give its path with --gcannon PATH "
                     "(built from github.com/MDA2AV/gcannon outside this repository)")
    if args.gcannon is not None:
        args.gcannon = args.gcannon.resolve()  # gcannon runs in the output folder, where its templates are
        if not (args.gcannon.is_file() and os.access(args.gcannon, os.X_OK)):
            parser.error(f"--gcannon {args.gcannon}: no executable there (build it from github.com/MDA2AV/gcannon)")
    args.url_targets = getattr(args, "url_targets", None) or []
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    names_given = [target.name for target in args.url_targets] + (["platformbenchmarks"] if args.include_self or not args.url_targets else [])
    if len(set(names_given)) != len(names_given):
        parser.error("every target needs its own name: --url NAME=URL")
    if args.baseline is not None and args.baseline not in names_given:
        parser.error(f"--baseline {args.baseline} names no target (targets: {', '.join(names_given)})")
    if args.restart_rounds and "platformbenchmarks" not in names_given and not any(t.command for t in args.url_targets):
        parser.error("--restart-rounds restarts the servers the runner starts (--start, --self): there are none")
    if args.arena_data is not None and "platformbenchmarks" not in names_given:
        parser.error("--arena-data gives this server its data: add --self (other servers get theirs from --start)")
    return args


def print_gcannon_command(words: list[str]) -> int:
    """gcannon-command TEST URL CONNECTIONS THREADS SECONDS DIR: the command line a measured level of TEST runs, as a
    JSON list (the binary as gcannon), with the test's templates written into DIR as for a run."""
    if len(words) != 6 or not all(word.isdigit() for word in words[2:5]):
        print("usage: gcannon-command TEST URL CONNECTIONS THREADS SECONDS DIR", file=sys.stderr)
        return 2
    name, url, connections, threads, seconds, folder = words
    test = ARENA_TESTS.get(ALIASES.get(name, name))
    if test is None or not (test.gcannon or test.websocket):
        print(f"gcannon-command: {name} is not a test gcannon drives (those are: "
              + ", ".join(n for n, t in ARENA_TESTS.items() if t.gcannon or t.websocket) + ")", file=sys.stderr)
        return 2
    templates = write_templates(test, Path(folder)) if test.gcannon == "raw" else []
    print(json.dumps(gcannon_command("gcannon", test, url, int(connections), int(threads), int(seconds), templates)))
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["parse-wrk"]:
        print(json.dumps(parse_wrk(sys.stdin.read()), indent=2))
        return 0
    if argv[:1] == ["parse-gcannon"]:
        print(json.dumps(parse_gcannon(sys.stdin.read(), int(argv[1])), indent=2))
        return 0
    if argv[:1] == ["gcannon-command"]:
        return print_gcannon_command(argv[1:])
    if argv[:1] == ["parse-h2load"]:
        print(json.dumps(parse_h2load(sys.stdin.read()), indent=2))
        return 0
    if argv[:1] == ["report"]:
        out_dir = Path(argv[1])
        document = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
        write_reports(out_dir, document)
        return 0

    args = parse_args(argv)
    if shutil.which("wrk") is None:
        print("loadrun: error: wrk is not installed (scenarios/run.sh installs it)", file=sys.stderr)
        return 2
    if any(getattr(t, "h2load", False) for t in args.test_types) and shutil.which("h2load") is None:
        print("loadrun: error: the h2 profiles need h2load (apt-get install nghttp2-client; scenarios/run.sh installs it)",
              file=sys.stderr)
        return 2
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_dir = (args.out or ROOT / "scenarios" / "runs" / f"{stamp}-{args.profile}").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    started: list[CommandServer | LocalServer] = []
    try:
        urls = tfb_urls(args.tfb_config, args.tfb_test)
        targets = list(args.url_targets)
        for target in targets:
            if target.command is not None:
                started.append(CommandServer(target, out_dir, args.sessions))
                started[-1].start()
        if args.include_self or not targets:
            env = dict(os.environ)
            if any(t.uses_database for t in args.test_types):
                connection_string = start_database(env)
                if connection_string:
                    env["ConnectionString"] = connection_string
            if any(t.name in ARENA_TESTS for t in args.test_types) and args.arena_data is None:
                say("this server reads HttpArena's data from its own settings (/data/dataset.json, /data/static): "
                    "--arena-data DIR gives it another folder")
            server = LocalServer(out_dir, not args.no_build, env, args.sessions, arena_settings(args.arena_data),
                                 http2=any(getattr(t, "h2load", False) for t in args.test_types))
            started.append(server)
            targets.insert(0, server.start())
        runner = Runner(args, targets, out_dir, urls, started)
        try:
            runner.run(args.test_types)
        finally:
            runner.save()
            write_reports(out_dir, runner.document)
    except RunError as error:
        print(f"loadrun: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("loadrun: interrupted; partial results are in " + str(out_dir), file=sys.stderr)
        return 130
    finally:
        for other in started:
            other.stop()

    print(f"results: {out_dir}/results.md, results.json, chart.svg, chart.png", file=sys.stderr)
    failures = runner.document["failures"]
    if failures:
        print(f"\nloadrun: FAILED: {len(failures)} run(s) saw errors or non-2xx responses:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    return 0
