"""Reading wrk 4.x's report, and deciding whether a run failed."""

from __future__ import annotations

import re

_TIME_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def _time_ms(text: str) -> float | None:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    return round(float(match.group(1)) * _TIME_UNITS_MS[match.group(2)], 4) if match else None


def parse_wrk(output: str) -> dict:
    """The figures of one wrk 4.x run. wrk omits the socket-error and non-2xx lines when they are zero."""
    result: dict = {"requests": None, "seconds": None, "rps": None, "latency_ms": {},
                    "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx": 0, "unexpected": 0}
    match = re.search(r"^\s*(\d+) requests in ([\d.]+(?:us|ms|s|m|h))", output, re.M)
    if match:
        result["requests"] = int(match.group(1))
        elapsed = _time_ms(match.group(2))
        result["seconds"] = elapsed / 1000.0 if elapsed is not None else None
    match = re.search(r"^Requests/sec:\s+([\d.]+)", output, re.M)
    if match:
        result["rps"] = float(match.group(1))
    match = re.search(r"^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)", output, re.M)
    if match:
        for key, text in zip(("avg", "stdev", "max"), match.groups()):
            result["latency_ms"][key] = _time_ms(text)
    for percent, text in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", output, re.M):
        result["latency_ms"]["p" + percent] = _time_ms(text)
    # wrk 4.1 sometimes prints a percentile as 0.00us (seen for p99 at 16384 pipelined connections): a value below
    # a lower percentile is wrk's error, not a measurement, so it is left out and noted.
    result["warnings"] = []
    floor = 0.0
    for key in ("p50", "p75", "p90", "p99"):
        value = result["latency_ms"].get(key)
        if value is None:
            continue
        if value < floor:
            result["latency_ms"][key] = None
            result["warnings"].append(f"wrk reported {key} = {value} ms, below a lower percentile: left out")
        else:
            floor = value
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if match:
        result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, match.groups())))
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if match:
        result["non_2xx"] = int(match.group(1))
    # scenarios/arena.lua's own line, after wrk's report, when responses failed its checks (a wrong body, say).
    match = re.search(r"^Unexpected responses: (\d+), the first: (.*)$", output, re.M)
    if match:
        result["unexpected"] = int(match.group(1))
        result["unexpected_first"] = match.group(2)
    return result


def problems_of(run: dict) -> list[str]:
    """Why a run of wrk (or of the load generator it names) counts as failed, if it does."""
    found = []
    tool = run.get("tool", "wrk")
    if run.get("exit_code"):
        found.append(f"{tool} exited with {run['exit_code']}")
    if run.get("requests") is None:
        found.append("no response was counted (" + ("wrk's output did not say 'N requests in'" if tool == "wrk" else
                                                    f"{tool}'s report could not be read") + ")")
    elif run["requests"] == 0:
        found.append(f"no response arrived in the {run.get('duration_s')} s window")
    errors = run.get("socket_errors", {})
    if any(errors.values()):
        found.append("socket errors " + ", ".join(f"{k} {v}" for k, v in errors.items() if v))
    if run.get("non_2xx"):
        found.append(f"{run['non_2xx']} non-2xx/3xx responses")
    if run.get("unexpected"):
        found.append(f"{run['unexpected']} responses failed arena.lua's checks, the first: {run.get('unexpected_first')}")
    return found
