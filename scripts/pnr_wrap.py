#!/usr/bin/env python3
"""P&R wrapper for one router (scripts/synth.sh, scripts/contract_probe.sh).

    python3 scripts/pnr_wrap.py ROUTER_DIR/manifest.json > pnr_wrap.v

The bare router has more one-bit ports than the HX8K-CT256 has user I/Os,
so place-and-route runs on this wrapper: every router input comes from a
serial-in shift register and every output goes to a parallel-load shift
register (4 pins). The link protocol is registered, so in a fabric every
router input is a register anyway, and the Fmax nextpnr reports is the
router's own register-to-register figure (docs/hardware.md section 3).
"""
import json
import sys

m = json.load(open(sys.argv[1]))
ins = [p for p in m["ports"] if p["direction"] == "input" and p["name"] not in ("clk", "rst")]
outs = [p for p in m["ports"] if p["direction"] == "output"]
ni = sum(p["width"] for p in ins)
no = sum(p["width"] for p in outs)
print("// P&R wrapper (scripts/synth.sh): serial-in / parallel-load shift registers")
print("module pnr_wrap(input clk, input rst, input sin, input cap, output sout);")
print(f"  reg [{ni-1}:0] ish = 0;")
print(f"  always @(posedge clk) ish <= {{ish[{ni-2}:0], sin}};")
for p in outs:
    print(f"  wire [{p['width']-1}:0] w_{p['name'].replace('$','_')};")
conn = [".clk(clk)", ".rst(rst)"]
lo = 0
for p in ins:
    conn.append(f".{p['name']}(ish[{lo+p['width']-1}:{lo}])")
    lo += p["width"]
for p in outs:
    conn.append(f".{p['name']}(w_{p['name'].replace('$','_')})")
print(f"  {m['files'][0][:-2]} u(" + ", ".join(conn) + ");")
cat = ", ".join("w_" + p["name"].replace("$", "_") for p in outs)
print(f"  reg [{no-1}:0] osh = 0;")
print(f"  always @(posedge clk) osh <= cap ? {{{cat}}} : {{osh[{no-2}:0], 1'b0}};")
print(f"  assign sout = osh[{no-1}];")
print("endmodule")
