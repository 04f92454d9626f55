#!/usr/bin/env python3
"""Where the LUTs of a synthesised router go (docs/hardware.md 3c, 3k).

    yosys -p 'read_verilog wormcast_router_n5.v; synth_ice40 -top wormcast_router_n5; write_json r.json'
    python3 scripts/lut_breakdown.py r.json wormcast_router_n5

The same for `synth_xilinx -flatten` (LUT1..LUT6 counted as LUTs, FD*
as flip-flops; MUXF7/MUXF8 and carries pass the cone on uncounted, as
`stat` counts them apart).

abc gives its LUTs no useful names, but every flip-flop keeps the name of
the register it implements. Each SB_LUT4 is charged to the registers (and
top-level outputs) in its fan-out cone, split evenly when it feeds several
groups, so logic shared by many registers is spread over them. Groups are
register names with indices folded (`out_flit$*`); yosys may name a flop's
output net after a port it drives, so a few groups carry port names.
"""
import collections
import json
import re
import sys


def group(name):
    n = re.sub(r"\[\d+\]$", "", name.lstrip("\\"))
    parts = [p for p in n.split(".") if p != "u"] or ["top"]
    g = ".".join(parts[:2]) if parts[0].startswith(("dec", "fifo")) and len(parts) > 1 else parts[0]
    g = re.sub(r"_SB_.*", "", g)
    g = re.sub(r"(in|out)_(px|mx|py|my|inj\d|cons\d)_", r"\1_*_", g)
    return re.sub(r"\$\d+", "$*", g)


# iCE40 and Xilinx primitives: flip-flops, LUTs, and the cells a cone
# passes through without being counted.
FLOPS = ("SB_DFF", "FD")
THROUGH = ("SB_CARRY", "MUXF7", "MUXF8", "CARRY4")


def is_lut(t):
    return t == "SB_LUT4" or re.fullmatch(r"LUT[1-6]", t) is not None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: lut_breakdown.py NETLIST.json TOP")
    mod = json.load(open(sys.argv[1]))["modules"][sys.argv[2]]
    names = {}
    for n, v in mod["netnames"].items():
        for b in v["bits"]:
            if isinstance(b, int) and (b not in names or names[b].startswith("$")):
                names[b] = n
    cells = mod["cells"]
    users = collections.defaultdict(list)
    for cn, c in cells.items():
        for p, bits in c["connections"].items():
            if c["port_directions"].get(p) != "output":
                for b in bits:
                    if isinstance(b, int):
                        users[b].append(cn)
    outs = {b for p in mod["ports"].values() if p["direction"] == "output" for b in p["bits"]}
    ff = {cn: group(names.get(c["connections"]["Q"][0], "?"))
          for cn, c in cells.items() if c["type"].startswith(FLOPS)}
    sys.setrecursionlimit(1 << 20)
    memo = {}

    def cone(cn):
        if cn not in memo:
            memo[cn] = set()
            s = set()
            c = cells[cn]
            for p, bits in c["connections"].items():
                if c["port_directions"].get(p) != "output":
                    continue
                for b in bits:
                    if b in outs:
                        s.add("port " + group(names[b]))
                    for u in users.get(b, []):
                        if u in ff:
                            s.add(ff[u])
                        elif is_lut(cells[u]["type"]) or cells[u]["type"] in THROUGH:
                            s |= cone(u)
            memo[cn] = s
        return memo[cn]

    luts = collections.Counter()
    for cn, c in cells.items():
        if is_lut(c["type"]):
            s = cone(cn) or {"(nothing)"}
            for g in s:
                luts[g] += 1 / len(s)
    flops = collections.Counter(ff.values())
    print(f"{'LUTs':>8} {'FF':>5}  register group")
    for g, v in luts.most_common():
        print(f"{v:8.1f} {flops.get(g, 0):5d}  {g}")
    print(f"{sum(luts.values()):8.0f} {sum(flops.values()):5d}  total")


if __name__ == "__main__":
    main()
