#!/usr/bin/env bash
# The one test entry point: the README's test command and CI's (.ci/run).
#
#   bash scripts/test.sh          # everything
#
# Installs the Debian tools the suite needs when they are missing (you need
# root or sudo for that), then runs formatting and lint checks, the API docs
# and the book with their link checks, the whole cargo test suite, and smoke
# runs of the command line on every example.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the suite uses, as "command:package": the Verilog vector
# tests run iverilog and Verilator, the lint runs Verilator, the synthesis
# smoke check yosys; nextpnr-ice40 and icestorm serve scripts/synth.sh;
# chromium runs the HTML replay test (tests/replay_browser.rs, fails without it);
# slurm-wlm and munge the one-node Slurm cluster of scripts/slurm-test.sh.
NEEDED_TOOLS=(verilator:verilator iverilog:iverilog yosys:yosys nextpnr-ice40:nextpnr-ice40
  icepack:fpga-icestorm chromium:chromium slurmctld:slurm-wlm munged:munge
  ${WORMCAST_EXTRA_TOOLS:-})

ensure_tools() {
  local missing=()
  for spec in "$@"; do
    local cmd=${spec%%:*} pkg=${spec##*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# Each step prints the wall clock, so a slow CI run shows where it went.
step() { echo; echo "== $* ($(date -u +%T))"; }

# The build and the suite's outputs take about 6 GB under target/ from a
# fresh clone; a disk that fills half-way fails with a compiler I/O error,
# so say how much room there was.
step "disk space"
df -h . | tail -1
avail_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if [ "${avail_kb:-0}" -lt $((8 * 1024 * 1024)) ]; then
  echo "warning: $((avail_kb / 1024)) MB free here; a fresh build and test run needs about 6 GB" >&2
fi

if [ ${#NEEDED_TOOLS[@]} -gt 0 ]; then
  ensure_tools "${NEEDED_TOOLS[@]}"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

# No two files of a crate import each other, directly or round a circle
# (a lower layer never imports a higher one); plain Python, under a second.
step "import circles (scripts/check_cycles.py)"
python3 scripts/check_cycles.py

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc (warnings are errors, broken intra-doc links included)"
# After clippy the dependencies are checked already: seconds.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace

step "the book: mdBook build and link check (scripts/check_book.sh)"
bash scripts/check_book.sh

# Property tests draw their cases from a fixed seed, so that CI is
# reproducible: a red run is the code's doing, and re-running it gives the
# same cases. Explore new cases with PROPTEST_RNG_SEED=<any number> (or
# set it empty for a random seed); a failure proptest finds is saved in
# the test's .proptest-regressions file and replayed first on every run
# (docs/decisions.md, "Property-test seeds").
export PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED-20261125}

step "cargo test (workspace)"
cargo test --workspace 2>&1 | tee target/test.log
# A green suite that ran nothing proves nothing.
passed=$(grep -Eo 'test result: ok\. [0-9]+ passed' target/test.log | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/test.log | awk '{s+=$1} END {print s+0}')
if [ "$passed" -lt 50 ]; then
  echo "only $passed tests ran; the suite is broken" >&2
  exit 1
fi

step "command line smoke runs"
# The binary the integration tests ran (CARGO_BIN_EXE_wormcast, test
# profile): already built. Any `cargo build` compiles it again, even with
# `--profile test` (a build without the dev-dependencies resolves some
# crates' features differently): 97 s for the dev profile, at least 22 s for
# the test profile on the 2-core VM (docs/history/decisions-log.md "CI time, again").
bin=target/debug/wormcast
[ -x "$bin" ] || { echo "cargo test left no $bin" >&2; exit 1; }
$bin run --set run.cycles=2000 --set run.warmup=200 --json target/smoke.json -q
grep -q '"deadlock": false' target/smoke.json
for f in examples/*.toml; do
  # Every example must parse and validate; run each briefly. The deadlock
  # examples must be caught (exit 1 with a deadlock report), the rest clean.
  status=0
  $bin run --scenario "$f" --set run.cycles=500 --set run.warmup=0 --set run.drain_cycles=20000 -q \
    --json target/example.json || status=$?
  case "$(basename "$f")" in
    deadlock-*) [ "$status" -eq 1 ] && grep -q '"deadlock": true' target/example.json \
                  || { echo "example $f: deadlock not caught (exit $status)" >&2; exit 1; } ;;
    *) [ "$status" -eq 0 ] || { echo "example $f failed (exit $status)" >&2; exit 1; } ;;
  esac
done
$bin trees --topology torus:16x16 --construction dstm1 --json >/dev/null
$bin route --topology torus:8x8 --construction dstm1 --source 0,0 --dest 3,4 --dest 7,7 --json >/dev/null
$bin verilog --router --out target/verilog-router >/dev/null
iverilog -g2012 -o target/verilog-router/a.vvp target/verilog-router/wormcast_router_n0.v

step "Python package: pip install, mypy, pytest, docs example (scripts/python_test.sh)"
bash scripts/python_test.sh "$bin"

step "sharded sweep through a real Slurm job array (scripts/slurm-test.sh)"
bash scripts/slurm-test.sh "$bin"

step "Verilog lint (verilator -Wall, named waivers)"
bash scripts/lint.sh "$bin"

step "synthesis smoke check (yosys synth_ice40, one router)"
# The full figures (synth_xilinx, nextpnr, a 3x3 fabric) are scripts/synth.sh,
# too slow for every CI run; this proves the router still synthesises and
# that its area has not grown past the committed baseline.
smoke=target/synth-smoke
rm -rf "$smoke"
$bin verilog --router --node 5 --out "$smoke" >/dev/null
# Again (at most three runs) only if yosys's ABC died of a signal
# (Debian's berkeley-abc aborted once in CI on an input that passed 50
# runs out of 50 here; testbench/tests/gate_level.rs does the same).
for attempt in 1 2 3; do
  if timeout 300 yosys -q -p "read_verilog $smoke/wormcast_router_n5.v; synth_ice40 -top wormcast_router_n5; tee -q -o $smoke/stat.txt stat" 2>"$smoke/yosys.err"; then
    break
  fi
  cat "$smoke/yosys.err" >&2
  if [ $attempt = 3 ] || ! grep -q "ABC: execution of command.*return code 13[49]" "$smoke/yosys.err"; then
    echo "yosys failed on the router" >&2
    exit 1
  fi
  echo "yosys's ABC died of a signal (run $attempt of 3), running again" >&2
done
luts=$(awk '$1=="SB_LUT4" {print $2}' "$smoke/stat.txt")
# Area regression gate: more than tolerance_percent above the committed
# baseline (scripts/synth_baseline.json) fails the suite.
base=$(sed -n 's/.*"sb_lut4": *\([0-9][0-9]*\).*/\1/p' scripts/synth_baseline.json)
tol=$(sed -n 's/.*"tolerance_percent": *\([0-9][0-9]*\).*/\1/p' scripts/synth_baseline.json)
[ -n "$base" ] && [ -n "$tol" ] || { echo "scripts/synth_baseline.json: sb_lut4 or tolerance_percent missing" >&2; exit 1; }
limit=$(( base * (100 + tol) / 100 ))
echo "router synth_ice40: ${luts:-?} SB_LUT4 (baseline $base, limit $limit = +$tol %)"
[ -n "$luts" ] && [ "$luts" -gt 100 ] || { echo "synth_ice40 produced no logic" >&2; exit 1; }
[ "$luts" -le "$limit" ] || { echo "router area regression: $luts SB_LUT4 > $limit (scripts/synth_baseline.json $base + $tol %)" >&2; exit 1; }

step "fabric synthesis (4x4 DSTM-1 torus, every router out of context: scripts/synth_fabric.py)"
# The network-scale flow of docs/fpga.md on the fabric every equivalence
# suite uses: the 16 routers through yosys synth_ice40 two at a time
# (about 2 minutes on 2 cores), gated like the router above.
python3 scripts/synth_fabric.py torus:4x4 --bin "$bin" --out target/synth-fabric-ci \
  --baseline scripts/synth_fabric_baseline.json >target/synth-fabric-ci.log \
  || { tail -30 target/synth-fabric-ci.log >&2; exit 1; }
tail -1 target/synth-fabric-ci.log

echo
echo "suite: $passed passed, $failed failed (done $(date -u +%T))"
