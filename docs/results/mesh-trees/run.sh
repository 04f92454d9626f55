#!/bin/bash
# Tree multicast on the cycle model (docs/results/mesh-trees-latency.md): tree
# multicast (thesis VH/DIAG/DDS/MIN on XY) vs path-based schemes on a 16x16
# mesh, and [FTTREE]'s fault-tolerant trees vs multiple unicast on a faulty
# 16x16 mesh. Base: the [BRCP] system of docs/results/mesh-brcp/base.toml
# (4 inj + 4 cons channels, start-up 1000 cycles serial, 10..100 flits,
# window 100000 cycles), three traffic seeds. Run from the repository root
# after `cargo build --release`; under a minute on 2 threads. A sweep whose
# points deadlock exits 1, so no `set -e`.
D=docs/results/mesh-trees
B=docs/results/mesh-brcp/base.toml
for seed in 4 5 6; do
  target/release/wormcast sweep --scenario $B --set traffic.seed=$seed \
    --schemes vh,diag,dds,min,dual-path,brcp-minimal,column-path \
    --loads 0.00001,0.00002,0.00004,0.00006 --threads 2 --quiet \
    --json $D/trees-seed$seed.json --plot $D/trees-seed$seed.svg
done
F='network.faulty_nodes=["3,3","4,4","10,2","7,9","12,12","2,11","13,6","6,14","9,5","14,14"]'
for seed in 4 5 6; do
  target/release/wormcast sweep --scenario $B --set traffic.seed=$seed --set "$F" \
    --set traffic.multicast_fraction=0.5 \
    --schemes ft-s1,ft-s2,ft-s3,ft-unicast \
    --loads 0.000005,0.00001,0.00002 --threads 2 --quiet \
    --json $D/faulty-seed$seed.json --plot $D/faulty-seed$seed.svg
done
