#!/usr/bin/env python3
"""Markdown tables from `wormcast sweep --json` output for [DSTM] Figs. 9/10.

Usage: scripts/fig9_10_table.py docs/results/fig9.json [more.json ...]
Times: 1 cycle = 10 ns, so latency µs = cycles / 100 and load in
msgs/node/µs = msgs/node/cycle × 100. Several files (seeds) are averaged.
"""
import json
import sys
from collections import defaultdict

pts = defaultdict(list)
order = []
for path in sys.argv[1:]:
    d = json.load(open(path))
    for p in d["points"]:
        if p["scheme"] not in order:
            order.append(p["scheme"])
        pts[(p["scheme"], round(p["load"] * 100, 4))].append(p)
loads = sorted({l for (_, l) in pts})
bad = [k for k, v in pts.items() if any(p["deadlock"] or not p["scoreboard_clean"] for p in v)]
print("Mean message latency in µs (1 cycle = 10 ns); `*` = saturated "
      "in at least one seed, mean over %d seed(s)." % len(sys.argv[1:]))
print()
print("| load (msgs/node/µs) | " + " | ".join(order) + " |")
print("|---:|" + "---:|" * len(order))
for l in loads:
    row = []
    for s in order:
        v = pts.get((s, l), [])
        if not v:
            row.append("")
            continue
        lat = sum(p["latency_mean_cycles"] for p in v) / len(v) / 100
        sat = "*" if any(p["saturated"] for p in v) else ""
        row.append(f"{lat:.1f}{sat}")
    print(f"| {l:g} | " + " | ".join(row) + " |")
print()
print("| scheme | max accepted (msgs/node/µs) | highest unsaturated load | "
      "mean latency at the lowest load (µs) | unicast / multicast there (µs) |")
print("|---|---:|---:|---:|---:|")
for s in order:
    acc = max(sum(p["accepted_messages_per_node_cycle"] for p in pts[(s, l)]) / len(pts[(s, l)]) for l in loads) * 100
    ok = [l for l in loads if not any(p["saturated"] for p in pts[(s, l)])]
    v = pts[(s, loads[0])]
    lat = sum(p["latency_mean_cycles"] for p in v) / len(v) / 100
    uni = sum(p["latency_unicast_mean_cycles"] for p in v) / len(v) / 100
    mul = sum(p["latency_multicast_mean_cycles"] for p in v) / len(v) / 100
    uni_s = f"{uni:.2f}" if uni > 0 else "–"
    print(f"| {s} | {acc:.4f} | {max(ok) if ok else 0:g} | {lat:.2f} | {uni_s} / {mul:.2f} |")
print()
print("Deadlocks or scoreboard errors: " + (", ".join(map(str, bad)) if bad else "none"))
