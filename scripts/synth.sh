#!/usr/bin/env bash
# Synthesis and place-and-route figures for docs/hardware.md (ARCHITECTURE §7).
#
#   bash scripts/synth.sh [WORMCAST_BINARY]      # ~10 min on 2 cores
#
# One router (node 5 of the 4x4 DSTM-1 torus: 32-bit flits, depth 2,
# 1 injection + 2 consumption channels):
#   - yosys synth_ice40  -> SB_LUT4 / SB_DFF* / SB_CARRY counts
#   - yosys synth_xilinx -> LUT / FF / CARRY4 / MUXF7/8 counts
#   - nextpnr-ice40 --hx8k --package ct256 -> utilisation and Fmax
#     (if it does not fit, --up5k is tried and the overflow reported)
#   - icepack + icetime for an independent timing estimate
# A 3x3 DSTM-1 torus fabric: yosys synth_ice40 cell counts.
# Writes target/synth/summary.json and the tool logs; docs/hardware.md
# quotes them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/wormcast
fi
for t in yosys nextpnr-ice40 icepack icetime; do
  command -v $t >/dev/null || { echo "$t not found: install yosys, nextpnr-ice40, fpga-icestorm" >&2; exit 1; }
done
out=target/synth
rm -rf "$out"; mkdir -p "$out"
"$bin" verilog --router --node 5 --out "$out/router" >/dev/null
"$bin" verilog --topology torus:3x3 --construction dstm1 --out "$out/fabric3" >/dev/null
R=$out/router/wormcast_router_n5.v
F=$out/fabric3/wormcast_torus_3x3.v

timed() { # name cmd...
  local t0=$(date +%s)
  "${@:2}"
  echo "$1 $(( $(date +%s) - t0 ))" >>"$out/times.txt"
}
# Count of one cell type in a yosys `stat` report (0 if absent).
cells() { awk -v c="$2" '$1==c {n=$2} END {print n+0}' "$1"; }
cells_re() { awk -v re="$2" '$1 ~ re {n+=$2} END {print n+0}' "$1"; }

echo "== yosys synth_ice40 (router)"
timed ice40_router yosys -q -l "$out/router_ice40.log" -p \
  "read_verilog $R; synth_ice40 -top wormcast_router_n5 -json $out/router_ice40.json; tee -q -o $out/router_ice40.stat stat"
echo "== yosys synth_xilinx (router)"
timed xilinx_router yosys -q -l "$out/router_xilinx.log" -p \
  "read_verilog $R; synth_xilinx -top wormcast_router_n5; tee -q -o $out/router_xilinx.stat stat"
echo "== nextpnr-ice40 (router)"
device=hx8k; package=ct256
if ! timed pnr_router nextpnr-ice40 --$device --package $package --json "$out/router_ice40.json" \
    --asc "$out/router.asc" --freq 50 --timing-allow-fail --seed 1 \
    --report "$out/router_pnr.json" -l "$out/router_pnr.log" -q; then
  echo "does not fit $device; trying up5k" | tee "$out/pnr_overflow.txt"
  grep -iE "unable|fail|error" "$out/router_pnr.log" | head -5 >>"$out/pnr_overflow.txt" || true
  device=up5k; package=sg48
  timed pnr_router nextpnr-ice40 --$device --package $package --json "$out/router_ice40.json" \
    --asc "$out/router.asc" --freq 20 --timing-allow-fail --seed 1 \
    --report "$out/router_pnr.json" -l "$out/router_pnr.log" -q
fi
icepack "$out/router.asc" "$out/router.bin"
icetime -d $device -P $package -m -t "$out/router.asc" >"$out/router_icetime.txt" 2>&1 || true
echo "== yosys synth_ice40 (3x3 fabric)"
timed ice40_fabric3 yosys -q -l "$out/fabric3_ice40.log" -p \
  "read_verilog $F; synth_ice40 -top wormcast_torus_3x3; tee -q -o $out/fabric3_ice40.stat stat"

fmax=$(grep -Eo "Max frequency for clock +'[^']*': [0-9.]+ MHz" "$out/router_pnr.log" | tail -1 | grep -Eo '[0-9.]+ MHz' | cut -d' ' -f1)
util() { grep -E "^Info: +$1:" "$out/router_pnr.log" | tail -1 | sed -E 's/^Info: +[A-Z_0-9]+: +//; s/ +/ /g'; }
icet=$(grep -Eo 'Total path delay: [0-9.]+ ns \([0-9.]+ MHz\)' "$out/router_icetime.txt" | head -1)
s_i=$out/router_ice40.stat; s_x=$out/router_xilinx.stat; s_f=$out/fabric3_ice40.stat
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
  "router_pnr": {
    "device": "$device", "package": "$package",
    "fmax_mhz": ${fmax:-null},
    "ICESTORM_LC": "$(util ICESTORM_LC)",
    "SB_IO": "$(util SB_IO)",
    "icetime": "$icet"
  },
  "fabric_3x3_ice40": {
    "SB_LUT4": $(cells $s_f SB_LUT4),
    "SB_DFF_all": $(cells_re $s_f '^SB_DFF'),
    "SB_CARRY": $(cells $s_f SB_CARRY),
    "cells": $(awk '/Number of cells:/ {n=$4} END {print n+0}' $s_f)
  },
  "seconds": { $(awk '{printf "%s\"%s\": %s", (NR>1?", ":""), $1, $2}' "$out/times.txt") }
}
JSON
cat "$out/summary.json"
