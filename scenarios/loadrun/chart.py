"""The chart of a run, drawn with matplotlib: a row per test; server CPU per response by load level on the left, the
headline (on a machine shared with wrk, servers compare by CPU per response: scenarios/README.md), requests/s on the
right. A bar per target is the mean over the rounds, and each round is a point on it, joined by the min-max line."""

from __future__ import annotations

from pathlib import Path

from loadrun.model import TESTS
from loadrun.report import by_level, fmt_count


def draw(document: dict, out_dir: Path) -> list[Path]:
    """Writes chart.svg and chart.png. Every drawn element has an SVG id, so a reader (or a test) can find it: on the
    CPU panel 'bar <target> <test> <level>' (the mean), 'spread ...' (the min-max line) and 'rounds ...' (one point
    per round); on the requests/s panel the same three with 'rps bar', 'rps spread' and 'rps rounds'."""
    import matplotlib  # noqa: PLC0415 (imported here so that parse-wrk and report work without it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    runs = by_level(document)
    tests = [name for name in TESTS if any(key[0] == name for key in runs)]
    targets = [target["name"] for target in document["targets"]]
    rows = max(1, len(tests))
    figure, axes = plt.subplots(rows, 2, figsize=(13, 1.2 + 3.6 * rows), squeeze=False)
    meta = document["meta"]
    figure.suptitle(f"Server CPU µs per response (lower is cheaper), and requests/s, by load level: mean bars, each round "
                    f"a point, min-max lines\n{meta['profile']} profile, {meta.get('rounds', 1)} round(s), "
                    f"{meta['host']['logical_cpus']} CPUs shared with wrk, commit {meta['git']['commit']}", fontsize=10)
    colours = plt.get_cmap("tab10")
    for row, name in enumerate(tests):
        cpu_axis, rps_axis = axes[row]
        levels = sorted({key[1] for key in runs if key[0] == name})
        width = 0.8 / max(len(targets), 1)
        counted = False
        for ti, target in enumerate(targets):
            for li, level in enumerate(levels):
                rounds = runs.get((name, level, target))
                if not rounds:
                    continue
                x = li - 0.4 + width * (ti + 0.5)
                label = target if li == 0 else None
                cpus = [run["server_cpu_us_per_response"] for run in rounds if run["server_cpu_us_per_response"] is not None]
                if cpus:
                    counted = True
                    _bar_with_rounds(cpu_axis, x, width, cpus, colours(ti), label, f"{target} {name} {level}", "")
                    cpu_axis.annotate(f"{sum(cpus) / len(cpus):.2f}", (x, max(cpus)), ha="center", va="bottom", fontsize=7)
                rps = [run["rps"] for run in rounds]
                _bar_with_rounds(rps_axis, x, width, rps, colours(ti), label, f"{target} {name} {level}", "rps ")
                rps_axis.annotate(fmt_count(sum(rps) / len(rps)), (x, max(rps)), ha="center", va="bottom", fontsize=7)
        for axis, what in ((cpu_axis, "server CPU µs per response"), (rps_axis, "requests/s")):
            axis.set_title(f"{name}: {what}", fontsize=10, loc="left")
            axis.set_xticks(range(len(levels)), [str(level) for level in levels])
            axis.set_xlabel(TESTS[name].level_unit, fontsize=8)
            axis.margins(y=0.2)
            axis.grid(axis="y", color="#e3e3e3")
            axis.set_axisbelow(True)
        rps_axis.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: fmt_count(value)))
        if counted:
            cpu_axis.legend(fontsize=8, loc="upper left")
        else:
            cpu_axis.text(0.5, 0.5, "server CPU not counted (no --pid)", ha="center", transform=cpu_axis.transAxes)
        rps_axis.legend(fontsize=8, loc="upper left")
    if not tests:
        axes[0][0].text(0.5, 0.5, "No measured level.", ha="center")
        axes[0][1].axis("off")
    figure.tight_layout()
    written = []
    for suffix in ("svg", "png"):
        path = out_dir / f"chart.{suffix}"
        figure.savefig(path, dpi=110)
        written.append(path)
    plt.close(figure)
    return written


def _bar_with_rounds(axis, x: float, width: float, values: list[float], colour, label: str | None, key: str,
                     prefix: str) -> None:
    """The mean of values as a bar, the min-max line over it and each value as a point, each with its SVG id."""
    bars = axis.bar(x, sum(values) / len(values), width * 0.95, color=colour, alpha=0.75, label=label)
    bars[0].set_gid(f"{prefix}bar {key}")
    spread = axis.vlines(x, min(values), max(values), colors="black", linewidth=1)
    spread.set_gid(f"{prefix}spread {key}")
    (points,) = axis.plot([x] * len(values), values, linestyle="none", marker="o", markersize=3, color="black")
    points.set_gid(f"{prefix}rounds {key}")
