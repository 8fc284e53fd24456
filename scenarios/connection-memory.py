#!/usr/bin/env python3
"""Memory a server keeps per idle connection: opens many keep-alive connections, has each one answered, then reads the
server's resident set size while they sit idle.

    scenarios/connection-memory.py --pid PID --url http://127.0.0.1:8080 [--connections 16384] [--mode pipelined|split]

Modes: `pipelined` sends TFB's 16 pipelined plaintext requests in one write on each connection; `split` sends one
plaintext request whose head (a 4,500-byte field in it, so longer than a 4 KiB receive buffer) arrives in two writes
with a pause between them, so a server that gathers a head spanning buffers does so once per connection. RSS is read from /proc/PID/status before the connections open and once they have
all been answered (and again after a settle period), and printed as one line of JSON.
"""

import argparse
import asyncio
import json
import resource
import sys
import time
from urllib.parse import urlsplit

HEAD = (b"GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\n"
        b"Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
        b"Connection: keep-alive\r\n\r\n")
LONG_HEAD = HEAD[:-2] + b"X-Pad: " + b"p" * 4500 + b"\r\n\r\n"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


async def read_responses(reader: asyncio.StreamReader, count: int) -> None:
    for _ in range(count):
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"unexpected response: {head[:40]!r}")
        await reader.readexactly(length)


async def one(host: str, port: int, mode: str, gate: asyncio.Semaphore, idle: asyncio.Event, answered: list[int],
              split_pause: float):
    async with gate:
        reader, writer = await asyncio.open_connection(host, port)
        if mode == "pipelined":
            writer.write(HEAD * 16)
            await writer.drain()
            await read_responses(reader, 16)
        else:
            cut = len(LONG_HEAD) // 2
            writer.write(LONG_HEAD[:cut])
            await writer.drain()
            await asyncio.sleep(split_pause)
            writer.write(LONG_HEAD[cut:])
            await writer.drain()
            await read_responses(reader, 1)
    answered[0] += 1
    await idle.wait()
    writer.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id, for its RSS")
    parser.add_argument("--url", required=True, help="the server's base URL")
    parser.add_argument("--connections", type=int, default=16384)
    parser.add_argument("--mode", choices=("pipelined", "split"), default="pipelined")
    parser.add_argument("--opening", type=int, default=512, help="connections being opened and answered at once")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds idle before the second RSS reading")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.connections + 1024
    if soft < wanted:
        if hard < wanted:
            print(f"connection-memory: the open-file limit ({hard}) is below {wanted}; raise it (ulimit -n)", file=sys.stderr)
            return 2
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))

    url = urlsplit(args.url)
    before = rss_kib(args.pid)
    idle = asyncio.Event()
    gate = asyncio.Semaphore(args.opening)
    count = [0]
    started = time.monotonic()
    tasks = [asyncio.create_task(one(url.hostname, url.port, args.mode, gate, idle, count, 0.02))
             for _ in range(args.connections)]
    while count[0] < args.connections:
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        if failed:
            raise failed[0].exception()
        await asyncio.sleep(0.2)
    elapsed = time.monotonic() - started
    answered_rss = rss_kib(args.pid)
    await asyncio.sleep(args.settle)
    settled = rss_kib(args.pid)
    idle.set()
    await asyncio.gather(*tasks)
    print(json.dumps({
        "mode": args.mode, "connections": args.connections, "rss_before_kib": before,
        "rss_answered_kib": answered_rss, "rss_settled_kib": settled,
        "per_connection_bytes": round((settled - before) * 1024 / args.connections),
        "seconds_to_answer_all": round(elapsed, 1),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
