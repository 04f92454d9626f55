"""Prints the tables of docs/results/multicast-workloads.md from the JSON
that run.sh writes next to this file."""
import glob
import json
import os

D = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(D, name + ".json")) as f:
        return json.load(f)["points"]


def cell(p, key, sat):
    if p["deadlock"]:
        return "deadlock"
    v = p.get(key)
    s = f"{v:.0f}" if isinstance(v, float) else str(v)
    return s + (" (sat.)" if sat and p["saturated"] else "")


def sweep_table(name, key, title, sat=True):
    pts = load(name)
    schemes = list(dict.fromkeys(p["scheme"] for p in pts))
    loads = sorted(set(p["load"] for p in pts))
    print(f"\n{title}\n")
    print("| load /node/cycle | " + " | ".join(schemes) + " |")
    print("|---:|" + "---:|" * len(schemes))
    for l in loads:
        row = []
        for s in schemes:
            p = [q for q in pts if q["scheme"] == s and q["load"] == l]
            row.append(cell(p[0], key, sat) if p else "–")
        print(f"| {l:g} | " + " | ".join(row) + " |")


for net in ["torus", "mesh"]:
    for k, what in [("k2", "k = 2"), ("k8", "k = 8"), ("k64", "k = 64"),
                    ("mix", "k = 2, 8, 64 w.p. 0.5, 0.3, 0.2")]:
        sweep_table(f"inv-{k}-{net}", "transaction_latency_mean_cycles",
                    f"**{net}, invalidations, {what}**: mean transaction latency (miss to last ack), cycles",
                    sat=False)
    for shape in ["row", "column", "rect"]:
        sweep_table(f"{shape}-{net}", "latency_mean_cycles",
                    f"**{net}, `{shape}` multicast**: mean message latency, cycles")
    print(f"\n**{net}, collectives**: completion time / lower bound (ratio), cycles\n")
    files = sorted(glob.glob(os.path.join(D, f"coll-{net}-*.json")))
    rows = {}
    for f in files:
        r = json.load(open(f))
        c = r["collective"]
        label = f"{c['kind']} from {c['root']}" if c["kind"] != "allgather" else "allgather"
        scheme = os.path.basename(f)[len(f"coll-{net}-"):].split("-" + c["kind"])[0]
        if r["deadlock"]:
            v = "deadlock"
        elif c.get("completion_time") is None:
            v = f"not done ({r['stop_reason']})"
        else:
            v = f"{c['completion_time']} / {c['lower_bound']['cycles']} ({c['ratio']:.2f})"
        rows.setdefault(label, {})[scheme] = v
    schemes = list(dict.fromkeys(s for r in rows.values() for s in r))
    print("| collective | " + " | ".join(schemes) + " |")
    print("|---|" + "---:|" * len(schemes))
    for label, r in rows.items():
        print(f"| {label} | " + " | ".join(r.get(s, "–") for s in schemes) + " |")
