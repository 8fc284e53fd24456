"""The processes of a run: this repository's server, servers started by a command, the database, CPU time."""

from __future__ import annotations

import os
import resource
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from loadrun.model import DB_SCRIPT, ROOT, SERVER_BIN, SERVER_PROJECT, RunError, Target


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and of its descendants (cpu_times)."""
    user, system = cpu_times(pid)
    return user + system


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process and of its descendants (a server started through a launcher or a script is
    still counted whole): the live ones, and those that ended and were waited for by a process in the tree (cutime and
    cstime), so a child that ends between two readings does not take its time out of the sum. /proc/<pid>/stat also
    counts threads that have already exited, which summing /proc/<pid>/task/*/stat would miss."""
    user = system = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile
        # After the command name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
        user += int(fields[11]) + int(fields[13])
        system += int(fields[12]) + int(fields[14])
        pending += children_of(current)
    ticks = os.sysconf("SC_CLK_TCK")
    return user / ticks, system / ticks


def children_of(pid: int) -> list[int]:
    children: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                children += [int(child) for child in listed.read().split()]
    except OSError:
        pass
    return children


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def say(message: str) -> None:
    print(f"[loadrun {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class LocalServer:
    """This repository's server, built in Release and started on a free loopback port."""

    READY_TEXT = "Application started."
    START_TIMEOUT = 60  # TFB gives a server 60 s to answer its first request

    def __init__(self, out_dir: Path, build: bool, env: dict[str, str], own_session: bool = False,
                 arguments: list[str] | None = None, http2: bool = False):
        self.out_dir = out_dir
        self.http2 = http2  # also an h2c:// and an https:// listener, for HttpArena's h2 profiles
        self.build = build
        self.env = env
        self.own_session = own_session
        self.arguments = arguments or []  # settings on its command line, after --urls
        self.process: subprocess.Popen | None = None
        self.log_path = out_dir / "server.log"
        self.log = None
        self.target: Target | None = None  # set by the first start, kept by restarts
        self.command: list[str] = []

    def start(self) -> Target:
        """Builds (unless --no-build) and starts the server; called again (--restart-rounds), starts it anew on the
        same listeners, with its log appended to, and returns the same target with the new process's pid."""
        if self.target is None:
            self.first_start()
        assert self.target is not None
        say(f"starting {' '.join(self.command)}")
        # The log keeps every start's output: a restart appends, and the ready line is looked for past the old end.
        self.log = open(self.log_path, "a", encoding="utf-8")  # closed by stop()
        offset = self.log_path.stat().st_size
        # A process group of its own keeps a Ctrl+C in the terminal from reaching the server before stop() does. Not a
        # session of its own: with Linux's scheduler autogroups (on by default) a new session gets its own CPU share,
        # and the server would then get half of the machine against wrk's half instead of competing thread by thread,
        # as a server started from the same shell does. Measured: 0.87M against 1.25M plaintext requests/s (1.37
        # against 0.80 us of server CPU per response), the same build in one run, setsid being the only difference.
        # --sessions asks for that starved regime on purpose (a container's CPU quota behaves alike).
        self.process = subprocess.Popen(self.command, cwd=SERVER_BIN, env=self.env, stdout=self.log,
                                        stderr=subprocess.STDOUT, **group_options(self.own_session))
        deadline = time.monotonic() + self.START_TIMEOUT
        while True:
            text = self.log_path.read_bytes()[offset:].decode("utf-8", errors="replace")
            if self.READY_TEXT in text:
                break
            if self.process.poll() is not None:
                raise RunError(f"the server exited during start-up with {self.process.returncode}:\n{text[-3000:]}")
            if time.monotonic() > deadline:
                raise RunError(f"the server did not print '{self.READY_TEXT}' within {self.START_TIMEOUT} s:\n{text[-3000:]}")
            time.sleep(0.1)
        # The server prints its banner (runtime, GC, transport settings, the warm-up's outcome) before the ready line.
        self.target.banner = [line for line in text.splitlines()
                              if line.startswith(("PlatformBenchmarks", "  ")) and not line.startswith("      ")]  # not log bodies
        self.target.pid = self.process.pid
        return self.target

    def first_start(self) -> None:
        """The build, the command line and the listeners' ports, which a restart keeps."""
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
        url = f"http://127.0.0.1:{free_port()}"
        urls = [url]
        self.target = Target("platformbenchmarks", url, None, True)
        if self.http2:
            h2c_url, h2_url = f"http://127.0.0.1:{free_port()}", f"https://127.0.0.1:{free_port()}"
            urls += [h2c_url.replace("http://", "h2c://"), h2_url]
            self.env = {**self.env, **test_certificate(self.out_dir)}
            self.target.h2c_url, self.target.h2_url = h2c_url, h2_url
        self.command = command + ["--urls", ";".join(urls), *self.arguments]
        self.log_path.write_text("", encoding="utf-8")  # a fresh log for the run; restarts append to it

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


def test_certificate(out_dir: Path) -> dict[str, str]:
    """A self-signed certificate for the run's TLS listener, made by openssl into the output folder: the settings
    (TLS_CERT, TLS_KEY) that give it to the server. In raw/, which is never kept with the results."""
    (out_dir / "raw").mkdir(parents=True, exist_ok=True)
    certificate, key = out_dir / "raw" / "server.crt", out_dir / "raw" / "server.key"
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                           "-days", "2", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(certificate)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise RunError("openssl could not make the TLS listener's certificate:\n" + made.stderr[-2000:])
    return {"TLS_CERT": str(certificate), "TLS_KEY": str(key)}


def start_database(env: dict[str, str]) -> str | None:
    """Starts the local PostgreSQL (scripts/db.sh) and returns its connection string, unless one is already set."""
    if env.get("ConnectionString"):
        say("using the ConnectionString from the environment")
        return env["ConnectionString"]
    if not DB_SCRIPT.exists():
        say(f"{DB_SCRIPT.relative_to(ROOT)} is missing, so no local PostgreSQL was started: the database tests will "
            "fail unless ConnectionString names a running database (or leave them out with --tests plaintext,json)")
        return None
    say("starting the local PostgreSQL: scripts/db.sh start")
    started = subprocess.run(["bash", str(DB_SCRIPT), "start"], cwd=ROOT)
    if started.returncode != 0:
        raise RunError("scripts/db.sh start failed")
    return subprocess.run(["bash", str(DB_SCRIPT), "connection-string"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


class CommandServer:
    """Another server, started by a shell command (its own start script, say) and measured at a given base URL.
    Ready when the URL answers any HTTP response; its CPU is the command's process tree."""

    START_TIMEOUT = 120

    def __init__(self, target: Target, out_dir: Path, own_session: bool = False):
        self.target = target
        self.own_session = own_session
        self.log_path = out_dir / f"server-{target.name}.log"
        self.process: subprocess.Popen | None = None
        self.log = None
        self.started = False

    def start(self) -> Target:
        say(f"starting {self.target.name}: {self.target.command}")
        # The first start begins the log; a restart (--restart-rounds) appends to it, keeping the earlier rounds' output.
        self.log = open(self.log_path, "a" if self.started else "w", encoding="utf-8")  # closed by stop()
        self.started = True
        # Its own process group (see LocalServer.start for why not a session of its own), so that stop() ends the
        # command's whole tree. A session leader leads its process group too, so --sessions keeps that.
        self.process = subprocess.Popen(["bash", "-c", self.target.command], stdout=self.log, stderr=subprocess.STDOUT,
                                        **group_options(self.own_session))
        deadline = time.monotonic() + self.START_TIMEOUT
        while not answers(self.target.base_url):
            if self.process.poll() is not None:
                raise RunError(f"{self.target.name} exited during start-up with {self.process.returncode}:\n"
                               + self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:])
            if time.monotonic() > deadline:
                raise RunError(f"{self.target.name} did not answer at {self.target.base_url} within {self.START_TIMEOUT} s")
            time.sleep(0.2)
        self.target.pid = self.process.pid
        self.target.started_here = True
        return self.target

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.log is not None:
            self.log.close()


def group_options(own_session: bool) -> dict:
    """Popen's options for a server: a process group of its own, or with --sessions a session of its own."""
    return {"start_new_session": True} if own_session else {"process_group": 0}


def unverified_tls(url: str) -> ssl.SSLContext | None:
    """For an https:// target, a TLS context that takes any certificate: the servers measured here run on test
    certificates, and what is measured is the server, not its certificate's chain."""
    return ssl._create_unverified_context() if url.startswith("https://") else None  # noqa: S323


def answers(base_url: str) -> bool:
    """Whether anything answers HTTP at the URL (an error status counts: the server is up)."""
    try:
        with urllib.request.urlopen(base_url, timeout=2, context=unverified_tls(base_url)) as response:
            response.read()
        return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, OSError):
        return False
