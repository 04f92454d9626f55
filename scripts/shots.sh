#!/usr/bin/env bash
# Regenerates every picture of docs/img/ that the command line draws, each
# from the command docs/sight.md or docs/waveforms.md shows for it:
#
#   bash scripts/shots.sh [OUT_DIR]        # default docs/img
#
#   heat maps (SVG + PNG)  heatmap-dstm1-16x16-torus, heatmap-brcp-16x16-mesh
#   sweep plot (SVG + PNG) sweep-dstm-8x8
#   HTML replay            replay-torus-8x8.png   (tests/replay_browser.rs)
#   GTKWave                gtkwave-native-multicast, gtkwave-divert-split,
#                          gtkwave-mesh-path-worm (scripts/gtkwave_shot.sh),
#                          gtkwave-verilog-multicast (scripts/gtkwave_verilog_shot.sh)
#
# python-fig9.png is drawn by the Python package (docs/python.md), not here.
# Needs chromium, gtkwave, xvfb, xdotool, imagemagick and iverilog;
# VERILOG_WAVES_BIN as for scripts/gtkwave_verilog_shot.sh. The
# binary is WORMCAST_BIN, else target/release/wormcast, built (or found up to
# date) first so no picture comes from a stale binary.
# tests/docs_img.rs checks that every picture listed here exists.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/img}
mkdir -p "$out"
if [ -n "${WORMCAST_BIN:-}" ]; then
  bin=$WORMCAST_BIN
  [ -x "$bin" ] || { echo "WORMCAST_BIN=$bin is not an executable" >&2; exit 2; }
else
  bin=target/release/wormcast
  cargo build --release -q
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# An SVG as a PNG of its own size, through headless Chromium.
png_of() {
  local svg=$1 png=$2 w h
  w=$(sed -n 's/^<svg width="\([0-9]*\)".*/\1/p' "$svg" | head -1)
  h=$(sed -n 's/^<svg width="[0-9]*" height="\([0-9]*\)".*/\1/p' "$svg" | head -1)
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$(realpath "$png")" --window-size="$w,$h" "file://$(realpath "$svg")" 2>/dev/null
  echo "wrote $png"
}

echo "== heat maps"
"$bin" run -q --scenario examples/bench-16x16-high.toml --set traffic.rate=0.0008 \
  --heatmap "$out/heatmap-dstm1-16x16-torus.svg" || [ $? -eq 1 ]
png_of "$out/heatmap-dstm1-16x16-torus.svg" "$out/heatmap-dstm1-16x16-torus.png"
"$bin" run -q --scenario examples/mesh-16x16-brcp.toml --set run.cycles=200000 \
  --heatmap "$out/heatmap-brcp-16x16-mesh.svg" || [ $? -eq 1 ]
png_of "$out/heatmap-brcp-16x16-mesh.svg" "$out/heatmap-brcp-16x16-mesh.png"

echo "== sweep plot"
"$bin" sweep -q --loads 0.001,0.002,0.003,0.004,0.006,0.008,0.01 --schemes dstm1,dstm2,spam \
  --set run.cycles=5000 --plot "$out/sweep-dstm-8x8.svg" >/dev/null
png_of "$out/sweep-dstm-8x8.svg" "$out/sweep-dstm-8x8.png"

echo "== replay (the browser test's screenshot)"
# CARGO_PROFILE_FLAGS (default --release; empty for the dev profile) picks
# the build of the test.
WORMCAST_SHOT_DIR=$(realpath "$out") cargo test ${CARGO_PROFILE_FLAGS---release} -q \
  --test replay_browser replay_page_draws_the_kernel_trace >/dev/null

echo "== GTKWave"
"$bin" run -q --scenario examples/multicast-split.toml \
  --vcd "$tmp/multicast.vcd" --vcd-routers '0,0;1,0;2,0;3,0' --vcd-window 0..60
bash scripts/gtkwave_shot.sh "$tmp/multicast.vcd" "$out/gtkwave-native-multicast.png"
"$bin" run -q --scenario examples/fault-divert-split.toml \
  --vcd "$tmp/divert.vcd" --vcd-routers all --vcd-window 0..120
bash scripts/gtkwave_shot.sh "$tmp/divert.vcd" "$out/gtkwave-divert-split.png" scripts/gtkwave_divert.gtkw
"$bin" run -q --scenario examples/mesh-path-worm.toml \
  --vcd "$tmp/path.vcd" --vcd-routers all --vcd-window 0..80
bash scripts/gtkwave_shot.sh "$tmp/path.vcd" "$out/gtkwave-mesh-path-worm.png" scripts/gtkwave_mesh_path.gtkw
bash scripts/gtkwave_verilog_shot.sh "$out/gtkwave-verilog-multicast.png"
