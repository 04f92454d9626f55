#!/usr/bin/env bash
# What a change of the router's cycle contract would buy in Fmax, measured
# before anyone builds it (docs/hardware.md 3f). Generates the default router
# (node 5 of the 4x4 DSTM-1 torus, as scripts/synth.sh), applies one probe
# edit to its Verilog, and runs the P&R flow of scripts/synth.sh (the
# shift-register wrapper, synth_ice40, nextpnr-ice40 HX8K with the same
# placer flags) over a seed sweep.
#
#   bash scripts/contract_probe.sh PROBE [SEED...]   # seeds default 1-10, ~20 s each
#
# PROBE (each an edit of the generated Verilog; the edits other than `none`
# and `owned` change what the router computes, so the netlist is a timing
# model of a contract that does not exist yet, not a router to use):
#   none       the router as generated
#   req        each input's request reaches the arbiter through a register:
#              the arbitration of a first HEAD one cycle after its decode
#              (a fourth cycle per header hop; natively the router with
#              header_setup_cycles = 1, request pipelined)
#   strip      a stripped first HEAD leaves its FIFO one cycle after its grant
#              (a deferred strip: one more cycle at each router that strips)
#   req+strip  both
#   owned      the arbiter's owned-outputs mask as a register of its own,
#              loaded with the next owners (an exact change, no contract one)
#   fwd        a granted output loads its new owner's head in the grant
#              cycle: the crossbar's select and the output register's
#              enable take the grant (the timing of a two-cycle header hop)
# SETUP_CYCLES=N probes the router with a header setup delay of N cycles
# instead (`wormcast verilog --setup-cycles N`; its request is already
# registered, docs/hardware.md 3f, so `none` and `strip` are the probes that
# mean something there). STRIP_DEFERRED=1 generates the router with the
# deferred strip (`--strip-deferred`, docs/hardware.md 3h; `none` is then
# the probe that means something).
# YOSYS and NEXTPNR run other tools than Debian's (scripts/pnr_lib.sh).
# Prints the Fmax per seed, the median and best, and the SB_LUT4 count.
set -euo pipefail
cd "$(dirname "$0")/.."
probe=${1:?usage: contract_probe.sh none|req|strip|req+strip|owned|fwd [SEED...]}
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5 6 7 8 9 10)
case "$probe" in none | req | strip | req+strip | owned | fwd) ;; *)
  echo "unknown PROBE '$probe': allowed none, req, strip, req+strip, owned, fwd" >&2
  exit 2
  ;;
esac
bin=${WORMCAST:-target/release/wormcast}
[ -x "$bin" ] || cargo build --release --quiet
setup=${SETUP_CYCLES:-0}
out=target/probe/$probe
[ "$setup" = 0 ] || out=target/probe/${probe}_setup$setup
gen=(--setup-cycles "$setup")
case "${STRIP_DEFERRED:-0}" in
  0) ;;
  1) gen+=(--strip-deferred); out=${out}_strip_deferred ;;
  *) echo "STRIP_DEFERRED '$STRIP_DEFERRED': allowed 0 or 1" >&2; exit 2 ;;
esac
rm -rf "$out"
mkdir -p "$out"
"$bin" verilog --router --node 5 "${gen[@]}" --out "$out/router" >/dev/null
R=$out/router/wormcast_router_n5.v
python3 - "$R" "$probe" <<'PY'
import sys
path, probe = sys.argv[1], sys.argv[2]
v = open(path).read()
N = 5  # inputs of the default router
regs = []

def sub(old, new):
    global v
    if old not in v:
        sys.exit(f"probe {probe}: '{old}' not in the generated Verilog (the RTL changed; update the probe)")
    v = v.replace(old, new, 1)

if probe in ("req", "req+strip"):
    for i in range(N):
        regs.append(f"reg [7:0] probe_req{i}; always @(posedge clock) probe_req{i} <= arb$req${i};")
        sub(f".req${i}(arb$req${i})", f".req${i}(probe_req{i})")
if probe in ("strip", "req+strip"):
    for i in range(N):
        regs.append(f"reg probe_strip{i}; always @(posedge clock) probe_strip{i} <= arb$grant${i} & dec$strip${i};")
        sub(f"(arb$grant${i} & dec$strip${i});", f"probe_strip{i};")
if probe == "owned":
    bits = ", ".join(f"|sel_n${o}" for o in range(5, -1, -1))
    regs.append(f"reg [7:0] probe_owned; always @(posedge clock) probe_owned <= {{2'b00, {bits}}};")
    sub(".owned(arb$owned)", ".owned(probe_owned)")
if probe == "fwd":
    for o in range(6):  # outputs of the default router
        sub(f"xbar$sel${o} = out_sel${o}$q;", f"xbar$sel${o} = out_sel${o}$q | gsel_all${o};")
        sub(f"if (ldm_all[{o}]) begin", f"if (ldm_all[{o}] | (|gsel_all${o})) begin")
sub("    // Sub module instances\n", "".join(f"    {r}\n" for r in regs) + "    // Sub module instances\n")
open(path, "w").write(v)
PY
python3 scripts/pnr_wrap.py "$out/router/manifest.json" >"$out/pnr_wrap.v"
. scripts/pnr_lib.sh
$yosys -q -p "read_verilog $R; synth_ice40 -top wormcast_router_n5; tee -q -o $out/router.stat stat" >/dev/null
$yosys -q -p "read_verilog $R $out/pnr_wrap.v; synth_ice40 -top pnr_wrap -json $out/wrap.json" >/dev/null
fs=()
for seed in "${seeds[@]}"; do
  pnr_seed "$out/wrap.json" "$seed" "$out/pnr_s$seed.log" >/dev/null 2>&1
  f=$(fmax_of "$out/pnr_s$seed.log")
  echo "seed $seed: $f MHz"
  fs+=("$f")
done
# (`stat` prints "SB_LUT4 N" in Debian's yosys, "N SB_LUT4" in current ones.)
luts=$(awk '$1=="SB_LUT4" {n=$2} $2=="SB_LUT4" {n=$1} END {print n+0}' "$out/router.stat")
m=$(printf '%s\n' "${fs[@]}" | median)
printf '%s\n' "${fs[@]}" | sort -g | awk -v p="$probe" -v s="$setup" -v d="${STRIP_DEFERRED:-0}" -v l="$luts" -v m="$m" \
  '{a[NR]=$1} END {printf "probe %s (setup cycles %s, strip deferred %s): median %.2f MHz, best %.2f, worst %.2f over %d seeds; %d SB_LUT4\n", p, s, d, m, a[NR], a[1], NR, l}'
