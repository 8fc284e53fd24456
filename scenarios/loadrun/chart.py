"""The chart of a run, drawn with matplotlib: requests/s by load level, a panel per test, a bar per target."""

from __future__ import annotations

import math
from pathlib import Path

from loadrun.model import TESTS
from loadrun.report import fmt_count, means


def draw(document: dict, out_dir: Path) -> list[Path]:
    """Writes chart.svg and chart.png; each bar is a mean over the rounds and carries the server CPU µs per response
    under it when known. Every bar has an SVG id, 'bar <target> <test> <level>', so a reader (or a test) can find it."""
    import matplotlib  # noqa: PLC0415 (imported here so that parse-wrk and report work without it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    table = means(document)
    tests = [name for name in TESTS if any(key[0] == name for key in table)]
    targets = [target["name"] for target in document["targets"]]
    columns = 2 if len(tests) > 1 else 1
    rows = max(1, math.ceil(len(tests) / columns))
    figure, axes = plt.subplots(rows, columns, figsize=(7 * columns, 1 + 3.8 * rows), squeeze=False)
    meta = document["meta"]
    figure.suptitle(f"Requests per second by load level\n{meta['profile']} profile, {meta.get('rounds', 1)} round(s), "
                    f"{meta['host']['logical_cpus']} CPUs shared with wrk, commit {meta['git']['commit']}", fontsize=10)
    colours = plt.get_cmap("tab10")
    for index, name in enumerate(tests):
        axis = axes[index // columns][index % columns]
        levels = sorted({key[1] for key in table if key[0] == name})
        width = 0.8 / max(len(targets), 1)
        for ti, target in enumerate(targets):
            for li, level in enumerate(levels):
                entry = table.get((name, level, target))
                if entry is None:
                    continue
                x = li - 0.4 + width * (ti + 0.5)
                bars = axis.bar(x, entry["rps"], width * 0.95, color=colours(ti), label=target if li == 0 else None)
                bars[0].set_gid(f"bar {target} {name} {level}")
                label = fmt_count(entry["rps"]) + (f"\n{entry['cpu']:.2f} µs" if entry["cpu"] is not None else "")
                axis.annotate(label, (x, entry["rps"]), ha="center", va="bottom", fontsize=7)
        axis.set_title(name, fontsize=10, loc="left")
        axis.set_xticks(range(len(levels)), [str(level) for level in levels])
        axis.set_xlabel(TESTS[name].level_unit + "; over each bar: requests/s and server CPU µs per response", fontsize=8)
        axis.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: fmt_count(value)))
        axis.margins(y=0.2)
        axis.grid(axis="y", color="#e3e3e3")
        axis.set_axisbelow(True)
        axis.legend(fontsize=8, loc="upper left")
    for index in range(len(tests), rows * columns):
        axes[index // columns][index % columns].axis("off")
    if not tests:
        axes[0][0].text(0.5, 0.5, "No measured level.", ha="center")
    figure.tight_layout()
    written = []
    for suffix in ("svg", "png"):
        path = out_dir / f"chart.{suffix}"
        figure.savefig(path, dpi=110)
        written.append(path)
    plt.close(figure)
    return written
