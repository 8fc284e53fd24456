#!/usr/bin/env python3
"""Opens connections to an HTTP server and aborts them with a reset (SO_LINGER 0) at a steady rate, in turn in each
way a client can leave: before sending anything, in the middle of a request head, right after a whole request (so the
server answers, or queries the database, for a peer already gone), in the middle of the answers to 16 pipelined
requests, and after reading the status line of its answer. scenarios/soak.sh runs it beside its wrk load.

  scenarios/churn.py --url http://127.0.0.1:8080 [--rate 50] [--concurrency 64] [--counts FILE]

Runs until SIGTERM or SIGINT, then prints its counts as one JSON line; with --counts it also rewrites FILE with them
every second. A full request that is answered with anything but 200 counts under "answered" by its status line: that
is the server's error, not the churn's. Resets and timeouts on the churn's own sockets count under "errors".
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import errno
import json
import os
import random
import signal
import socket
import struct
import sys
import time
import urllib.parse

ROUTES = ["/plaintext", "/json", "/db", "/fortunes", "/updates/20"]
MODES = ["idle", "partial-head", "request-abort", "pipelined-abort", "answered"]
ACCEPT_PLAINTEXT = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"
ACCEPT_JSON = "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"
# How long a churn connection waits for the server before it counts a timeout: far above a loaded server's latency.
WAIT_SECONDS = 10


def request(path: str) -> bytes:
    accept = ACCEPT_PLAINTEXT if path.startswith("/plaintext") else ACCEPT_JSON
    return f"GET {path} HTTP/1.1\r\nHost: tfb-server\r\nAccept: {accept}\r\nConnection: keep-alive\r\n\r\n".encode()


class Counts:
    def __init__(self) -> None:
        self.started = time.monotonic()
        self.opened = 0
        self.connect_failed: collections.Counter[str] = collections.Counter()
        self.skipped = 0  # ticks with --concurrency connections already in flight
        self.completed: collections.Counter[str] = collections.Counter()
        self.answered: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()

    def as_dict(self) -> dict:
        return {"seconds": round(time.monotonic() - self.started, 1), "opened": self.opened,
                "connect_failed": dict(self.connect_failed), "skipped": self.skipped,
                "completed": dict(self.completed), "answered": dict(self.answered), "errors": dict(self.errors)}


def error_name(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, OSError) and error.errno is not None:
        return errno.errorcode.get(error.errno, str(error.errno))
    return type(error).__name__


async def read_some(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> bytes:
    chunk = await asyncio.wait_for(loop.sock_recv(sock, 4096), WAIT_SECONDS)
    if not chunk:
        raise ConnectionError("closed by the server")
    return chunk


async def one(loop: asyncio.AbstractEventLoop, address: tuple[str, int], mode: str, route: str, counts: Counts) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Linger on with a zero timeout: close() sends a reset instead of a FIN, the abrupt end this is about.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.setblocking(False)
    try:
        try:
            await asyncio.wait_for(loop.sock_connect(sock, address), WAIT_SECONDS)
        except (OSError, TimeoutError) as error:
            counts.connect_failed[error_name(error)] += 1
            return
        counts.opened += 1
        try:
            if mode == "partial-head":
                head = request(route)
                await loop.sock_sendall(sock, head[: len(head) // 2])
                await asyncio.sleep(random.uniform(0, 0.05))
            elif mode == "request-abort":
                await loop.sock_sendall(sock, request(route))
            elif mode == "pipelined-abort":
                # Plaintext only: 16 pipelined database requests per abort would add more load than the churn is for.
                await loop.sock_sendall(sock, request("/plaintext") * 16)
                await read_some(loop, sock)
            elif mode == "answered":
                await loop.sock_sendall(sock, request(route))
                received = b""
                while b"\r\n" not in received:
                    received += await read_some(loop, sock)
                counts.answered[received.split(b"\r\n", 1)[0].decode("latin-1")] += 1
            counts.completed[mode] += 1
        except (OSError, TimeoutError) as error:
            counts.errors[f"{mode} {error_name(error)}"] += 1
    finally:
        sock.close()


def write_counts(path: str | None, counts: Counts) -> None:
    if path:
        with open(path + ".tmp", "w", encoding="utf-8") as file:
            json.dump(counts.as_dict(), file)
        os.replace(path + ".tmp", path)  # a reader never sees half a file


async def run(arguments: argparse.Namespace) -> Counts:
    url = urllib.parse.urlsplit(arguments.url)
    address = (socket.gethostbyname(url.hostname or "127.0.0.1"), url.port or 80)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    counts = Counts()
    in_flight: set[asyncio.Task] = set()
    interval = 1 / arguments.rate
    next_tick = loop.time()
    last_write = 0.0
    n = 0
    while not stop.is_set():
        if len(in_flight) < arguments.concurrency:
            # Every mode in turn, and each mode's requests through every route in turn.
            mode = MODES[n % len(MODES)]
            route = ROUTES[(n // len(MODES)) % len(ROUTES)]
            task = asyncio.create_task(one(loop, address, mode, route, counts))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
            n += 1
        else:
            counts.skipped += 1
        if loop.time() - last_write >= 1:
            write_counts(arguments.counts, counts)
            last_write = loop.time()
        next_tick += interval
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, next_tick - loop.time()))
        except TimeoutError:
            pass
    if in_flight:
        await asyncio.wait(in_flight, timeout=WAIT_SECONDS + 1)
    write_counts(arguments.counts, counts)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--rate", type=float, default=50, help="connections opened per second (default 50)")
    parser.add_argument("--concurrency", type=int, default=64, help="connections in flight at most (default 64)")
    parser.add_argument("--counts", help="a file rewritten every second with the counts so far, as JSON")
    arguments = parser.parse_args()
    if arguments.rate <= 0 or arguments.concurrency < 1:
        parser.error("--rate and --concurrency must be positive")
    counts = asyncio.run(run(arguments))
    print(json.dumps(counts.as_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
