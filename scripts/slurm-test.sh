#!/usr/bin/env bash
# scripts/slurm-sweep.sh against a real Slurm: starts munge, slurmctld
# and slurmd for a one-node cluster on localhost (Debian packages slurm-wlm
# and munge, installed when missing; needs root), then
#  * submits a 4-shard sweep as a job array and the merge as a dependent
#    job, and compares the merged JSON and plot with a local unsharded run;
#    each shard got --threads from --cpus-per-task;
#  * resume: deletes one shard and re-runs the script: only that shard is
#    re-submitted, and the merge comes out the same again;
#  * a failing shard: its merge is cancelled (not left pending for ever),
#    a re-run cancels a merge left pending by earlier versions of the
#    script and completes the sweep, and both attempts' logs are kept;
#  * a re-run while a shard is still queued (held) submits no second copy
#    of it and replaces the earlier merge job;
#  * an output folder with a space and a quote in its name, split into two
#    arrays (MAX_ARRAY_SIZE=3) with a throttle, completes;
#  * a dry run of 1 500 shards: ranges, arrays within MaxArraySize, one
#    merge depending on every array.
#
#   bash scripts/slurm-test.sh [WORMCAST_BINARY]   # about 20 s after the install
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
# The binary behind a wrapper that logs its arguments and, while
# $work/fail-shard-1 exists, fails shard 1 of 4 (a crashed shard).
cat >"$work/wormcast" <<EOF
#!/bin/sh
echo "wormcast args: \$*"
case " \$* " in
  *" --shard 1/4 "*) if [ -e "$work/fail-shard-1" ]; then echo "shard 1 fails on purpose" >&2; exit 3; fi ;;
esac
exec "$bin" "\$@"
EOF
chmod +x "$work/wormcast"
export WORMCAST=$work/wormcast
fail() { echo "slurm-test.sh: $*" >&2; exit 1; }
wait_for() { # job id: until it has left the queue
  for _ in $(seq 600); do
    squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
    sleep 0.5
  done
  fail "job $1 still queued after 5 min"
}
job_state() { scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
check() { # OUTDIR: the merged files against the local run
  [ -s "$1/sweep.json" ] || { cat "$1"/logs/*.log >&2; fail "no merged JSON in $1"; }
  cmp "$work/local.svg" "$1/sweep.svg"
  python3 - "$work/local.json" "$1/sweep.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for v in (a, b):
    for p in v["points"]:
        p.pop("wall_seconds")
assert a == b, "merged JSON differs from the local sweep"
assert len(a["points"]) == 6
PY
}
run() { # OUTDIR [ENV=VALUE...]: the script (4 shards); its stderr in $work/run.txt
  local o=$1
  shift
  env "$@" bash scripts/slurm-sweep.sh "$o" 4 -- "${sweep[@]}" 2>"$work/run.txt" ||
    { cat "$work/run.txt" >&2; fail "slurm-sweep.sh failed"; }
  sed 's/^/    /' "$work/run.txt" >&2
}
shard_tasks() { # the shard tasks in the queue for the merge job $1's folder
  squeue -h -r -o '%j %i' | awk -v k="$(squeue -h -j "$1" -o %j | sed 's/.*\.//')" '$1 ~ "^wormcast-shard\\." k "\\." {print $2}'
}
out=$work/out

"$bin" sweep "${sweep[@]}" --quiet --json "$work/local.json" --plot "$work/local.svg" >/dev/null
t0=$(date +%s)
t=$t0
lap() { # the seconds since the last lap, in $el
  local now
  now=$(date +%s)
  el="$((now - t)) s"
  t=$now
}
merge=$(run "$out" SBATCH_FLAGS=--cpus-per-task=1)
wait_for "$merge"
check "$out"
grep -q -- "--threads 1 --shard 0/4" "$out/shard-0.log" || fail "shard 0 did not get --threads 1 from --cpus-per-task=1"
lap
echo "== job array of 4 shards and the merge: equal to the local sweep; --threads from the allocation ($el)"

# Resume: one shard lost; only it is re-submitted.
rm "$out/shard-2.json" "$out/sweep.json"
merge=$(run "$out")
grep -q "submitting shards 2 (1 of 4)" "$work/run.txt" || fail "resume did not submit shard 2 alone"
wait_for "$merge"
check "$out"
lap
echo "== resume: only shard 2 re-run; merge equal again ($el)"

# A failing shard: the merge is cancelled, not left pending; a re-run
# completes, and the failed attempt's log is still there.
rm "$out/shard-1.json" "$out/sweep.json"
touch "$work/fail-shard-1"
merge=$(run "$out")
wait_for "$merge"
[ "$(job_state "$merge")" = CANCELLED ] || fail "merge $merge after a failed shard: $(job_state "$merge"), not CANCELLED"
[ ! -e "$out/sweep.json" ] || fail "a merge ran after a failed shard"
failed_log=$(readlink "$out/shard-1.log")
grep -q "shard 1 fails on purpose" "$out/$failed_log" || fail "no failure in shard 1's log $failed_log"
# A merge as earlier versions of the script submitted it (no
# --kill-on-invalid-dep) pends for ever after the failure; the re-run
# cancels it.
failed_array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' "$work/run.txt")
stale=$(sbatch --parsable --job-name=wormcast-merge --dependency="afterok:$failed_array" \
  --output="$out/merge.log" --wrap true)
rm "$work/fail-shard-1"
merge=$(run "$out")
grep -q "cancelling the merge job of an earlier run: $stale" "$work/run.txt" || fail "the stale merge $stale was left pending"
wait_for "$merge"
check "$out"
[ "$(job_state "$stale")" = CANCELLED ] || fail "stale merge $stale: $(job_state "$stale")"
[ "$(readlink "$out/shard-1.log")" != "$failed_log" ] || fail "shard-1.log still names the failed attempt"
grep -q "shard 1 fails on purpose" "$out/$failed_log" || fail "the re-run overwrote the failed attempt's log"
[ "$(find "$out/logs" -name 'array-*_*.log' | wc -l)" -eq 7 ] || { ls "$out/logs" >&2; fail "expected 7 shard logs (4 + 1 + 1 + 1)"; }
lap
echo "== failed shard: its merge cancelled, not left pending; a re-run cancels an old-style stale merge and completes; both attempts' logs kept ($el)"

# A re-run while a shard is still queued: not submitted again, and the
# earlier merge job gives way to one that waits for the queued shard.
rm "$out/shard-3.json" "$out/sweep.json"
old=$(run "$out" SBATCH_FLAGS=--hold)
held=$(shard_tasks "$old")
[ "$(echo "$held" | wc -w)" -eq 1 ] || fail "expected one held shard task, got: $held"
merge=$(run "$out")
grep -q "1 shards still queued or running; not submitted again" "$work/run.txt" || fail "the re-run did not see the queued shard"
! grep -q "submitting shards" "$work/run.txt" || fail "the re-run submitted a queued shard again"
grep -q "cancelling the merge job of an earlier run: $old" "$work/run.txt" || fail "the earlier merge $old was not replaced"
[ "$(shard_tasks "$merge" | wc -w)" -eq 1 ] || fail "shard 3 queued twice: $(shard_tasks "$merge")"
scontrol release "${held%%_*}"
wait_for "$merge"
check "$out"
[ "$(job_state "$old")" = CANCELLED ] || fail "old merge $old: $(job_state "$old")"
lap
echo "== re-run while shard 3 was held: no second copy, merge replaced; equal after the release ($el)"

# A folder whose name has a space, a quote and a %, split into two arrays
# (at most 3 tasks each) with at most two tasks of each running at once.
odd="$work/out dir 'x' 100%"
merge=$(run "$odd" MAX_ARRAY_SIZE=3 THROTTLE=2)
[ "$(grep -c '^array job' "$work/run.txt")" -eq 2 ] || fail "MAX_ARRAY_SIZE=3 did not split 4 shards into 2 arrays"
wait_for "$merge"
check "$odd"
lap
echo "== output folder with a space, a quote and a %, as two throttled arrays: equal to the local sweep ($el)"

# A dry run of 1 500 shards, 5, 6 and 700 complete: ranges, every array
# within MaxArraySize (read from the cluster), one merge after all.
dry=$work/dry
mkdir -p "$dry"
for i in 5 6 700; do echo '{"complete": true}' >"$dry/shard-$i.json"; done
DRY_RUN=1 THROTTLE=50 bash scripts/slurm-sweep.sh "$dry" 1500 -- "${sweep[@]}" >"$work/dry.id" 2>"$work/dry.txt" ||
  { cat "$work/dry.txt" >&2; fail "the dry run failed"; }
maxsize=$(scontrol show config | awk -F= '/^MaxArraySize/ {gsub(/ /, "", $2); print $2}')
python3 - "$work/dry.txt" "$maxsize" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
size = int(sys.argv[2])
cmds = [l for l in text.splitlines() if l.startswith("sbatch ")]
arrays = [c for c in cmds if "--array=" in c]
merges = [c for c in cmds if "--job-name=wormcast-merge." in c]
assert len(arrays) == 2 and len(merges) == 1, cmds
ids = re.findall(r"^array job (\S+):", text, re.M)
assert len(ids) == 2, ids
shards = set()
for c in arrays:
    spec = re.search(r"--array=(\S+)", c).group(1)
    assert spec.endswith("%50"), spec
    base = int(re.search(r"--job-name=wormcast-shard\.\d+\.(\d+)", c).group(1))
    for r in spec[: -len("%50")].split(","):
        lo, _, hi = r.partition("-")
        lo, hi = int(lo), int(hi or lo)
        assert 0 <= lo <= hi < size, (r, size)
        shards.update(range(base + lo, base + hi + 1))
assert shards == set(range(1500)) - {5, 6, 700}, "shards submitted"
assert "--array=0-4,7-699,701-1000%50" in arrays[0], arrays[0][:200]
dep = re.search(r"--dependency=afterok:(\S+)", merges[0]).group(1)
assert dep.split(":") == ids, (dep, ids)
assert "--kill-on-invalid-dep=yes" in merges[0]
PY
[ -z "$(squeue -h)" ] || fail "the dry run submitted jobs: $(squeue -h)"
lap
echo "== dry run of 1500 shards: ranges, 2 arrays within MaxArraySize $maxsize, one merge after both ($el)"
echo "slurm test ok ($(($(date +%s) - t0)) s of jobs)"
