#!/usr/bin/env bash
# Synthesis and place-and-route figures for docs/hardware.md (docs/architecture.md §7).
#
#   bash scripts/synth.sh [WORMCAST_BINARY]      # 25-45 min on 2 cores (GATE_LEVEL=0: 12-25 min; up to 20 min is the --placer sa sweep when its seeds run to SA_TIMEOUT)
#
# yosys 0.23's synth_ice40 flattens by default; synth_xilinx needs -flatten,
# otherwise `stat` counts only the top module's own cells.
# One router (node 5 of the 4x4 DSTM-1 torus: 32-bit flits, depth 2,
# 1 injection + 2 consumption channels):
#   - yosys synth_ice40  -> SB_LUT4 / SB_DFF* / SB_CARRY counts
#   - yosys synth_xilinx -> LUT / FF / CARRY4 / MUXF7/8 counts
#   - nextpnr-ice40 --hx8k --package ct256 -> utilisation and Fmax.
#     The bare router has ~390 one-bit ports, more than the 206 user I/Os
#     of the HX8K-CT256, so it cannot be placed as a top module (tried first;
#     the overflow is recorded in pnr_bare.log). P&R uses a wrapper instead:
#     all router inputs come from a serial-in shift register and all outputs
#     go to a parallel-load shift register, 4 pins in all. Every router
#     input is then a register, as in a fabric (the link protocol is
#     registered), so Fmax is the router's own register-to-register figure;
#     the shift registers add one LC per port bit to the utilisation.
#   - icepack + icetime for an independent timing estimate
# A 2x2 DSTM-1 torus fabric (4 routers): plain flattened yosys synth_ice40
# cell counts, about 1 minute (FABRIC=KxM for another size; its time and
# memory grow with the router count). Larger fabrics go through the
# out-of-context flow, scripts/synth_fabric.py and scripts/synth_sizes.sh
# (docs/fpga.md, "Synthesis at network scale").
# The self-checking FPGA top (2x2 torus) to a bitstream for the iCE40-HX8K
# breakout board, and its netlist at gate level against the native model
# and after place-and-route (GATE_LEVEL=0 skips that step, about 10 minutes).
# Writes target/synth/summary.json and the tool logs; docs/hardware.md
# quotes them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/wormcast
fi
[ -z "${YOSYS:-}${NEXTPNR:-}" ] || { echo "synth.sh runs Debian's yosys and nextpnr-ice40 (its summary is for them); YOSYS and NEXTPNR are for contract_probe.sh" >&2; exit 2; }
for t in yosys nextpnr-ice40 icepack icetime; do
  command -v $t >/dev/null || { echo "$t not found: install yosys, nextpnr-ice40, fpga-icestorm" >&2; exit 1; }
done
out=target/synth
rm -rf "$out"; mkdir -p "$out"
"$bin" verilog --router --node 5 --out "$out/router" >/dev/null
fabric=${FABRIC:-2x2}
"$bin" verilog --topology torus:$fabric --construction dstm1 --out "$out/fabric" >/dev/null
R=$out/router/wormcast_router_n5.v
F=$out/fabric/wormcast_torus_$fabric.v

timed() { # name cmd...
  local t0=$(date +%s)
  "${@:2}"
  echo "$1 $(( $(date +%s) - t0 ))" >>"$out/times.txt"
}
# Count of one cell type in a yosys `stat` report (0 if absent).
cells() { awk -v c="$2" '$1==c {n=$2} END {print n+0}' "$1"; }
cells_re() { awk -v re="$2" '$1 ~ re {n+=$2} END {print n+0}' "$1"; }

echo "== yosys synth_ice40 (router)"
timed ice40_router yosys -q -p \
  "read_verilog $R; synth_ice40 -top wormcast_router_n5 -json $out/router_ice40.json; tee -q -o $out/router_ice40.stat stat"
echo "== yosys synth_xilinx (router)"
timed xilinx_router yosys -q -p \
  "read_verilog $R; synth_xilinx -flatten -top wormcast_router_n5; tee -q -o $out/router_xilinx.stat stat"
# The same with abc9, yosys's newer mapper (the default mapper's figure
# swings by hundreds of LUTs with small structural changes; the Xilinx figure
# is wanted, so both are reported).
timed xilinx_router_abc9 yosys -q -p \
  "read_verilog $R; synth_xilinx -flatten -abc9 -top wormcast_router_n5; tee -q -o $out/router_xilinx_abc9.stat stat"
echo "== nextpnr-ice40 (router)"
# device, package, pnr_flags (the placer timing weight of docs/hardware.md
# 3e; PNR_FLAGS replaces it), pnr_seed, fmax_of and median: one definition
# for this script and scripts/contract_probe.sh.
. scripts/pnr_lib.sh
# The bare router: expected to fail on I/O count (see above); recorded.
if nextpnr-ice40 --$device --package $package --json "$out/router_ice40.json" \
    --asc "$out/router_bare.asc" -l "$out/pnr_bare.log" -q >/dev/null 2>&1; then
  echo "bare router placed" >"$out/pnr_bare.txt"
else
  grep -E "ERROR" "$out/pnr_bare.log" | head -1 >"$out/pnr_bare.txt" || true
fi
# The shift-register wrapper, generated from the manifest's port list.
python3 scripts/pnr_wrap.py "$out/router/manifest.json" >"$out/pnr_wrap.v"
timed ice40_wrap yosys -q -p \
  "read_verilog $R $out/pnr_wrap.v; synth_ice40 -top pnr_wrap -json $out/wrap_ice40.json; tee -q -o $out/wrap_ice40.stat stat"
timed pnr_router nextpnr-ice40 --$device --package $package --json "$out/wrap_ice40.json" \
  --asc "$out/router.asc" --freq 50 --timing-allow-fail --seed 1 $pnr_flags \
  -l "$out/router_pnr.log" -q
icepack "$out/router.asc" "$out/router.bin"
icetime -d $device -P $package -m -t "$out/router.asc" >"$out/router_icetime.txt" 2>&1 || true
# Fmax moves by several per cent with the placer's seed, so the figure is
# the median and the best of a seed sweep (seed 1 above is the first;
# seeds 1-10, as every sweep in docs/hardware.md).
echo "== nextpnr-ice40 seed sweep (router, seeds 2-10)"
for seed in 2 3 4 5 6 7 8 9 10; do
  timed pnr_router_s$seed pnr_seed "$out/wrap_ice40.json" $seed "$out/router_pnr_s$seed.log"
done
# nextpnr's simulated-annealing placer (--placer sa) gave 4-5 % more Fmax
# than the default heap placer on this router (docs/hardware.md 3c), but
# for some seeds its initial placement does not finish (seed 3 ran over 6
# minutes, seed 5 stalled in its legaliser), so every run is bounded by
# SA_TIMEOUT seconds (default 240; a finishing run takes about 2 minutes); a seed without a
# result is recorded as null and left out of the median.
sa_timeout=${SA_TIMEOUT:-240}
echo "== nextpnr-ice40 --placer sa seed sweep (router, seeds 1-5, at most $sa_timeout s each)"
sa_seeds=()
for seed in 1 2 3 4 5; do
  if timeout "$sa_timeout" nextpnr-ice40 --$device --package $package --json "$out/wrap_ice40.json" \
      --asc /dev/null --freq 50 --timing-allow-fail --seed $seed --placer sa \
      -l "$out/router_sa_pnr_s$seed.log" -q >/dev/null 2>&1; then
    f=$(fmax_of "$out/router_sa_pnr_s$seed.log" || true)
    sa_seeds+=("${f:-null}")
  else
    echo "seed $seed: no result within $sa_timeout s"
    sa_seeds+=(null)
  fi
done
# The router of every other routing function (so that
# every routing function's cost is on record):
# node 5 of the 4x4 torus (SPAM; no header setup delay, as the default
# router, so that only the routing function differs) and
# of the 4x4 mesh; and the default router with a one-cycle header setup
# delay (tree_setup1: one more cycle per header hop, its request pipelined,
# docs/hardware.md 3f-3g) and that router with a deferred strip
# (tree_setup1_strip: one more cycle at each stripping router too, the
# fastest contract, 3h); the fast-hop router of every routing function
# (`--hop fast`, 2 cycles a header hop and 1 a body hop, docs/router.md;
# *_fast, the default router's over seeds 1-10 as the default router's);
# synth_ice40, synth_xilinx and the wrapped
# router's Fmax over nextpnr seeds 1-5 (ROUTING_SEEDS).
for r in spam hamiltonian dor negative_first tree_setup1 tree_setup1_strip \
    tree_fast spam_fast hamiltonian_fast dor_fast negative_first_fast; do
  routing_seeds=${ROUTING_SEEDS:-1 2 3 4 5}
  [ "$r" != tree_fast ] || routing_seeds=${ROUTING_SEEDS:-1 2 3 4 5 6 7 8 9 10}
  echo "== routing function $r: synth_ice40, synth_xilinx, nextpnr seeds $routing_seeds"
  case $r in
    spam) gen=(--topology torus:4x4 --routing spam) ;;
    tree_setup1) gen=(--topology torus:4x4 --routing tree --setup-cycles 1) ;;
    tree_setup1_strip) gen=(--topology torus:4x4 --routing tree --setup-cycles 1 --strip-deferred) ;;
    tree_fast) gen=(--topology torus:4x4 --routing tree --hop fast) ;;
    spam_fast) gen=(--topology torus:4x4 --routing spam --hop fast) ;;
    *_fast) gen=(--topology mesh:4x4 --routing "${r%_fast}" --hop fast) ;;
    *) gen=(--topology mesh:4x4 --routing "$r") ;;
  esac
  topo=${gen[1]}
  d=$out/routing_$r
  "$bin" verilog --router "${gen[@]}" --node 5 --out "$d" >/dev/null
  timed ice40_$r yosys -q -p \
    "read_verilog $d/wormcast_router_n5.v; synth_ice40 -top wormcast_router_n5; tee -q -o $d/ice40.stat stat"
  timed xilinx_$r yosys -q -p \
    "read_verilog $d/wormcast_router_n5.v; synth_xilinx -flatten -top wormcast_router_n5; tee -q -o $d/xilinx.stat stat"
  python3 scripts/pnr_wrap.py "$d/manifest.json" >"$d/pnr_wrap.v"
  yosys -q -p "read_verilog $d/wormcast_router_n5.v $d/pnr_wrap.v; synth_ice40 -top pnr_wrap -json $d/wrap.json" >/dev/null
  for seed in $routing_seeds; do
    timed pnr_${r}_s$seed pnr_seed "$d/wrap.json" $seed "$d/pnr_s$seed.log"
  done
  fs=$(for seed in $routing_seeds; do fmax_of "$d/pnr_s$seed.log"; done | sort -g | paste -sd,)
  cat >"$d/summary.json" <<JSON
{
    "topology": "$topo",
    "generated_with": "${gen[*]}",
    "SB_LUT4": $(cells $d/ice40.stat SB_LUT4),
    "SB_DFF_all": $(cells_re $d/ice40.stat '^SB_DFF'),
    "SB_CARRY": $(cells $d/ice40.stat SB_CARRY),
    "xilinx_LUT_all": $(cells_re $d/xilinx.stat '^LUT[1-6]$'),
    "xilinx_FF_all": $(cells_re $d/xilinx.stat '^FD'),
    "fmax_mhz_seeds_sorted": [$fs],
    "fmax_mhz_median": $(echo "$fs" | tr ',' '\n' | median)
  }
JSON
done

echo "== yosys synth_ice40 ($fabric fabric)"
timed ice40_fabric yosys -q -p \
  "read_verilog $F; synth_ice40 -top wormcast_torus_$fabric; tee -q -o $out/fabric_ice40.stat stat"

# The self-checking FPGA top to a bitstream (docs/hardware.md
# section 5): the largest fabric that fits the HX8K is the 2x2 DSTM-1 torus
# with 16-bit flits (a 3x3 has 9 routers of ~1 300 LCs). Plain synth_ice40
# gives 102-103 % of the LCs; -abc9 fits it. FPGA_TOPOLOGY / FPGA_FLAGS
# change the design.
fpga_topo=${FPGA_TOPOLOGY:-torus:2x2}
echo "== FPGA top ($fpga_topo): synth_ice40 -abc9, nextpnr-ice40 --hx8k, icepack"
"$bin" verilog --fpga-top --topology "$fpga_topo" --flit-width 16 ${FPGA_FLAGS:-} --out "$out/fpga" >/dev/null
ftop=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top"])' "$out/fpga/manifest.json")
timed ice40_fpga yosys -q -p \
  "read_verilog $out/fpga/$ftop.v $out/fpga/wormcast_fpga_board.v; synth_ice40 -abc9 -top wormcast_fpga_board -json $out/fpga_ice40.json; tee -q -o $out/fpga_ice40.stat stat"
timed pnr_fpga nextpnr-ice40 --$device --package $package --json "$out/fpga_ice40.json" \
  --pcf "$out/fpga/ice40_hx8k_breakout.pcf" --asc "$out/fpga.asc" --freq 12 --seed 1 $pnr_flags \
  -l "$out/fpga_pnr.log" -q
icepack "$out/fpga.asc" "$out/wormcast_fpga_board.bin"
icetime -d $device -P $package -p "$out/fpga/ice40_hx8k_breakout.pcf" -t "$out/fpga.asc" >"$out/fpga_icetime.txt" 2>&1 || true
# Gate level (testbench/tests/gate_level.rs, about 10 minutes): the FPGA
# top's -abc9 netlist (fabric, generators, checkers) against the native
# model every cycle, a broken router's netlist failing its own checks, and
# the placed-and-routed board design (icebox_vlog from the .asc) against
# the native model on its LED pins every cycle.
if [ "${GATE_LEVEL:-1}" = 1 ]; then
  echo "== gate-level FPGA top (iverilog + yosys iCE40 cell models)"
  timed gate_fpga cargo test --release -q -p wormcast-testbench --test gate_level fpga -- --ignored --nocapture --test-threads 1 \
    >"$out/gate_fpga.log" 2>&1
  grep -E "cycles|broken|pass fell|post-P&R|test result" "$out/gate_fpga.log" || true
fi

fmax=$(fmax_of "$out/router_pnr.log")
seeds=$(for f in "$out/router_pnr.log" "$out"/router_pnr_s*.log; do fmax_of "$f"; done | sort -g | paste -sd' ')
fmax_median=$(echo $seeds | tr ' ' '\n' | median)
fmax_best=$(echo $seeds | tr ' ' '\n' | tail -1)
sa_done=$(printf '%s\n' "${sa_seeds[@]}" | { grep -v null || true; } | sort -g | paste -sd' ')
sa_median=$(echo $sa_done | tr ' ' '\n' | median)
sa_best=$(echo $sa_done | tr ' ' '\n' | tail -1)
util() { grep -E "^Info:[[:space:]]+$1:" "$out/router_pnr.log" | tail -1 | sed -E 's/^Info:[[:space:]]+[A-Z_0-9]+:[[:space:]]+//; s/[[:space:]]+/ /g'; }
icet=$(grep -Eo 'Total path delay: [0-9.]+ ns \([0-9.]+ MHz\)' "$out/router_icetime.txt" | head -1)
s_i=$out/router_ice40.stat; s_x=$out/router_xilinx.stat; s_f=$out/fabric_ice40.stat
cat >"$out/summary.json" <<JSON
{
  "tools": {
    "yosys": "$(yosys -V | head -1)",
    "nextpnr-ice40": "$(nextpnr-ice40 --version 2>&1 | head -1)",
    "icestorm": "Debian fpga-icestorm $(dpkg-query -W -f '${Version}' fpga-icestorm 2>/dev/null || echo '?')"
  },
  "router_ice40": {
    "SB_LUT4": $(cells $s_i SB_LUT4),
    "SB_DFF_all": $(cells_re $s_i '^SB_DFF'),
    "SB_CARRY": $(cells $s_i SB_CARRY),
    "SB_RAM40_4K": $(cells $s_i SB_RAM40_4K),
    "cells": $(awk '/Number of cells:/ {n=$4} END {print n+0}' $s_i)
  },
  "router_xilinx": {
    "LUT_all": $(cells_re $s_x '^LUT[1-6]$'),
    "FF_all": $(cells_re $s_x '^FD'),
    "CARRY4": $(cells $s_x CARRY4),
    "MUXF7": $(cells $s_x MUXF7),
    "MUXF8": $(cells $s_x MUXF8),
    "cells": $(awk '/Number of cells:/ {n=$4} END {print n+0}' $s_x)
  },
  "router_xilinx_abc9": {
    "LUT_all": $(cells_re $out/router_xilinx_abc9.stat '^LUT[1-6]$'),
    "FF_all": $(cells_re $out/router_xilinx_abc9.stat '^FD'),
    "CARRY4": $(cells $out/router_xilinx_abc9.stat CARRY4),
    "MUXF7": $(cells $out/router_xilinx_abc9.stat MUXF7),
    "MUXF8": $(cells $out/router_xilinx_abc9.stat MUXF8)
  },
  "router_pnr": {
    "device": "$device", "package": "$package", "nextpnr_flags": "$pnr_flags",
    "bare_router": "$(cat "$out/pnr_bare.txt" | tr -d '"')",
    "wrapper_SB_LUT4": $(cells $out/wrap_ice40.stat SB_LUT4),
    "wrapper_SB_DFF_all": $(cells_re $out/wrap_ice40.stat '^SB_DFF'),
    "fmax_mhz": ${fmax:-null},
    "fmax_mhz_seeds_1_to_10_sorted": [$(echo $seeds | tr ' ' ',')],
    "fmax_mhz_median": ${fmax_median:-null},
    "fmax_mhz_best": ${fmax_best:-null},
    "fmax_mhz_placer_sa_seeds_1_to_5": [$(IFS=,; echo "${sa_seeds[*]}")],
    "fmax_mhz_placer_sa_median": ${sa_median:-null},
    "fmax_mhz_placer_sa_best": ${sa_best:-null},
    "ICESTORM_LC": "$(util ICESTORM_LC)",
    "SB_IO": "$(util SB_IO)",
    "icetime": "$icet"
  },
  "routing_functions": {
    "spam": $(cat $out/routing_spam/summary.json),
    "hamiltonian": $(cat $out/routing_hamiltonian/summary.json),
    "dor": $(cat $out/routing_dor/summary.json),
    "negative_first": $(cat $out/routing_negative_first/summary.json),
    "tree_setup1": $(cat $out/routing_tree_setup1/summary.json),
    "tree_setup1_strip": $(cat $out/routing_tree_setup1_strip/summary.json),
    "tree_fast": $(cat $out/routing_tree_fast/summary.json),
    "spam_fast": $(cat $out/routing_spam_fast/summary.json),
    "hamiltonian_fast": $(cat $out/routing_hamiltonian_fast/summary.json),
    "dor_fast": $(cat $out/routing_dor_fast/summary.json),
    "negative_first_fast": $(cat $out/routing_negative_first_fast/summary.json)
  },
  "fabric_ice40": {
    "topology": "torus:$fabric",
    "SB_LUT4": $(cells $s_f SB_LUT4),
    "SB_DFF_all": $(cells_re $s_f '^SB_DFF'),
    "SB_CARRY": $(cells $s_f SB_CARRY),
    "cells": $(awk '/Number of cells:/ {n=$4} END {print n+0}' $s_f)
  },
  "fpga_top": {
    "design": "$ftop, 16-bit flits",
    "parameters": $(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["parameters"]))' "$out/fpga/manifest.json"),
    "SB_LUT4": $(cells $out/fpga_ice40.stat SB_LUT4),
    "SB_DFF_all": $(cells_re $out/fpga_ice40.stat '^SB_DFF'),
    "SB_CARRY": $(cells $out/fpga_ice40.stat SB_CARRY),
    "ICESTORM_LC": "$(grep -E '^Info:[[:space:]]+ICESTORM_LC:' "$out/fpga_pnr.log" | tail -1 | sed -E 's/^Info:[[:space:]]+ICESTORM_LC:[[:space:]]+//; s/[[:space:]]+/ /g')",
    "fmax_mhz": $(fmax_of "$out/fpga_pnr.log"),
    "icetime": "$(grep -Eo 'Total path delay: [0-9.]+ ns \([0-9.]+ MHz\)' "$out/fpga_icetime.txt" | head -1)",
    "bitstream": "$out/wormcast_fpga_board.bin",
    "bitstream_bytes": $(stat -c %s "$out/wormcast_fpga_board.bin")
  },
  "seconds": { $(awk '{printf "%s\"%s\": %s", (NR>1?", ":""), $1, $2}' "$out/times.txt") }
}
JSON
cat "$out/summary.json"
