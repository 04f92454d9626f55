#!/usr/bin/env bash
# GTKWave picture of the *generated Verilog* (iverilog) showing a multicast
# split with a blocked branch: docs/img/gtkwave-verilog-multicast.png.
#
#   bash scripts/gtkwave_verilog_shot.sh [OUT.png]
#
# Replays examples/multicast-split-blocked.toml from the native model on the
# generated 4x4 fabric (checked every cycle, as in the vector tests), dumps
# the iverilog VCD and screenshots it with scripts/gtkwave_verilog_multicast.gtkw
# through scripts/gtkwave_shot.sh (needs gtkwave, xvfb, xdotool, imagemagick,
# iverilog).
#
# The replay is the testbench example `verilog_waves`: VERILOG_WAVES_BIN if
# set, else target/release/examples/verilog_waves if it was built, else it is
# built first with `cargo run --release` (minutes from cold).
set -euo pipefail
cd "$(dirname "$0")/.."
png=${1:-docs/img/gtkwave-verilog-multicast.png}
out=target/verilog-waves
args=(examples/multicast-split-blocked.toml 80 "$out")
bin=${VERILOG_WAVES_BIN:-target/release/examples/verilog_waves}
if [ -x "$bin" ]; then
  "$bin" "${args[@]}"
else
  [ -z "${VERILOG_WAVES_BIN:-}" ] || { echo "VERILOG_WAVES_BIN=$bin is not an executable" >&2; exit 2; }
  cargo run --release -q -p wormcast-testbench --example verilog_waves -- "${args[@]}"
fi
bash scripts/gtkwave_shot.sh "$out/verilog.vcd" "$png" scripts/gtkwave_verilog_multicast.gtkw
