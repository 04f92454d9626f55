#!/usr/bin/env python3
"""The fast hop in nanoseconds (docs/results/fast-hop.md).

`network.hop = "fast"` saves a cycle per hop on every first HEAD (and on
every BODY/TAIL through an empty FIFO), but the router that does it places
at a lower clock. Whether it wins depends on the hop count and the load,
so this script measures both contracts in cycles and converts each at its
own clock:

    fast_hop_table.py run   [--wormcast BIN] [--dir DIR]
        reruns every simulation (one thread each) and writes the JSON to
        DIR (default docs/results/fast-hop): zero-load.json (one message
        in an idle 16x16 DSTM-1 torus: unicasts and 12-destination
        multicasts over 4 and 16 tree hops) and the sweeps
        {torus,mesh}-{standard,fast}.json (`wormcast sweep` output).
    fast_hop_table.py table [--dir DIR] [--mhz-standard F] [--mhz-fast F]
        prints the page's markdown tables from that JSON, in cycles and in
        ns (cycles x 1000 / MHz). The clocks are options because the
        place-and-route figures move; the simulations do not depend on them.

Run `run` under `nice`, from the repository root.
"""
import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join("docs", "results", "fast-hop")
HOPS = ("standard", "fast")

# Zero load: one message in an idle network.
TORUS = "torus:16x16"
# Unicasts from 0,0 (R1) to destinations whose DSTM-1 tree path is exactly
# 4 and 16 hops (`wormcast route`): both take tree 0 by the DSTM policy and
# both paths are minimal in the torus (4,0 is 4 hops straight along +x, 8,8
# the node farthest from 0,0), so no tree detour is mixed into the hops.
# 1..3 hops (h,0) on the same row show the zero-load crossover measured.
UNICAST_SOURCE = (0, 0)
UNICAST_DEST = {1: (1, 0), 2: (2, 0), 3: (3, 0), 4: (4, 0), 16: (8, 8)}
# Multicasts from 8,0, the root of both DSTM-1 trees, on tree 0: from the
# root the worm only goes down, so every destination is as many hops away
# as it is deep in the tree. (From 0,0 the worm first climbs to the lowest
# common ancestor of all destinations, and no 12 destinations are then
# within 4 hops: the nearest 12 need 7.) Destinations: the node of depth h
# with the smallest number (y*16 + x), plus 11 drawn uniformly (Python's
# random, seed 1) among the other nodes of depth <= h.
MULTICAST_SOURCE = (8, 0)
MULTICAST_TREE = 0
MULTICAST_DESTS = 12
MULTICAST_SEED = 1
STARTUPS = (10, 0)  # the default NI start-up, and none (router only)
LENGTH = 16  # the default traffic.length (data flits)

# Latency against load. Loads in messages/node/cycle.
SWEEPS = {
    "torus": dict(
        args=["--set", f"network.topology={TORUS}", "--schemes", "dstm1"],
        loads=[0.0001, 0.0003, 0.0005, 0.0006, 0.0007, 0.0008, 0.0009, 0.001, 0.0012],
        run=["--set", "run.warmup=10000", "--set", "run.cycles=100000"],
    ),
    "mesh": dict(
        args=["--scenario", "examples/booksim-mesh-16x16.toml", "--schemes", "column-path"],
        # 0.01 .. 0.16 flits/node/cycle, 16 flits a message
        loads=[0.000625, 0.0025, 0.004375, 0.005625, 0.006875, 0.0075, 0.008125, 0.00875, 0.01],
        run=["--set", "run.warmup=10000", "--set", "run.cycles=100000"],
    ),
}


def node(xy):
    return f"{xy[0]},{xy[1]}"


def wormcast(binary, *args):
    r = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"wormcast {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def route(binary, source, dests, tree=None):
    args = ["route", "--topology", TORUS, "--source", node(source), "--json"]
    for d in dests:
        args += ["--dest", node(d)]
    if tree is not None:
        args += ["--tree", str(tree)]
    return json.loads(wormcast(binary, *args))


def multicast_dests(depth, h):
    """12 destinations whose farthest is exactly h hops below the source."""
    far = min((n for n, d in depth.items() if d == h), key=lambda p: (p[1], p[0]))
    near = [n for n, d in sorted(depth.items(), key=lambda e: (e[0][1], e[0][0])) if d <= h and n != far]
    rng = random.Random(MULTICAST_SEED)
    return [far] + sorted(rng.sample(near, MULTICAST_DESTS - 1), key=lambda p: (p[1], p[0]))


def zero_load_run(binary, tmp, source, dests, tree, hop, startup):
    msg = f'{{cycle = 0, source = "{node(source)}", destinations = [{", ".join(chr(34) + node(d) + chr(34) for d in dests)}], length = {LENGTH}'
    msg += f", tree = {tree}}}" if tree is not None else "}"
    scenario = os.path.join(tmp, "one.toml")
    with open(scenario, "w") as f:
        f.write(f'[network]\ntopology = "{TORUS}"\nhop = "{hop}"\n[timing]\nstartup_cycles = {startup}\n'
                f'[traffic]\npattern = "scripted"\nmessages = [{msg}]\n'
                "[run]\nwarmup = 0\ncycles = 1\ndrain_cycles = 10000\n")
    report = os.path.join(tmp, "one.json")
    out = wormcast(binary, "run", "--threads", "1", "-q", "--scenario", scenario,
                   "--json", report, "--messages", "-")
    with open(report) as f:
        rep = json.load(f)
    lines = out.strip().splitlines()
    assert len(lines) == 2, out
    row = dict(zip(lines[0].split(","), next(csv.reader([lines[1]]))))
    assert rep["delivered_messages"] == 1 and rep["router_errors"] == 0, rep
    return dict(latency=rep["latency"]["max"], injected=int(row["injected"]),
                deliveries=row["deliveries"], scenario_messages=msg)


def run(args):
    out = os.path.join(ROOT, args.dir)
    os.makedirs(out, exist_ok=True)
    cases = []
    for h in UNICAST_DEST:
        uni = route(args.wormcast, UNICAST_SOURCE, [UNICAST_DEST[h]])
        assert uni["hops"] == h and uni["tree"] == 0, uni
        cases.append(dict(name=f"unicast {h}", h=h, source=UNICAST_SOURCE, dests=[UNICAST_DEST[h]],
                          tree=None, route=uni))
    # Depth of every node below the multicast source on its tree.
    depth = {}
    for y in range(16):
        for x in range(16):
            if (x, y) != MULTICAST_SOURCE:
                depth[(x, y)] = route(args.wormcast, MULTICAST_SOURCE, [(x, y)], MULTICAST_TREE)["hops"]
    for h in (4, 16):
        dests = multicast_dests(depth, h)
        r = route(args.wormcast, MULTICAST_SOURCE, dests, MULTICAST_TREE)
        assert max(p["hops"] for p in r["path_len"]) == h, r
        assert all(p["hops"] == depth[(p["x"], p["y"])] for p in r["path_len"]), r
        cases.append(dict(name=f"multicast {h}", h=h, source=MULTICAST_SOURCE, dests=dests,
                          tree=MULTICAST_TREE, route=r))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            for startup in STARTUPS:
                for hop in HOPS:
                    m = zero_load_run(args.wormcast, tmp, c["source"], c["dests"], c["tree"], hop, startup)
                    results.append(dict(case=c["name"], h=c["h"], hop=hop, startup_cycles=startup,
                                        length=LENGTH, source=node(c["source"]),
                                        destinations=[node(d) for d in c["dests"]],
                                        tree=c["route"]["tree"],
                                        dest_hops={f"{p['x']},{p['y']}": p["hops"] for p in c["route"]["path_len"]},
                                        tree_links=c["route"]["hops"], **m))
                    print(f"zero load: {c['name']:12} startup {startup:2} {hop:8} {m['latency']} cycles",
                          file=sys.stderr)
    with open(os.path.join(out, "zero-load.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    for net, s in SWEEPS.items():
        for hop in HOPS:
            path = os.path.join(args.dir, f"{net}-{hop}.json")
            print(f"sweep: {net} {hop}", file=sys.stderr)
            wormcast(args.wormcast, "sweep", "--threads", "1", "-q", *s["args"], *s["run"],
                     "--set", f"network.hop={hop}",
                     "--loads", ",".join(f"{x:g}" for x in s["loads"]), "--json", path)


def ns(cycles, mhz):
    return cycles * 1000.0 / mhz


def ratio(a, b):
    return f"{a / b:.3f}"


def interpolate(points, x):
    """Linear interpolation of (x, y, saturated) points at x; None outside
    them, next to a saturated point (whose latency is only a bound) or past
    the knee (an end above 3 times the lowest load's latency), where a
    straight line between two points says little."""
    knee = 3 * points[0][1]
    for (x0, y0, s0), (x1, y1, s1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            if s0 or s1 or y1 > knee:
                return None
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def zero_load_tables(zl, mhz):
    print(f"**Zero load**: one message of {zl[0]['length']} data flits in an idle 16×16 DSTM-1 torus; "
          "latency = creation to the TAIL at the last destination.\n")
    print("| message | source | tree | tree hops (farthest) | start-up | standard cycles | fast cycles "
          "| standard ns | fast ns | fast / standard (ns) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for r in zl:
        rows.setdefault((r["case"], r["startup_cycles"]), {})[r["hop"]] = r
    for (case, startup), by in rows.items():
        r0 = by["standard"]
        if r0["h"] not in (4, 16):
            continue
        what = case.split()[0]
        if len(r0["destinations"]) > 1:
            what += f" ({len(r0['destinations'])} dest.)"
        s, f = r0["latency"], by["fast"]["latency"]
        ss, fs = ns(s, mhz["standard"]), ns(f, mhz["fast"])
        print(f"| {what} | {r0['source']} | {r0['tree']} | {r0['h']} | {startup} | {s} | {f} "
              f"| {ss:.1f} | {fs:.1f} | {ratio(fs, ss)} |")
    # The contract: a fresh unicast's first BODY is in the target's
    # consumption register a*h + 4 cycles after submission (a = 3 standard,
    # 2 fast); the TAIL follows L - 1 cycles later and the NI records it at
    # the next edge; the start-up comes first.
    print("\n**Unicast check** against the contract (first BODY consumed a·h + 4 cycles after submission, "
          "a = 3 standard, 2 fast): message latency = start-up + a·h + 4 + (L − 1) + 1, L = 16.\n")
    print("| tree hops | start-up | standard: formula | measured | fast: formula | measured | standard ns | fast ns | faster in ns |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    consts = {}
    for (case, startup), by in sorted(rows.items(), key=lambda e: (-e[0][1], e[1]["standard"]["h"])):
        if not case.startswith("unicast"):
            continue
        cells = []
        for hop, a in (("standard", 3), ("fast", 2)):
            r = by[hop]
            want = startup + a * r["h"] + 4 + (r["length"] - 1) + 1
            cells += [str(want), str(r["latency"]) + ("" if want == r["latency"] else " **differs**")]
            consts.setdefault(startup, set()).add(r["latency"] - a * r["h"])
        ss, fs = ns(by["standard"]["latency"], mhz["standard"]), ns(by["fast"]["latency"], mhz["fast"])
        win = "fast" if fs < ss else "standard" if ss < fs else "tie"
        print(f"| {by['standard']['h']} | {startup} | {' | '.join(cells)} | {ss:.1f} | {fs:.1f} | {win} |")
    fs_, ff = mhz["standard"], mhz["fast"]
    if 3 * ff > 2 * fs_:
        rule = (" wins in ns when (2h + c)/f_fast < (3h + c)/f_standard, i.e. "
                "h > c·(f_standard − f_fast)/(3·f_fast − 2·f_standard) "
                f"= {(fs_ - ff) / (3 * ff - 2 * fs_):.4f}·c here")
    else:
        rule = " never wins: its clock is at most 2/3 of the standard one"
    print(f"\n**Crossover**: a unicast takes a·h + c cycles, so the fast contract{rule}; the ns ratio "
          "tends to (2/f_fast)/(3/f_standard) on long paths.\n")
    print("| c (cycles) | what | fast wins from h = | ns ratio at h = 4 | at h = 16 | h → ∞ |")
    print("|---:|---|---:|---:|---:|---:|")
    cs = [(4, "first BODY consumed, start-up 0 (the contract's formula)")]
    for st in sorted(consts):
        c = consts[st]
        assert len(c) == 1, f"start-up {st}: c differs between hop counts or contracts: {c}"
        cs.append((c.pop(), f"message latency, start-up {st}, L = 16"))
    for c, what in cs:
        if 3 * ff <= 2 * fs_:
            cross = "never"
        else:
            cross = str(max(1, math.floor(c * (fs_ - ff) / (3 * ff - 2 * fs_)) + 1))
        r = lambda h: ((2 * h + c) / ff) / ((3 * h + c) / fs_)
        print(f"| {c} | {what} | {cross} | {r(4):.3f} | {r(16):.3f} | {(2 / ff) / (3 / fs_):.3f} |")


def sweep_tables(d, mhz):
    for net, title in (
            ("torus", "16×16 torus, DSTM-1, tree routing, the default traffic (90 % unicast, 10 % multicast "
                      "to 4–12 destinations, 16 data flits, start-up 10)"),
            ("mesh", "16×16 mesh, XY (`dor`), unicast, 15 data flits + HEAD, depth 5, start-up 0 "
                     "(examples/booksim-mesh-16x16.toml)")):
        pts = {}
        for hop in HOPS:
            with open(os.path.join(d, f"{net}-{hop}.json")) as f:
                for p in json.load(f)["points"]:
                    pts.setdefault(p["load"], {})[hop] = p
        loads = sorted(pts)
        print(f"\n**{net}**: {title}. Load and accepted throughput in messages/node/cycle; mean message "
              "latency; `*` = saturated (under 95 % of the offered messages completed in the window; the "
              "latency is then a lower bound that grows with the run).\n")
        print("| load | standard cycles | fast cycles | standard ns | fast ns | fast / standard (ns) "
              "| accepted standard | accepted fast |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        mark = lambda p: "*" if p["saturated"] else ""
        for load in loads:
            s, f = pts[load]["standard"], pts[load]["fast"]
            ls, lf = s["latency_mean_cycles"], f["latency_mean_cycles"]
            print(f"| {load:g} | {ls:.1f}{mark(s)} | {lf:.1f}{mark(f)} | "
                  f"{ns(ls, mhz['standard']):.0f}{mark(s)} | {ns(lf, mhz['fast']):.0f}{mark(f)} | "
                  f"{ratio(ns(lf, mhz['fast']), ns(ls, mhz['standard']))} | "
                  f"{s['accepted_messages_per_node_cycle']:.5f} | {f['accepted_messages_per_node_cycle']:.5f} |")
        # The same loads per cycle are fewer messages per second on the
        # slower fast clock: compare at equal messages/node/µs too.
        std = [(l * mhz["standard"], ns(pts[l]["standard"]["latency_mean_cycles"], mhz["standard"]),
                pts[l]["standard"]["saturated"]) for l in loads]
        print(f"\n*{net}, at equal offered load in messages/node/µs*: each unsaturated fast point against "
              "the standard latency interpolated linearly at the same messages/node/µs (– where that falls "
              "outside the standard points, next to a saturated one or past the knee: an end above 3× the "
              "lowest load's latency).\n")
        print("| fast load /cycle | messages/node/µs | fast ns | standard ns (interpolated) | fast / standard |")
        print("|---:|---:|---:|---:|---:|")
        for load in loads:
            f = pts[load]["fast"]
            if f["saturated"]:
                continue
            x = load * mhz["fast"]
            fns = ns(f["latency_mean_cycles"], mhz["fast"])
            sns = interpolate(std, x)
            print(f"| {load:g} | {x:.4f} | {fns:.0f} | {'–' if sns is None else f'{sns:.0f}'} | "
                  f"{'–' if sns is None else ratio(fns, sns)} |")
        print("\n| contract | first saturated load /cycle | saturation throughput (largest accepted) "
              "messages/node/cycle | flits/node/cycle | messages/node/µs |")
        print("|---|---:|---:|---:|---:|")
        for hop in HOPS:
            ps = [pts[l][hop] for l in loads]
            sat = [p["load"] for p in ps if p["saturated"]]
            best = max(ps, key=lambda p: p["accepted_messages_per_node_cycle"])
            first = f"{sat[0]:g}" if sat else "none"
            print(f"| {hop} | {first} | {best['accepted_messages_per_node_cycle']:.5f} | "
                  f"{best['throughput_flits_per_node_cycle']:.4f} | "
                  f"{best['accepted_messages_per_node_cycle'] * mhz[hop]:.4f} |")


def table(args):
    d = os.path.join(ROOT, args.dir)
    mhz = {"standard": args.mhz_standard, "fast": args.mhz_fast}
    print(f"Clocks: standard {mhz['standard']:g} MHz ({ns(1, mhz['standard']):.2f} ns a cycle), "
          f"fast {mhz['fast']:g} MHz ({ns(1, mhz['fast']):.2f} ns); ns = cycles × 1000 / MHz.\n")
    with open(os.path.join(d, "zero-load.json")) as f:
        zero_load_tables(json.load(f), mhz)
    sweep_tables(d, mhz)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", help="rerun the simulations, write the JSON")
    r.add_argument("--wormcast", default=os.environ.get("WORMCAST", "target/release/wormcast"),
                   help="the wormcast binary (default $WORMCAST or target/release/wormcast)")
    r.add_argument("--dir", default=DIR)
    t = sub.add_parser("table", help="print the markdown tables from the JSON")
    t.add_argument("--dir", default=DIR)
    t.add_argument("--mhz-standard", type=float, default=68.83,
                   help="clock of the standard router, MHz (default 68.83)")
    t.add_argument("--mhz-fast", type=float, default=65.74,
                   help="clock of the fast router, MHz (default 65.74)")
    a = ap.parse_args()
    if a.cmd == "run":
        a.wormcast = os.path.abspath(a.wormcast) if os.sep in a.wormcast else a.wormcast
        run(a)
    elif a.cmd == "table":
        for k in ("mhz_standard", "mhz_fast"):
            if not getattr(a, k) > 0:
                ap.error(f"--{k.replace('_', '-')} must be a positive clock in MHz, got {getattr(a, k)}")
        table(a)
    else:
        ap.print_help()
        sys.exit(2)


if __name__ == "__main__":
    main()
