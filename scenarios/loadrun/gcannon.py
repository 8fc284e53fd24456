"""gcannon, HttpArena's load generator: its command line as the venue writes it (scripts/lib/tools/gcannon.sh), the
request templates it sends, written from the runner's model, its report (--json), and the checks before the load: each
template's answer, and a WebSocket echo."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import re
import socket
import urllib.parse
from pathlib import Path

from loadrun.model import ArenaRequest, ArenaTest

# The Host of the venue's request templates (requests/*.raw): the port its servers listen on. The runner writes the same
# bytes whatever the target's port, so that its templates equal the venue's.
VENUE_HOST = "localhost:8080"
# gcannon resets its counters this long after its start (src/main.c, its warm-up): the server's CPU is read then.
COUNTING_DELAY_S = 0.1
TEMPLATES_FOLDER = "templates"


def raw_request(request: ArenaRequest, headers: tuple[str, ...] = ()) -> bytes:
    """One request as the venue's template files hold it: the request line, its Host, the profile's headers, then the
    body's framing (Content-Length, or one chunk and the last, empty one), in that order."""
    if request.size:
        raise ValueError(f"{request.path}: a body of {request.size} filler bytes has no template (the venue's are random)")
    lines = [f"{'GET' if request.kind == 'get' else 'POST'} {request.path} HTTP/1.1", f"Host: {VENUE_HOST}", *headers]
    body = (request.body or "").encode()
    if request.kind == "post":
        lines.append(f"Content-Length: {len(body)}")
    elif request.kind == "chunked":
        lines.append("Transfer-Encoding: chunked")
        body = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def write_templates(test: ArenaTest, folder: Path) -> list[str]:
    """The test's requests as template files in folder/templates/, in the test's order; their paths relative to folder,
    where gcannon runs."""
    (folder / TEMPLATES_FOLDER).mkdir(parents=True, exist_ok=True)
    names = []
    for index, request in enumerate(test.requests, 1):
        name = f"{TEMPLATES_FOLDER}/{test.name}-{index}.raw"
        (folder / name).write_bytes(raw_request(request, test.headers))
        names.append(name)
    return names


def url_request(url: str) -> bytes:
    """The GET gcannon builds for a URL given without templates (src/http.c, http_build_pipeline)."""
    parsed = urllib.parse.urlsplit(url)
    port = parsed.port or 80
    host = parsed.hostname if port in (80, 443) else f"{parsed.hostname}:{port}"
    target = parsed.path or "/"
    return f"GET {target}{'?' + parsed.query if parsed.query else ''} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()


def gcannon_command(gcannon: str, test: ArenaTest, base_url: str, connections: int, threads: int, seconds: int,
                    templates: list[str]) -> list[str]:
    """The venue's arguments (gcannon_build_args): the server's URL with the templates (--raw, in turn), or the URL of
    the one GET (pipelined), or of the WebSocket (--ws); -c connections, -t threads, -d duration, -p pipeline depth, and
    -r when the profile opens a new connection every so many requests; then --json, for the report the runner reads."""
    base = base_url.rstrip("/")
    if test.websocket:
        head = [base + test.requests[0].path, "--ws"]
    elif test.gcannon == "url":
        head = [base + test.requests[0].path]
    else:
        head = [base, "--raw", ",".join(templates)]
    return ([gcannon, *head, "-c", str(connections), "-t", str(threads), "-d", f"{seconds}s", "-p", str(test.pipeline)]
            + (["-r", str(test.reconnect_every)] if test.reconnect_every else []) + ["--json"])


def parse_gcannon(output: str, connections: int) -> dict:
    """gcannon --json's figures, as parse_wrk gives wrk's: a response of any status counts (its non-2xx ones fail the
    run), and in WebSocket mode an echo. Every connection must upgrade: one that did not (gcannon counts the upgrades)
    shows as a connect error. Its reconnections are kept: a profile without any that sees some had the server close."""
    result: dict = {"requests": None, "seconds": None, "rps": None, "latency_ms": {},
                    "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx": 0, "unexpected": 0,
                    "warnings": []}
    start = output.find("{")
    try:
        report = json.loads(output[start:]) if start >= 0 else None
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        return result
    result["requests"] = int(report.get("ws_frames", report.get("responses", 0)))
    result["seconds"] = float(report.get("elapsed_sec", 0.0)) or None
    result["rps"] = result["requests"] / result["seconds"] if result["seconds"] else None
    latency = report.get("latency_us", {})
    for key in ("avg", "p50", "p90", "p99"):
        if key in latency:
            result["latency_ms"][key] = round(latency[key] / 1000.0, 4)
    errors = report.get("errors", {})
    upgrades = int(report.get("ws_upgrades", connections))
    result["socket_errors"] = {"connect": int(errors.get("connect", 0)) + max(0, connections - upgrades),
                               "read": int(errors.get("read", 0)), "write": 0, "timeout": int(errors.get("timeout", 0))}
    status = report.get("status", {})
    result["non_2xx"] = sum(int(status.get(key, 0)) for key in ("3xx", "4xx", "5xx", "other"))
    if "ws_upgrades" in report:
        result["ws_upgrades"] = upgrades
    result["reconnects"] = int(report.get("reconnects", 0))
    result["generator"] = f"gcannon {report.get('version', '(version unknown)')}"
    return result


def answer_problem(base_url: str, request: bytes, checks: tuple[str, ...]) -> tuple[int | None, str | None]:
    """The status of the server's answer to request, sent alone on a new connection, and what is wrong with it, if
    anything: a status outside 2xx, or a failed check, in scenarios/arena.lua's words (expect=A,B: the body is one of
    these; match=PATTERN: the body holds it, here a Python regular expression; encoding=A,B: the Content-Encoding)."""
    parsed = urllib.parse.urlsplit(base_url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 80), timeout=15) as connection:
            connection.sendall(request)
            response = http.client.HTTPResponse(connection)
            response.begin()
            body = response.read().decode("latin-1")
    except (OSError, http.client.HTTPException) as error:
        return None, f"failed: {error!r}"
    if not 200 <= response.status <= 299:
        return response.status, f"answered {response.status} {response.reason}"
    for check in checks:
        key, _, value = check.partition("=")
        if key == "expect" and body not in value.split(","):
            return response.status, f"answered {body[:60]!r}, expected one of {value}"
        if key == "match" and not re.search(value, body):
            return response.status, f"answered {body[:60]!r}, which does not match {value}"
        if key == "encoding" and response.getheader("Content-Encoding") not in value.split(","):
            return response.status, f"answered with Content-Encoding {response.getheader('Content-Encoding')}, expected one of {value}"
    return response.status, None


def websocket_echo_problem(url: str) -> str | None:
    """What is wrong with the WebSocket at url (an http:// URL: the upgrade is asked on it), or None when a handshake
    gets 101 with the right Sec-WebSocket-Accept and a text frame comes back (RFC 6455 §4.2.2, §5)."""
    parsed = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    expected = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 80), timeout=10) as connection:
            connection.sendall((f"GET {parsed.path or '/'} HTTP/1.1\r\nHost: {parsed.netloc}\r\nUpgrade: websocket\r\n"
                                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = connection.recv(4096)
                if not chunk:
                    return "the connection closed during the handshake"
                received += chunk
            head, _, rest = received.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            if " 101 " not in lines[0] + " ":
                return f"answered '{lines[0]}' to the upgrade"
            fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
            if fields.get("sec-websocket-accept") != expected:
                return f"Sec-WebSocket-Accept {fields.get('sec-websocket-accept')!r}, expected {expected!r}"
            mask = os.urandom(4)
            payload = b"hello"
            connection.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            while len(rest) < 2 + len(payload):
                chunk = connection.recv(4096)
                if not chunk:
                    return "the connection closed before the echo"
                rest += chunk
            if rest[:2 + len(payload)] != bytes([0x81, len(payload)]) + payload:
                return f"echoed {rest[:2 + len(payload)]!r}"
    except OSError as error:
        return str(error)
    return None
