#!/bin/bash
# [BRCP] Fig. 9 on the cycle model: latency vs arrival rate, 10/20/30
# destinations, four schemes. Run from the repository root after
# `cargo build --release`; about 4 min per destination count on 2 threads.
set -e
D=docs/results/mesh-brcp
for n in 10 20 30; do
  target/release/wormcast sweep --scenario $D/base.toml \
    --schemes brcp-pure,brcp-minimal,dual-path,column-path \
    --loads 0.00001,0.00002,0.00003,0.00004,0.00006,0.00008 \
    --set traffic.destinations=$n --threads 2 --quiet \
    --json $D/fig9-$n.json --plot $D/fig9-$n.svg
done
