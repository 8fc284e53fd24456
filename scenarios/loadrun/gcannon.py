"""Reading the report of gcannon, HttpArena's load generator, in its WebSocket mode (--ws --json), and checking a
WebSocket echo before the load."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import urllib.parse


def parse_gcannon(output: str, connections: int) -> dict:
    """gcannon --json's figures, as parse_wrk gives wrk's: an echo is a response. Every connection must upgrade: one
    that did not (gcannon counts the upgrades) shows as a connect error."""
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
    result["ws_upgrades"] = upgrades
    return result


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
