#!/usr/bin/env bash
# Speed of one run on several threads (run.threads): tori and meshes of
# 64x64, 128x128 and 256x256 routers at low, medium and saturated load,
# each run with 1 and 2 threads (or THREADS="1,2,4"), medians of REPEAT runs.
# docs/performance.md, "One run on several threads", shows the figures.
#
#   bash scripts/threads_bench.sh            # table on stdout, JSON in target/threads-bench/
#   TASKSET="taskset -c 1" bash scripts/threads_bench.sh   # all threads on one core
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${WORMCAST_BIN:-target/release/wormcast}
[ -x "$BIN" ] || cargo build --release --bin wormcast
out=target/threads-bench
mkdir -p "$out"
THREADS=${THREADS:-1,2}
REPEAT=${REPEAT:-3}
files=()
# Saturated rate of the 128x128 DSTM-1 torus (msgs/node/cycle, the default
# 90/10 unicast/multicast mix), scaled as 1/side for other sides (the
# bisection per node); meshes at half (half the bisection). Medium is 40 %
# and low 10 % of it.
for topo in torus mesh; do
  for k in 64 128 256; do
    for level in low medium saturated; do
      case $level in low) f=0.1 ;; medium) f=0.4 ;; saturated) f=1.0 ;; esac
      rate=$(python3 -c "t={'torus':1.0,'mesh':0.5}['$topo']; print(f'{2e-5*128/$k*$f*t:.3g}')")
      p="$out/$topo-${k}x$k-$level.toml"
      {
        echo "[network]"
        echo "topology = \"$topo:${k}x$k\""
        [ "$topo" = mesh ] && echo 'routing = "dor"'
        echo "[traffic]"
        echo "rate = $rate"
        echo "[run]"
        echo "warmup = 1000"
        echo "cycles = 3000"
        echo "drain_cycles = 0"
      } > "$p"
      files+=("$p")
    done
  done
done
${TASKSET:-} "$BIN" bench --threads "$THREADS" --repeat "$REPEAT" --json "$out/bench.json" "${files[@]}"
