#!/usr/bin/env bash
# The synthesis-by-size table of docs/fpga.md: DSTM-1 tori of 2x2, 4x4,
# 8x8 and 16x16 (32-bit flits, depth 2) and a 4x4 mesh under each mesh
# routing function, every router out of context (scripts/synth_fabric.py),
# yosys 0.23 synth_ice40 two routers at a time.
#
#   bash scripts/synth_sizes.sh [WORMCAST_BINARY]      # about 30 min on 2 cores
#   SIZES="torus:8x8" bash scripts/synth_sizes.sh      # a subset
#
# Writes target/synth-fabric/sizes.json (one summary per design) and prints
# the table as Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/wormcast
fi
out=target/synth-fabric
mkdir -p "$out"
designs=${SIZES:-torus:2x2 torus:4x4 torus:8x8 torus:16x16 mesh:4x4/hamiltonian mesh:4x4/dor mesh:4x4/negative_first}
for d in $designs; do
  topo=${d%%/*}
  routing=tree
  [ "$d" != "$topo" ] && routing=${d#*/}
  name="ice40-${topo/:/-}-$routing"
  echo "== $topo, $routing routing"
  # Four lone routers (nodes spread over the network) for the comparison
  # with the per-node figures; the 16x16 samples eight.
  lone=4; [ "$topo" = torus:16x16 ] && lone=8
  python3 scripts/synth_fabric.py "$topo" --bin "$bin" --lone $lone --out "$out/$name" \
    -- --routing "$routing" >"$out/$name.log"
done
python3 - "$out" $designs <<'PY'
import json, sys
out, designs = sys.argv[1], sys.argv[2:]
rows = []
for d in designs:
    topo, _, routing = d.partition("/")
    s = json.load(open(f"{out}/ice40-{topo.replace(':', '-')}-{routing or 'tree'}/summary.json"))
    s.pop("nodes")
    s["routing"] = routing or "tree"
    rows.append(s)
json.dump(rows, open(f"{out}/sizes.json", "w"), indent=2)
print("| design | routers (distinct) | SB_LUT4 | LUT4 / router (min–max) | FF | lone-router ratio (sampled) | wall | CPU | peak MB (one process) |")
print("|---|---:|---:|---|---:|---|---:|---:|---:|")
for s in rows:
    r = [x["ratio"] for x in s["lone_router_check"]]
    cpu = sum(v["cpu_seconds"] for v in s["steps"].values())
    print(f"| {s['topology']} {s['routing']} | {s['routers']} ({s['distinct_routers']}) | {s['fabric_cells']['LUT4']:,} | "
          f"{s['LUT4_per_router']['mean']} ({s['LUT4_per_router']['min']}–{s['LUT4_per_router']['max']}) | "
          f"{s['fabric_cells']['FF']:,} | {min(r):.3f}–{max(r):.3f} | {s['flow_wall_seconds']/60:.1f} min | "
          f"{cpu/60:.1f} min | {s['peak_mb_one_process']:.0f} |".replace(",", " "))
PY
