#!/usr/bin/env bash
# Latency and delivered messages vs load: fault-free vs global vs local fault
# information ([DSTM] §7), Fig. 9 setting on 16x16 DSTM-1
# (examples/fault-fig9-16x16.toml). Prints one markdown table row per run.
# Usage: bash docs/results/fault-tolerance.sh OUTDIR  (2 runs in parallel)
set -euo pipefail
out=${1:-target/fault-tolerance}
mkdir -p "$out"
bin=target/release/wormcast
loads="0.00002 0.00004 0.00006 0.00008 0.0001 0.00012"
jobs=()
for load in $loads; do
  jobs+=("none global $load")
  for link in 0,0,+x 0,0,+y 5,9,+y; do
    for info in global local; do jobs+=("$link $info $load"); done
  done
done
run_one() {
  set -- $1
  link=$1 info=$2 load=$3
  f="$out/${link//,/_}-$info-$load.json"
  if [ "$link" = none ]; then faults='[]'; else faults="[\"$link\"]"; fi
  "$bin" run --scenario examples/fault-fig9-16x16.toml -q --json "$f" \
    --set "network.faulty_links=$faults" --set "network.fault_info=$info" \
    --set "traffic.rate=$load" || true
}
export -f run_one; export out bin
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} bash -c 'run_one "{}"'
python3 - "$out" <<'PY'
import json, sys, glob, os
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(f))
    link = r["faulty_links"][0] if r["faulty_links"] else "none"
    info = r["fault_info"] if link != "none" else "-"
    rows.append((link, info, r["offered_messages_per_node_cycle"], r))
rows.sort(key=lambda x: (x[0], x[1], x[2]))
print("| faulty link | info | offered | accepted | latency mean | unicast | multicast | p99 | delivered | diverted | re-injected | flit hops | clean | saturated |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
for link, info, off, r in rows:
    print(f"| {link} | {info} | {off:.6f} | {r['accepted_messages_per_node_cycle']:.6f} | "
          f"{r['latency']['mean']:.0f} | {r['latency_unicast']['mean']:.0f} | {r['latency_multicast']['mean']:.0f} | "
          f"{r['latency']['p99']} | {r['delivered_messages']}/{r['injected_messages']} | {r['diverted_worms']} | "
          f"{r['reinjected_messages']} | {r['flit_hops']} | {'yes' if r['lost_messages']==0 and r['duplicate_deliveries']==0 and r['misdelivered']==0 and r['corrupted_flits']==0 and r['router_errors']==0 and not r['deadlock'] else 'NO'} | "
          f"{'*' if r['saturated'] else ''} |")
PY
