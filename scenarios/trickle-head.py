#!/usr/bin/env python3
"""Server CPU spent on a request head that arrives a byte at a time: sends one GET whose head is SIZE bytes (a long
field fills it), one byte per send with Nagle off, reads the answer, and prints the server's CPU time (user + system,
from /proc/PID/stat) used meanwhile, as one line of JSON. A pause after each send (0.2 ms by default) lets the
server read each byte on its own, as from a slow client; without it the bytes pile up in the socket and arrive in a
few reads.

    scenarios/trickle-head.py --pid PID --url http://127.0.0.1:8080 [--size 30000] [--rounds 1] [--pause 0.0002]

A parser that parses the whole head again on every read spends time quadratic in the head's size here; one that
resumes where it stopped, linear. The figure includes the server's idle work over the same time (timers, other
threads), which a run with a short head (--size 200) shows.
"""

import argparse
import json
import os
import socket
import sys
import time
from urllib.parse import urlsplit


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        # The command name may hold spaces: the fields after it start past its closing parenthesis.
        fields = stat.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def head(size: int) -> bytes:
    start = b"GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nX-Long: "
    end = b"\r\n\r\n"
    if size < len(start) + len(end):
        raise ValueError(f"--size must be at least {len(start) + len(end)}")
    return start + b"a" * (size - len(start) - len(end)) + end


def trickle(host: str, port: int, data: bytes, pause: float) -> None:
    with socket.create_connection((host, port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            connection.sendall(data[i:i + 1])
            if pause > 0:
                time.sleep(pause)
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = connection.recv(65536)
            if not chunk:
                break
            response += chunk
        if not response.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"unexpected response: {response[:60]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id, for its CPU time")
    parser.add_argument("--url", required=True, help="the server's base URL")
    parser.add_argument("--size", type=int, default=30000, help="the head's size in bytes")
    parser.add_argument("--rounds", type=int, default=1, help="heads sent one after another, each on a new connection")
    parser.add_argument("--pause", type=float, default=0.0002, help="seconds to wait after each byte sent")
    args = parser.parse_args()

    url = urlsplit(args.url)
    data = head(args.size)
    results = []
    for _ in range(args.rounds):
        before = cpu_seconds(args.pid)
        started = time.monotonic()
        trickle(url.hostname, url.port, data, args.pause)
        results.append({"server_cpu_seconds": round(cpu_seconds(args.pid) - before, 3),
                        "seconds": round(time.monotonic() - started, 2)})
    print(json.dumps({"size": args.size, "rounds": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
