#!/bin/bash
# [BRCP] Fig. 10 on the cycle model: latency vs number of destinations at
# arrival rate 0.006 per us per node = 0.00003 per cycle (1 cycle = 5 ns).
set -e
D=docs/results/mesh-brcp
for n in 10 50 100 150 200 255; do
  target/release/wormcast sweep --scenario $D/base.toml \
    --schemes brcp-pure,brcp-minimal,dual-path,column-path \
    --loads 0.00003 --set traffic.destinations=$n --set run.cycles=60000 \
    --threads 2 --quiet --json $D/fig10-$n.json
done
