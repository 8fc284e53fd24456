"""Reading the report of h2load (nghttp2's HTTP/2 load generator, which HttpArena drives for its h2 profiles), and its
command line as the venue writes it (scripts/lib/tools/h2load.sh)."""

from __future__ import annotations

import re

_TIME_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _time_ms(text: str) -> float | None:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    return round(float(match.group(1)) * _TIME_UNITS_MS[match.group(2)], 4) if match else None


def parse_h2load(output: str) -> dict:
    """h2load's figures, as parse_wrk gives wrk's. A response counts when its status is 2xx, and requests/s is those over
    the run's time, as the venue counts them (h2load's own req/s counts every status). h2load has no percentiles: the
    latency is its mean, spread and maximum of 'time for request'. Requests that failed to complete (errored, timed out)
    show as read and timeout errors; a TLS connection whose ALPN chose anything but h2 is a connect error."""
    result: dict = {"requests": None, "seconds": None, "rps": None, "latency_ms": {},
                    "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx": 0, "unexpected": 0,
                    "warnings": []}
    finished = re.search(r"^finished in ([\d.]+(?:us|ms|s)),", output, re.M)
    statuses = re.search(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", output, re.M)
    if not finished or not statuses:
        return result
    elapsed = _time_ms(finished.group(1))
    result["seconds"] = elapsed / 1000.0 if elapsed else None
    ok, *others = (int(value) for value in statuses.groups())
    result["requests"] = ok
    result["rps"] = ok / result["seconds"] if result["seconds"] else None
    result["non_2xx"] = sum(others)
    match = re.search(r"^requests: \d+ total, \d+ started, \d+ done, \d+ succeeded, \d+ failed, (\d+) errored, (\d+) timeout",
                      output, re.M)
    if match:
        result["socket_errors"]["read"] = int(match.group(1))
        result["socket_errors"]["timeout"] = int(match.group(2))
    match = re.search(r"^time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", output, re.M)
    if match:
        _, maximum, mean, spread = (_time_ms(text) for text in match.groups())
        result["latency_ms"] = {"avg": mean, "stdev": spread, "max": maximum}
    protocols = set(re.findall(r"^Application protocol: (\S+)", output, re.M))
    if re.search(r"^No protocol negotiated", output, re.M) or protocols - {"h2", "h2c"}:
        result["socket_errors"]["connect"] += 1
        result["warnings"].append("a connection did not negotiate h2: " + (", ".join(sorted(protocols)) or "no ALPN"))
    return result


def h2load_command(uris_file: str, connections: int, streams: int, threads: int, seconds: int, cleartext: bool,
                   headers: tuple[str, ...] = ()) -> list[str]:
    """The venue's h2load options: its URIs from a file (-i), -c connections, -m streams per connection, -t threads,
    -D seconds, its headers (-H), and -p h2c on its cleartext port, so that a server cannot answer HTTP/1.1 instead."""
    return (["h2load", "-i", uris_file] + [word for header in headers for word in ("-H", header)]
            + ["-c", str(connections), "-m", str(streams), "-t", str(threads), "-D", str(seconds)]
            + (["-p", "h2c"] if cleartext else []))
