#!/usr/bin/env python3
"""bench/plot.py - throughput against size, per tool, one panel per workload,
from the CSV files that `bench/run.sh --csv FILE` writes.

    python3 bench/plot.py -o bench/results/plot.png a.csv b.csv ...

Rows that did not finish ("out of memory", "failed", ...) are left out of
the lines and listed under their panel.  When several files hold the same
(workload, size, tool), the last one read wins.  Needs matplotlib (Debian:
python3-matplotlib); made on any machine from the CSVs, no GPU needed."""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["u32", "u64", "rec100", "rec16", "pair8"]
TITLES = {
    "u32": "u32 keys",
    "u64": "u64 keys",
    "rec100": "100-byte records, 10-byte key",
    "rec16": "16-byte records, u64 + i32 desc",
    "pair8": "8-byte records, u32 + i32 desc",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="CSV files from bench/run.sh --csv")
    ap.add_argument("-o", "--output", default="bench.png", help="PNG to write (default bench.png)")
    ap.add_argument("--logy", action="store_true", help="log scale for GB/s (cat dwarfs slow sorts)")
    ap.add_argument("--title", default="", help="figure title (default: the machines in the CSVs)")
    args = ap.parse_args()

    rows = {}  # (workload, gib, tool) -> row
    machines = []
    for path in args.csv:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("tool") in (None, "", "all"):
                    continue
                rows[(r["workload"], float(r["gib"]), r["tool"])] = r
                if r.get("machine") and r["machine"] not in machines:
                    machines.append(r["machine"])
    if not rows:
        sys.exit("plot.py: no rows in " + " ".join(args.csv))

    works = sorted({k[0] for k in rows}, key=lambda w: (ORDER.index(w) if w in ORDER else 99, w))
    tools = []  # first-seen order: the table order of run.sh
    for k in rows:
        if k[2] not in tools:
            tools.append(k[2])
    cols = min(len(works), 2)
    nrow = (len(works) + cols - 1) // cols
    fig, axes = plt.subplots(nrow, cols, figsize=(6.5 * cols, 4.6 * nrow), squeeze=False)
    colors = {t: plt.cm.tab10(i % 10) for i, t in enumerate(tools)}
    for ax, w in zip(axes.flat, works):
        missing = []
        for t in tools:
            pts = sorted((g, r) for (wl, g, tl), r in rows.items() if wl == w and tl == t)
            ok = [(g, int(r["bytes"]) / 1e9 / float(r["median_s"])) for g, r in pts
                  if r["status"] == "ok" and r["median_s"]]
            missing += ["%s %g GiB: %s" % (t, g, r["status"]) for g, r in pts
                        if r["status"] != "ok" and not r["status"].startswith("not run")]
            if ok:
                style = "--" if t == "cat" else "-"
                ax.plot([p[0] for p in ok], [p[1] for p in ok], style, marker="o",
                        color=colors[t], label=t)
        ax.set_xscale("log", base=2)
        sizes = sorted({k[1] for k in rows if k[0] == w})
        ax.set_xticks(sizes)
        ax.set_xticklabels(["%g" % g for g in sizes])
        ax.minorticks_off()
        ax.set_xlabel("GiB of binary records")
        ax.set_ylabel("GB/s (binary bytes / median wall time)")
        ax.set_title(TITLES.get(w, w))
        if args.logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        if missing:
            ax.text(0.01, 0.99, "\n".join(missing), transform=ax.transAxes, fontsize=7,
                    va="top", color="firebrick")
    for ax in list(axes.flat)[len(works):]:
        ax.set_visible(False)
    fig.suptitle(args.title or "gpusort and peers, file to file: " + "; ".join(machines))
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("plot.py: wrote " + args.output)


if __name__ == "__main__":
    main()
