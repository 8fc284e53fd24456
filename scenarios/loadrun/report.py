"""The report of a run: results.md, with every measurement and, for several targets, the comparison with ratios."""

from __future__ import annotations

import shlex
import statistics

from loadrun.model import TESTS
from loadrun.wrk import problems_of


def fmt_count(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def level_unit(test, rows: list[dict]) -> str:
    """What a level means; a level of rows per request names the connections its runs had (TFB's 512 by default)."""
    if test.method not in ("query", "cached"):
        return test.level_unit
    counts = sorted({run["connections"] for run in rows})
    return f"{test.level_unit} ({', '.join(str(count) for count in counts)} connections)"


def measured(document: dict) -> list[dict]:
    return [run for run in document["runs"] if run["phase"] == "level"]


def markdown(document: dict) -> str:
    meta = document["meta"]
    # The other load generators the runs used (gcannon names its version in its report).
    others = sorted({run["generator"] for run in document["runs"] if run.get("generator")})
    lines = [
        "# Load run",
        "",
        f"- Profile **{meta['profile']}**, {meta.get('rounds', 1)} round(s), started {meta['started']}, "
        f"finished {meta.get('finished', '(interrupted)')}",
        f"- Command: `{meta['command']}`",
        f"- Machine: {meta['host']['cpu']}, {meta['host']['logical_cpus']} logical CPUs, Linux {meta['host']['kernel']}; "
        f"the load generator shares it ({', '.join([meta['wrk'], *others])}, at most {meta['wrk_threads_max']} threads)",
        f"- Commit {meta['git']['commit']}{' with uncommitted changes' if meta['git']['dirty'] else ''}",
    ]
    for target in document["targets"]:
        how = "started by the runner" if target["started_here"] else "given by --url"
        cpu = f", CPU of pid {target['pid']} counted" if target["pid"] else ", server CPU not counted"
        lines.append(f"- Target **{target['name']}**: {target['base_url']} ({how}{cpu})")
        lines += [f"  - `{line.strip()}`" for line in target.get("banner", [])]
    if document.get("starts"):
        lines.append("- The servers the runner started were stopped and started again before every round, the start order "
                     "rotating by one per round (--restart-rounds):")
        lines += [f"  - round {start['round']}: " + ", ".join(f"{name} (pid {start['pids'][name]})" for name in start["order"])
                  for start in document["starts"]]
    lines += ["", "Requests/s and latency come from wrk (h2load for the h2 profiles, which counts 2xx responses only); server",
              "CPU is user+system time of the server process over the measured window divided by the responses; the load",
              "generator's CPU likewise. Non-2xx counts what wrk reports as `Non-2xx or 3xx responses` (status 400 and",
              "above), or h2load's 3xx, 4xx and 5xx."]
    if any(run.get("tool") == "gcannon" for run in document["runs"]):
        lines += ["gcannon's tests (their commands below) count the responses of every status over gcannon's own window,",
                  "which starts after its 100 ms warm-up (the server's CPU is read from then on too); their non-2xx is",
                  "gcannon's 3xx, 4xx, 5xx and other statuses, and gcannon gives no 75th percentile."]
    lines.append("")
    runs = measured(document)
    lines += comparison(document)
    lines += cpu_split(document)
    for name, test in TESTS.items():
        rows = [run for run in runs if run["test"] == name]
        if not rows:
            continue
        # h2load gives no percentiles: its mean, spread and maximum instead.
        keys = ("avg", "stdev", "max") if getattr(test, "h2load", False) else ("p50", "p75", "p90", "p99")
        names = {"avg": "mean", "stdev": "sd", "max": "max"}
        lines += [f"## {name}: every measurement", "", f"Level: {level_unit(test, rows)}.", "",
                  "| Round | Level | Target | Requests/s | " + " | ".join(f"{names.get(key, key)} ms" for key in keys)
                  + " | Socket errors c/r/w/t | Non-2xx | Server CPU µs/resp | Load generator CPU µs/resp |",
                  "|---:|---:|---|---:|" + "---:|" * len(keys) + "---:|---:|---:|---:|"]
        for run in rows:
            if run["rps"] is None:
                lines.append(f"| {run.get('round', 1)} | {run['level']} | {run['target']} | no result: "
                             f"{'; '.join(problems_of(run))} |" + " |" * (4 + len(keys)))
                continue
            latency = run["latency_ms"]
            errors = run["socket_errors"]
            server = run["server_cpu_us_per_response"]
            client = run["wrk_cpu_us_per_response"]
            lines.append(
                f"| {run.get('round', 1)} | {run['level']} | {run['target']} | {run['rps']:,.0f} | "
                + "".join(f"{fmt_ms(latency.get(key))} | " for key in keys) +
                f"{errors['connect']}/{errors['read']}/{errors['write']}/{errors['timeout']} | {run['non_2xx']} | "
                f"{'–' if server is None else f'{server:.2f}'} | {'–' if client is None else f'{client:.2f}'} |")
        lines.append("")
    lines += gcannon_commands(runs)
    notes = [f"{run['target']} {run['test']} {run['level']}: {warning}" for run in runs for warning in run.get("warnings", [])]
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    if document["failures"]:
        lines += ["## Failures", ""] + [f"- {failure}" for failure in document["failures"]] + [""]
    return "\n".join(lines)


def gcannon_commands(runs: list[dict]) -> list[str]:
    """The command line of each measured level gcannon ran, once per test, level and target (the rounds repeat them),
    the binary named gcannon and the templates by their paths in the run's folder, where gcannon ran."""
    seen: dict[tuple, str] = {}
    for run in runs:
        if run.get("tool") == "gcannon" and run.get("command"):
            seen.setdefault((run["test"], run["level"], run["target"]), shlex.join(["gcannon", *run["command"][1:]]))
    if not seen:
        return []
    return (["## gcannon commands", "",
             "Each measured level's command line. `gcannon` is the binary given with `--gcannon`; `templates/` holds the",
             "requests the runner wrote into the run's folder from its model, byte for byte the venue's `requests/` files",
             "of the same requests, and gcannon ran in that folder. The primer and the warm-up ran the same command with",
             "their own connections, threads and seconds.", ""]
            + [f"- {test} {level}, {target}: `{command}`" for (test, level, target), command in seen.items()] + [""])


def by_level(document: dict) -> dict[tuple[str, int, str], list[dict]]:
    """(test, level, target) -> its measured runs without errors, one per round."""
    grouped: dict[tuple[str, int, str], list[dict]] = {}
    for run in measured(document):
        if run["rps"] is not None and not problems_of(run):
            grouped.setdefault((run["test"], run["level"], run["target"]), []).append(run)
    return grouped


def means(document: dict) -> dict[tuple[str, int, str], dict]:
    """(test, level, target) -> mean requests/s and mean server CPU µs per response over the rounds, with their count."""
    result = {}
    for key, runs in by_level(document).items():
        cpus = [run["server_cpu_us_per_response"] for run in runs if run["server_cpu_us_per_response"] is not None]
        result[key] = {"rps": sum(run["rps"] for run in runs) / len(runs),
                       "cpu": sum(cpus) / len(cpus) if cpus else None, "rounds": len(runs)}
        for part in ("user", "system"):
            values = [run[f"server_{part}_us_per_response"] for run in runs if run.get(f"server_{part}_us_per_response") is not None]
            result[key][part] = sum(values) / len(values) if values else None
    return result


def cpu_split(document: dict) -> list[str]:
    """The server's CPU per response as user and system time, means over the rounds, and the user time's quotient
    against the baseline target: the user time is the server's own code, the system time the kernel's work for it,
    which on a machine shared with the load generator carries most of the swings between rounds. Results recorded
    before the runner kept the two apart have no such section."""
    table = means(document)
    if not any(entry.get("user") is not None for entry in table.values()):
        return []
    targets = [target["name"] for target in document["targets"]]
    base = baseline_of(document)
    others = [name for name in targets if name != base] if len(targets) > 1 else []
    header = "| Test | Level | " + " | ".join(f"{target} user µs | {target} system µs" for target in targets)
    header += "".join(f" | {other} / {base} user" for other in others) + " |"
    lines = ["## Server CPU: user and system", "",
             "Means over the rounds of the server's user and system CPU µs per response"
             + (f", and the quotient of the user means against **{base}**" if others else "") + ". User time is the "
             "server's own code; system time is the kernel's work for it, where a machine shared with the load generator "
             "shows most of its swings between rounds. Runs with errors are left out.", "", header,
             "|---|---:|" + "---:|" * (2 * len(targets) + len(others))]
    for name in TESTS:
        for level in sorted({level for (t, level, _) in table if t == name}):
            cells = []
            for target in targets:
                entry = table.get((name, level, target)) or {}
                cells += [f"{entry['user']:.2f}" if entry.get("user") is not None else "–",
                          f"{entry['system']:.2f}" if entry.get("system") is not None else "–"]
            reference = table.get((name, level, base)) or {}
            cells += [ratio((table.get((name, level, other)) or {}).get("user"), reference.get("user")) for other in others]
            lines.append(f"| {name} | {level} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def median_round_ratio(document: dict, test: str, level: int, target: str, base: str) -> str:
    """The median over the rounds of target's server CPU per response divided by base's in the same round: a round whose
    machine was busier for both cancels out, where the means' quotient carries it."""
    grouped = by_level(document)

    def cpu_of(name: str) -> dict[int, float]:
        return {run["round"]: run["server_cpu_us_per_response"] for run in grouped.get((test, level, name), [])
                if run["server_cpu_us_per_response"] is not None}

    mine, theirs = cpu_of(target), cpu_of(base)
    quotients = [mine[r] / theirs[r] for r in mine if r in theirs and theirs[r]]
    return f"{statistics.median(quotients):.2f}" if quotients else "–"


def baseline_of(document: dict) -> str:
    names = [target["name"] for target in document["targets"]]
    chosen = document["meta"].get("baseline")
    return chosen if chosen in names else names[0]


def ratio(value: float | None, base: float | None) -> str:
    return f"{value / base:.2f}" if value is not None and base else "–"


def comparison(document: dict) -> list[str]:
    """Level by level, every target's mean over the rounds and its ratios to the baseline target: requests/s (above 1
    is faster) and server CPU per response (below 1 is cheaper)."""
    targets = [target["name"] for target in document["targets"]]
    if len(targets) < 2:
        return []
    base = baseline_of(document)
    others = [name for name in targets if name != base]
    table = means(document)
    lines = ["## Comparison", "",
             f"Means over {document['meta'].get('rounds', 1)} round(s); ratios against **{base}**: requests/s "
             "(above 1: more) and server CPU µs per response (below 1: cheaper), the quotients of the means, then the "
             "median of each round's CPU quotient. Runs with errors are left out.", ""]
    for name, test in TESTS.items():
        levels = sorted({level for (t, level, _) in table if t == name})
        if not levels:
            continue
        header = "| Level | " + " | ".join(f"{target} req/s | {target} CPU µs" for target in targets)
        header += " | " + " | ".join(f"{other} / {base} req/s | {other} / {base} CPU" for other in others)
        header += " | " + " | ".join(f"{other} / {base} CPU, median of rounds" for other in others) + " |"
        lines += [f"### {name}", "", f"Level: {level_unit(test, [run for run in measured(document) if run['test'] == name])}.", "", header,
                  "|---:|" + "---:|" * (2 * len(targets) + 3 * len(others))]
        for level in levels:
            cells = []
            for target in targets:
                entry = table.get((name, level, target))
                cells += [fmt_count(entry["rps"]) if entry else "–",
                          f"{entry['cpu']:.2f}" if entry and entry["cpu"] is not None else "–"]
            reference = table.get((name, level, base))
            for other in others:
                entry = table.get((name, level, other))
                cells += [ratio(entry and entry["rps"], reference and reference["rps"]),
                          ratio(entry and entry["cpu"], reference and reference["cpu"])]
            cells += [median_round_ratio(document, name, level, other, base) for other in others]
            lines.append(f"| {level} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines
