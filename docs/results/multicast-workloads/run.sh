#!/bin/bash
# Multicast workloads (docs/results/multicast-workloads.md): invalidation
# traffic, region multicast and collectives on a 16x16 torus (DSTM-1,
# DSTM-2, SPAM) and a 16x16 mesh (dual-path, BRCP, the thesis trees).
# Run from the repository root after `cargo build --release`; about two
# minutes on 2 threads. Sweeps whose points deadlock exit 1, so no `set -e`.
# Then `python3 docs/results/multicast-workloads/tables.py` prints the
# page's tables from the JSON written here.
D=docs/results/multicast-workloads
W=target/release/wormcast
TORUS=dstm1,dstm2,spam
MESH=dual-path,brcp-minimal,vh,diag,dds,min
sweep() { # name base schemes loads sets...
  local name=$1 base=$2 schemes=$3 loads=$4
  shift 4
  $W sweep --scenario $D/$base.toml --schemes $schemes --loads $loads \
    --threads 2 --quiet --json $D/$name.json "$@" >/dev/null 2>&1
}
for net in torus mesh; do
  s=$TORUS; [ $net = mesh ] && s=$MESH
  I='traffic.multicast="invalidation"'
  sweep inv-k2-$net $net $s 0.0001,0.0002,0.0004,0.0006 --set "$I" --set 'traffic.sharers=[[2, 1]]'
  sweep inv-k8-$net $net $s 0.00005,0.0001,0.00015,0.0002 --set "$I" --set 'traffic.sharers=[[8, 1]]'
  sweep inv-k64-$net $net $s 0.00001,0.00002,0.00004,0.00006 --set "$I" --set 'traffic.sharers=[[64, 1]]'
  sweep inv-mix-$net $net $s 0.00002,0.00004,0.00006,0.0001 --set "$I" --set 'traffic.sharers=[[2, 0.5], [8, 0.3], [64, 0.2]]'
  for shape in row column; do
    sweep $shape-$net $net $s 0.0001,0.0002,0.0004 --set traffic.length=16 --set "traffic.multicast=\"$shape\""
  done
  sweep rect-$net $net $s 0.0001,0.0002,0.0004 --set traffic.length=16 \
    --set 'traffic.multicast="rectangle"' --set 'traffic.region=[4, 4]'
  for scheme in ${s//,/ }; do
    for c in broadcast:8,8 broadcast:0,0 scatter:8,8 allgather:0,0; do
      kind=${c%%:*} root=${c#*:}
      set -- --set traffic.pattern='"none"' --set traffic.length=16 --set run.drain_cycles=300000 \
        --set "traffic.collective=\"$kind\""
      [ $kind != allgather ] && set -- "$@" --set "traffic.root=\"$root\""
      case $scheme in
        dstm*) set -- "$@" --set network.construction="\"$scheme\"" ;;
        spam) set -- "$@" --set network.routing='"spam"' --set network.construction='"bfs"' ;;
        dual-path) set -- "$@" --set network.routing='"hamiltonian"' --set traffic.multicast_scheme="\"$scheme\"" ;;
        brcp-minimal) set -- "$@" --set network.routing='"negative_first"' --set traffic.multicast_scheme="\"$scheme\"" ;;
        *) set -- "$@" --set network.routing='"dor"' --set traffic.multicast_scheme="\"$scheme\"" ;;
      esac
      $W run -q --scenario $D/$net.toml "$@" --json $D/coll-$net-$scheme-$kind-${root/,/-}.json >/dev/null 2>&1
    done
  done
done
