#!/usr/bin/env python3
"""A flood of TLS handshakes that never finish, against a running server, and what the server holds before, during and
after it: its open descriptors (/proc/PID/fd) and resident set (/proc/PID/status).

    scenarios/tls-flood.py --pid PID --tls https://127.0.0.1:8081 --plain http://127.0.0.1:8080 \\
        [--connections 3000] [--rounds 3] [--handshake-timeout 3] [--flood tls|plain]

Each round opens --connections connections of each kind, all at once, and keeps them open from the client's side:
`abandoned` sends the first 9 bytes of a ClientHello and no more; `stalled` sends a whole ClientHello (Python's ssl
makes it) and never answers the server's flight; `garbage` sends 512 random bytes. While the flood is in progress one
established TLS connection and the plaintext listener are asked for /plaintext every 50 ms: their answers' count,
failures and slowest time are printed. The round then waits --handshake-timeout (the server's Tls:HandshakeTimeout)
plus two seconds, counts how many of the flood's connections the server has closed, closes the rest from the client's
side, and samples the server again. One line of JSON per sample; the server should be back to its baseline's
descriptors after each round, and its resident set should not grow from round to round.

`--flood plain` is the same count of connections (3 x --connections) against the plaintext listener instead, each
sending the start of a request head and no more (`held`): the transport's and the engine's share, without TLS.
"""

import argparse
import asyncio
import json
import os
import ssl
import sys
import time
from urllib.parse import urlsplit

REQUEST = b"GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nAccept: */*\r\n\r\n"


def sample(pid: int, label: str, **extra) -> dict:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    line = {"at": label, "fds": len(os.listdir(f"/proc/{pid}/fd")), "rss_kib": rss, **extra}
    print(json.dumps(line), flush=True)
    return line


def client_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["http/1.1"])
    return context


def client_hello() -> bytes:
    """The first flight of a TLS client, made without a connection through memory BIOs."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = client_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


async def read_response(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected response: {head[:40]!r}")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    await reader.readexactly(length)


async def probe(name: str, open_connection, stop: asyncio.Event, report: dict) -> None:
    """Asks one kept-alive connection for /plaintext every 50 ms until stop; reconnects after a failure."""
    answered = failed = 0
    slowest = 0.0
    reader = writer = None
    while not stop.is_set():
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.wait_for(open_connection(), 10)
            writer.write(REQUEST)
            await asyncio.wait_for(read_response(reader), 10)
            answered += 1
            slowest = max(slowest, time.monotonic() - started)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, RuntimeError, ssl.SSLError):
            failed += 1
            if writer is not None:
                writer.close()
            reader = writer = None
        await asyncio.sleep(0.05)
    if writer is not None:
        writer.close()
    report[name] = {"answered": answered, "failed": failed, "slowest_ms": round(slowest * 1000, 1)}


async def flood_one(host: str, port: int, payload: bytes, gate: asyncio.Semaphore, held: list) -> None:
    async with gate:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(payload)
            await writer.drain()
            held.append((reader, writer))
        except OSError:
            pass  # Refused beyond the server's cap, or closed at once: nothing to hold.


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """True when the server has closed: a read sees the end, or a reset (no data waits, so a short read is enough)."""
    try:
        while True:
            data = await asyncio.wait_for(reader.read(65536), 0.05)
            if not data:
                return True
    except (asyncio.TimeoutError, TimeoutError):
        return False
    except OSError:
        return True


async def run(args) -> None:
    tls = urlsplit(args.tls)
    plain = urlsplit(args.plain)
    hello = client_hello()
    kinds = {"abandoned": hello[:9], "stalled": hello, "garbage": os.urandom(512)}
    target = tls
    if args.flood == "plain":
        kinds = {"held": REQUEST[:16]}
        target = plain
    context = client_context()

    # A first request on each listener, so the baseline is of a server that has served both.
    for _ in range(2):
        reader, writer = await asyncio.open_connection(tls.hostname, tls.port, ssl=context, server_hostname="localhost")
        writer.write(REQUEST)
        await read_response(reader)
        writer.close()
        reader, writer = await asyncio.open_connection(plain.hostname, plain.port)
        writer.write(REQUEST)
        await read_response(reader)
        writer.close()
    await asyncio.sleep(1)
    sample(args.pid, "baseline")

    for round_number in range(1, args.rounds + 1):
        stop = asyncio.Event()
        report: dict = {}
        probes = [
            asyncio.create_task(probe("tls", lambda: asyncio.open_connection(tls.hostname, tls.port, ssl=context, server_hostname="localhost"), stop, report)),
            asyncio.create_task(probe("plain", lambda: asyncio.open_connection(plain.hostname, plain.port), stop, report)),
        ]
        gate = asyncio.Semaphore(256)
        held: dict = {kind: [] for kind in kinds}
        count = args.connections * 3 // len(kinds)
        await asyncio.gather(*(flood_one(target.hostname, target.port, payload, gate, held[kind])
                               for kind, payload in kinds.items() for _ in range(count)))
        await asyncio.sleep(0.5)
        sample(args.pid, f"round {round_number}: flood open", held={kind: len(held[kind]) for kind in kinds})

        await asyncio.sleep(args.handshake_timeout + 2)
        closed = {kind: sum(await asyncio.gather(*(closed_by_server(reader) for reader, _ in held[kind]))) for kind in kinds}
        stop.set()
        await asyncio.gather(*probes)
        sample(args.pid, f"round {round_number}: after the handshake timeout", closed_by_server=closed, probes=report)

        for kind in kinds:
            for _, writer in held[kind]:
                writer.close()
        await asyncio.sleep(2)
        sample(args.pid, f"round {round_number}: client sides closed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--tls", required=True, help="the server's https:// listener")
    parser.add_argument("--plain", required=True, help="the server's http:// listener")
    parser.add_argument("--connections", type=int, default=3000, help="connections of each kind per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--handshake-timeout", type=float, default=3, help="the server's Tls:HandshakeTimeout, in seconds")
    parser.add_argument("--flood", choices=["tls", "plain"], default="tls", help="which listener the flood's connections go to")
    args = parser.parse_args()
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < 3 * args.connections + 64:
        sys.exit(f"tls-flood.py: {3 * args.connections} connections need more descriptors than the limit ({hard})")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
