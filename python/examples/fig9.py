"""[DSTM] Fig. 9 from Python: mean message latency against load for
DSTM-1, DSTM-2 and SPAM on the 16x16 torus (90 % unicast, 10 % multicast
to 48 destinations, 128-flit messages; examples/fig9.toml has the timing).

    python python/examples/fig9.py --out fig9.png            # the figure
    python python/examples/fig9.py --quick --json pts.json   # CI's short form

One cycle is 10 ns, so the paper's axes are cycles / 100 (µs) against
messages per node per cycle x 100 (per µs). docs/python.md walks through it.
"""

from __future__ import annotations

import argparse
import json
import pathlib

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

import wormcast

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOADS = [1e-5, 2e-5, 4e-5, 6e-5, 8e-5, 1e-4, 1.2e-4, 1.4e-4]
QUICK_LOADS = [2e-5, 6e-5, 1e-4]
#: --quick: a short window, for CI (the same overrides as its CLI check).
QUICK_SETS = {"run.warmup": 5000, "run.cycles": 40000, "run.drain_cycles": 40000}
SCHEMES = ["dstm1", "dstm2", "spam"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="fig9.png", help="the plot (PNG, SVG or PDF)")
    ap.add_argument("--json", help="also write the points as JSON")
    ap.add_argument("--quick", action="store_true", help="3 loads and a short window")
    a = ap.parse_args()

    sc = wormcast.Scenario.from_file(ROOT / "examples" / "fig9.toml")
    if a.quick:
        for k, v in QUICK_SETS.items():
            sc.set(k, v)
    points = wormcast.sweep(sc, loads=QUICK_LOADS if a.quick else LOADS, schemes=SCHEMES)
    df = points.to_frame()

    fig, ax = plt.subplots(figsize=(6, 4))
    for scheme, g in df.groupby("scheme", sort=False):
        line, = ax.plot(g["load"] * 100, g["latency_mean_cycles"] / 100, marker="o", label=scheme.upper())
        sat = g[g["saturated"]]  # hollow: past saturation, a lower bound
        ax.plot(sat["load"] * 100, sat["latency_mean_cycles"] / 100, "o", color=line.get_color(), mfc="white")
    ax.set_yscale("log")
    ax.set_yticks([10, 20, 50, 100, 200, 500])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("offered load (messages / node / µs)")
    ax.set_ylabel("mean message latency (µs, log scale)")
    ax.set_title("[DSTM] Fig. 9: 16x16 torus, 10 % multicast to 48 nodes\n(hollow: saturated)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out)
    print(df[["scheme", "load", "latency_mean_cycles", "accepted_messages_per_node_cycle", "saturated"]]
          .to_string(index=False))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(list(points), indent=1))


if __name__ == "__main__":
    main()
