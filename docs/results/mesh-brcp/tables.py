#!/usr/bin/env python3
"""Markdown tables of the mesh path-based reproduction (latency in us at
1 cycle = 5 ns; '*' = saturated: accepted < offered or the queue grew).
Run from the repository root after the run-*.sh / run-*.py scripts."""
import json, os
D = "docs/results/mesh-brcp"
US = 200.0
SCHEMES = ["brcp-pure", "brcp-minimal", "dual-path", "column-path"]
def cell(p):
    s = f"{p['latency_mean_cycles'] / US:.1f}"
    if p.get("saturated"):
        s += "*"
    if p.get("deadlock") or not p.get("scoreboard_clean", True):
        s += " (!)"
    return s
for n in (10, 20, 30):
    f = f"{D}/fig9-{n}.json"
    if not os.path.exists(f):
        continue
    pts = json.load(open(f))["points"]
    loads = sorted({p["load"] for p in pts})
    print(f"\n**Fig. 9, {n} destinations** — mean latency (us) vs arrival rate (per node per us)\n")
    print("| rate /us (/cycle) | " + " | ".join(SCHEMES) + " |")
    print("|---|" + "---:|" * len(SCHEMES))
    for l in loads:
        row = [cell(next(p for p in pts if p["scheme"] == s and p["load"] == l)) for s in SCHEMES]
        print(f"| {l * US:.4f} ({l:g}) | " + " | ".join(row) + " |")
rows = []
for n in (10, 50, 100, 150, 200, 255):
    f = f"{D}/fig10-{n}.json"
    if os.path.exists(f):
        pts = json.load(open(f))["points"]
        rows.append((n, [cell(next(p for p in pts if p["scheme"] == s)) for s in SCHEMES]))
if rows:
    print("\n**Fig. 10** — mean latency (us) vs destinations, rate 0.006 /us (0.00003 /cycle)\n")
    print("| destinations | " + " | ".join(SCHEMES) + " |")
    print("|---|" + "---:|" * len(SCHEMES))
    for n, r in rows:
        print(f"| {n} | " + " | ".join(r) + " |")
f = f"{D}/fig11.json"
if os.path.exists(f):
    pts = json.load(open(f))
    print("\n**Fig. 11 setting** — multiple multicast, mean latency (us)\n")
    print("| sources | destinations | brcp-pure | brcp-minimal |")
    print("|---:|---:|---:|---:|")
    for s in (128, 256):
        for d in sorted({p["destinations"] for p in pts}):
            r = [p for p in pts if p["sources"] == s and p["destinations"] == d]
            if len(r) == 2:
                c = [next(cell(p) for p in r if p["scheme"] == k) for k in ("brcp-pure", "brcp-minimal")]
                print(f"| {s} | {d} | " + " | ".join(c) + " |")
f = f"{D}/hamiltonian.json"
if os.path.exists(f):
    pts = json.load(open(f))
    print("\n**Hamiltonian schemes**, 20 destinations\n")
    print("| scheme | rate /cycle | mean latency (us) | p99 (us) | flit-hops / message | link util. mean |")
    print("|---|---:|---:|---:|---:|---:|")
    for p in pts:
        print(f"| {p['scheme']} | {p['load']:g} | {cell(p)} | {p['latency_p99_cycles'] / US:.1f} | {p['flit_hops_per_message']:.0f} | {p['link_utilisation_mean']:.4f} |")
