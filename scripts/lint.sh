#!/usr/bin/env bash
# Verilog lint (docs/architecture.md §7): `verilator --lint-only -Wall` on the
# generated single router and 4x4 DSTM-1 torus fabric (shared and per-node
# instance forms), and the same two with SPAM routing and a header setup
# delay of 2 cycles, and a router and a 4x4 mesh fabric for each mesh
# routing function (hamiltonian, dor, negative_first), and the 4x4 fabric
# with a faulty link and local fault information (diversion constants,
# [DSTM] §7), and the router with a one-cycle setup delay and a deferred
# strip (docs/hardware.md 3h), the fast-hop router and its 4x4 torus and
# dor mesh fabrics (docs/router.md), and the other flit widths (a 16-bit fabric
# with depth-4 buffers, a 64-bit router with depth 1 and two injection
# channels). Clean except the waivers of
# scripts/verilator_waivers.vlt, each named and explained there (all
# UNUSEDSIGNAL on signals the router keeps on purpose; no WIDTH waiver);
# any other warning or error fails this script. Then a user's file beside
# the generated ones must still get the warnings the waivers and the
# generated files' own pragmas accept there.
#
#   bash scripts/lint.sh [WORMCAST_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/wormcast
fi
command -v verilator >/dev/null || {
  echo "verilator not found: install the Debian package verilator (bash scripts/test.sh does)" >&2
  exit 1
}
out=target/lint
rm -rf "$out"
mkdir -p "$out"
"$bin" verilog --router --node 5 --out "$out/router" >/dev/null
"$bin" verilog --topology torus:4x4 --construction dstm1 --out "$out/fabric" >/dev/null
"$bin" verilog --topology torus:4x4 --construction dstm1 --per-node --out "$out/fabric_per_node" >/dev/null
"$bin" verilog --router --routing spam --setup-cycles 2 --node 5 --out "$out/router_spam" >/dev/null
"$bin" verilog --topology torus:4x4 --routing spam --setup-cycles 2 --out "$out/fabric_spam" >/dev/null
"$bin" verilog --topology torus:4x4 --faulty-link 1,1,+x --fault-info local --out "$out/fabric_divert" >/dev/null
"$bin" verilog --router --setup-cycles 1 --strip-deferred --node 5 --out "$out/router_strip" >/dev/null
"$bin" verilog --topology torus:4x4 --flit-width 16 --buffer-depth 4 --out "$out/fabric_w16" >/dev/null
"$bin" verilog --router --flit-width 64 --buffer-depth 1 --injection-channels 2 --node 5 --out "$out/router_w64" >/dev/null
for r in hamiltonian dor negative_first; do
  "$bin" verilog --router --topology mesh:4x4 --routing $r --node 5 --out "$out/router_$r" >/dev/null
  "$bin" verilog --topology mesh:4x4 --routing $r --out "$out/fabric_$r" >/dev/null
done
"$bin" verilog --router --hop fast --node 5 --out "$out/router_fast" >/dev/null
"$bin" verilog --topology torus:4x4 --hop fast --out "$out/fabric_fast" >/dev/null
"$bin" verilog --topology mesh:4x4 --routing dor --hop fast --out "$out/fabric_dor_fast" >/dev/null

status=0
lint() { # dir top
  local log="$1.lint.log"
  # -Wall with the waiver file; warnings are fatal, so a nonzero exit or any
  # %Warning/%Error line fails.
  if ! verilator --lint-only -Wall scripts/verilator_waivers.vlt \
      --top-module "$2" "$1"/*.v >"$log" 2>&1 || grep -q '^%' "$log"; then
    echo "lint FAILED: $2 in $1 (first lines of $log):" >&2
    head -20 "$log" >&2
    status=1
  else
    echo "lint ok: $2 in $1 ($(grep -c . "$1"/*.v) lines, waivers: scripts/verilator_waivers.vlt)"
  fi
}
lint "$out/router" wormcast_router_n5
lint "$out/fabric" wormcast_torus_4x4
lint "$out/fabric_per_node" wormcast_torus_4x4
lint "$out/router_spam" wormcast_router_n5
lint "$out/fabric_spam" wormcast_torus_4x4
lint "$out/fabric_divert" wormcast_torus_4x4
lint "$out/router_strip" wormcast_router_n5
lint "$out/fabric_w16" wormcast_torus_4x4
lint "$out/router_w64" wormcast_router_n5
for r in hamiltonian dor negative_first; do
  lint "$out/router_$r" wormcast_router_n5
  lint "$out/fabric_$r" wormcast_mesh_4x4
done
lint "$out/router_fast" wormcast_router_n5
lint "$out/fabric_fast" wormcast_torus_4x4
lint "$out/fabric_dor_fast" wormcast_mesh_4x4

# The waivers are scoped to the generated files. A user's file beside the
# generated router, with idioms the lint accepts in generated code, must
# still be reported: a signal whose high bits are unread under a name a
# waiver names (`ldm_all`, waiver (e)), a 32-bit literal into a 4-bit
# register (WIDTH, waived nowhere), and a second module in the file
# (DECLFILENAME, which the generated file turns off for its own
# sub-modules only).
mkdir -p "$out/mixed"
cp "$out/router"/*.v "$out/mixed/"
cat >"$out/mixed/user_counter.v" <<'V'
module user_counter(input wire clk, input wire [7:0] ldm_all, output reg [3:0] q);
    always @(posedge clk) q <= ldm_all[3:0] + 32'h1;
    user_helper h(.clk(clk));
    wormcast_router_n5 r(.clk(clk));
endmodule
module user_helper(input wire clk);
endmodule
V
verilator --lint-only -Wall -Wno-PINMISSING -Wno-UNUSEDSIGNAL -Wno-UNDRIVEN scripts/verilator_waivers.vlt --top-module user_counter \
  "$out/mixed"/*.v >"$out/mixed.lint.log" 2>&1 || true
verilator --lint-only -Wall -Wno-PINMISSING -Wno-WIDTH -Wno-DECLFILENAME scripts/verilator_waivers.vlt --top-module user_counter \
  "$out/mixed"/*.v >"$out/mixed_unused.lint.log" 2>&1 || true
if grep -q "%Warning-WIDTH: .*user_counter.v" "$out/mixed.lint.log" \
    && grep -q "%Warning-DECLFILENAME: .*user_counter.v.*user_helper" "$out/mixed.lint.log" \
    && grep -q "%Warning-UNUSEDSIGNAL: .*user_counter.v.*'ldm_all'\[7:4\]" "$out/mixed_unused.lint.log" \
    && ! grep -q "%Warning.*wormcast_router_n5.v" "$out/mixed.lint.log" "$out/mixed_unused.lint.log"; then
  echo "lint ok: waivers and pragmas scoped to the generated files (a user file's UNUSEDSIGNAL, WIDTH and DECLFILENAME warnings are reported)"
else
  echo "lint FAILED: the waivers are not scoped to the generated files ($out/mixed*.lint.log):" >&2
  head -20 "$out/mixed.lint.log" "$out/mixed_unused.lint.log" >&2
  status=1
fi
exit $status
