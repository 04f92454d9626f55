#!/usr/bin/env bash
# scripts/slurm-sweep.sh against a real Slurm: starts
# munge, slurmctld and slurmd for a one-node cluster on localhost (Debian
# packages slurm-wlm and munge, installed when missing; needs root),
# submits a 4-shard sweep as a job array and the merge as a dependent job,
# waits, and compares the merged JSON and plot with a local unsharded run.
# Then deletes one shard and re-runs the script: only that shard may be
# re-submitted, and the merge must come out the same again.
#
#   bash scripts/slurm-test.sh [WORMCAST_BINARY]   # about 1 minute after the install
#
# Without a binary it builds the release one; scripts/test.sh passes the
# binary its tests built (the release build made this step 3 min 26 s of
# CI on the 2-core VM, docs/history/decisions-log.md "CI time, again").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for spec in slurmctld:slurm-wlm munged:munge; do
  command -v "${spec%%:*}" >/dev/null || {
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge
    break
  }
done
if [ -n "${1:-}" ]; then
  bin=$(realpath "$1")
  [ -x "$bin" ] || { echo "slurm-test.sh: $1 is not an executable" >&2; exit 2; }
else
  cargo build --release --quiet
  bin=$root/target/release/wormcast
fi

work=$(mktemp -d /tmp/wormcast-slurm.XXXXXX)
conf=$work/etc
mkdir -p "$conf" "$work/state" "$work/spool" "$work/log" "$work/munge" "$work/out"
cleanup() {
  local pid
  for pid in "$work/slurmctld.pid" "$work/slurmd.pid" "$work/munge/munged.pid"; do
    if [ -f "$pid" ]; then kill "$(cat "$pid")" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT

# munge: its own key and socket, so a host munged is left alone.
dd if=/dev/urandom bs=1 count=1024 of="$work/munge/munge.key" status=none
chmod 400 "$work/munge/munge.key"
sock=$work/munge/munge.socket
munged --key-file="$work/munge/munge.key" --socket="$sock" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed" --force

host=$(hostname -s)
# Free ports, so two runs on one machine (parallel CI jobs) do not meet.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
read -r cpus mem < <(slurmd -C | awk '/NodeName/ {for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]} print v["CPUs"], v["RealMemory"]}')
cat >"$conf/slurm.conf" <<EOF
ClusterName=wormcast-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
# Schedule at once, not every 3 s (the default batch_sched_delay).
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && break
  sleep 1
done
sinfo -h -o "%P %T %N" | grep -q idle || { echo "slurm did not come up" >&2; tail -20 "$work"/log/*.log >&2; exit 1; }
echo "== slurm up: $(sinfo -h -o '%P %T %N %c CPUs')"

# shellcheck disable=SC2054 # the commas belong to --schemes
sweep=(--loads 0.001..0.003/0.001 --schemes dstm1,dstm2 --set run.cycles=3000 --set run.warmup=300)
wait_for() { # job id
  for _ in $(seq 600); do
    state=$(sacct -h -X -n -j "$1" -o State 2>/dev/null | head -1 | tr -d ' ' || true)
    squeue -h -j "$1" 2>/dev/null | grep -q . || break
    sleep 1
  done
}
check() { # the merged files against the local run
  [ -s "$work/out/sweep.json" ] || { echo "no merged JSON" >&2; cat "$work/out"/*.log >&2; exit 1; }
  cmp "$work/local.svg" "$work/out/sweep.svg"
  python3 - "$work/local.json" "$work/out/sweep.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for v in (a, b):
    for p in v["points"]:
        p.pop("wall_seconds")
assert a == b, "merged JSON differs from the local sweep"
assert len(a["points"]) == 6
PY
}

"$bin" sweep "${sweep[@]}" --quiet --json "$work/local.json" --plot "$work/local.svg" >/dev/null
t0=$(date +%s)
merge=$(WORMCAST=$bin bash scripts/slurm-sweep.sh "$work/out" 4 -- "${sweep[@]}")
wait_for "$merge"
check
echo "== job array of 4 shards and the merge: equal to the local sweep ($(( $(date +%s) - t0 )) s)"

# Resume: one shard lost; only it is re-submitted.
rm "$work/out/shard-2.json" "$work/out/sweep.json"
merge=$(WORMCAST=$bin bash scripts/slurm-sweep.sh "$work/out" 4 -- "${sweep[@]}" 2>"$work/resume.txt")
cat "$work/resume.txt"
grep -q "submitting shards 2 (1 of 4)" "$work/resume.txt" || { echo "resume did not submit shard 2 alone" >&2; exit 1; }
wait_for "$merge"
check
echo "== resume: only shard 2 re-run; merge equal again"
echo "slurm test ok"
