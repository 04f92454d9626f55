#!/usr/bin/env bash
# A wormcast sweep as Slurm job arrays, then one dependent merge job
# (README "Running sweeps on a cluster", docs/usage.md).
#
#   bash scripts/slurm-sweep.sh OUTDIR N -- SWEEP_ARGS...
#
# e.g. (examples/fig9.toml's useful loads are 1e-5 to 1.4e-4; above them
# every point saturates)
#   bash scripts/slurm-sweep.sh runs/fig9 16 -- --scenario examples/fig9.toml \
#        --loads 0.00001,0.00002,0.00004,0.00006,0.00008,0.0001,0.00012,0.00014 \
#        --schemes dstm1,dstm2,spam
#
# Shard I (0 <= I < N) runs `wormcast sweep SWEEP_ARGS --shard I/N --json
# OUTDIR/shard-I.json` as one array task; the merge job (afterok on every
# shard task, killed by Slurm if a shard fails) writes OUTDIR/sweep.json
# and OUTDIR/sweep.svg, exactly what one unsharded `wormcast sweep
# SWEEP_ARGS --json --plot` writes.
#
# Assumptions: OUTDIR, the binary and the scenario file lie on a
# filesystem every node mounts at the same path (the jobs use the absolute
# paths seen here). A shard uses every core it sees unless it gets
# `--threads`: each shard gets `--threads $SLURM_CPUS_PER_TASK` when the
# job has --cpus-per-task (e.g. SBATCH_FLAGS=--cpus-per-task=8), unless
# SWEEP_ARGS already hold --threads.
#
# Resuming: run the same command again. A shard whose JSON is complete
# (`"complete": true`) is not re-run, nor is one still pending or running
# in the queue (squeue: this user's jobs named for OUTDIR); only the other
# indices are submitted. A merge job of an earlier run that has not
# started is cancelled and replaced by one that waits for every queued
# shard. With every shard complete it submits the merge alone.
#
# Logs: every attempt keeps its own, OUTDIR/logs/array-A_T.log (Slurm
# array job A, task T) and OUTDIR/logs/merge-J.log; OUTDIR/shard-I.log
# and OUTDIR/merge.log link to the latest.
#
# Large sweeps: the indices go to sbatch as ranges (`--array=0-99,120-199`).
# An array index must stay below the cluster's MaxArraySize (`scontrol
# show config`, else 1001), so shard I runs in the array for the indices
# from B = I - I mod MaxArraySize on, as task I - B; a sweep of more shards
# is several arrays (jobs wormcast-shard.KEY.B), and the merge depends on
# all of them.
#
# Environment: WORMCAST (the binary, default: `wormcast` on PATH, else
# target/release/wormcast), SBATCH_FLAGS (extra sbatch options for every
# job, e.g. "--partition=short --time=02:00:00 --cpus-per-task=4"),
# THROTTLE=K (at most K tasks of each array run at once: `--array=...%K`),
# MAX_ARRAY_SIZE (split arrays at this size when smaller than the
# cluster's), DRY_RUN=1 (print the sbatch and scancel commands, with the
# job scripts, instead of running them; the queue is still read when Slurm
# answers).
set -euo pipefail
usage() { echo "usage: $0 OUTDIR N -- SWEEP_ARGS..." >&2; exit 2; }
[ $# -ge 3 ] || usage
out=$1; n=$2; shift 2
[ "$1" = "--" ] || usage
shift
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "N = '$n': a number of shards >= 1" >&2; exit 2; }
dry=${DRY_RUN:-0}
throttle=${THROTTLE:-}
[ -z "$throttle" ] || [[ "$throttle" =~ ^[1-9][0-9]*$ ]] ||
  { echo "THROTTLE = '$throttle': a number of tasks >= 1" >&2; exit 2; }
bin=${WORMCAST:-$(command -v wormcast || echo "$PWD/target/release/wormcast")}
[ -x "$bin" ] || { echo "wormcast binary '$bin' not found: build it (cargo build --release) or set WORMCAST" >&2; exit 2; }
bin=$(readlink -f "$bin")
case $out in *$'\n'*) echo "OUTDIR must not contain a newline" >&2; exit 2 ;; esac
mkdir -p "$out/logs"
out=$(readlink -f "$out")
# Slurm expands % in --output paths: %% is a literal %.
out_pat=${out//%/%%}

# The jobs of this sweep are named after a checksum of OUTDIR, so a re-run
# finds them in the queue and other sweeps' jobs are left alone.
key=$(printf '%s' "$out" | cksum | cut -d' ' -f1)
shard_name=wormcast-shard.$key
merge_name=wormcast-merge.$key

# Each shard gets --threads from its allocation unless the user set it.
threads=1
for a in "$@"; do
  case $a in --threads | --threads=*) threads=0 ;; esac
done

max=$(scontrol show config 2>/dev/null | awk -F= '/^MaxArraySize/ {gsub(/ /, "", $2); print $2}' || true)
[[ "${max:-}" =~ ^[0-9]+$ ]] || max=1001
[ "$max" -ge 1 ] || { echo "MaxArraySize = 0: job arrays are disabled on this cluster" >&2; exit 2; }
if [ -n "${MAX_ARRAY_SIZE:-}" ]; then
  [[ "$MAX_ARRAY_SIZE" =~ ^[1-9][0-9]*$ ]] || { echo "MAX_ARRAY_SIZE = '$MAX_ARRAY_SIZE': a number >= 1" >&2; exit 2; }
  [ "$MAX_ARRAY_SIZE" -lt "$max" ] && max=$MAX_ARRAY_SIZE
fi

# The queue: this sweep's shard tasks still pending or running (as
# ARRAYJOB_TASK, by shard index) and its merge jobs.
declare -A queued=()
merges=()
running_merge=""
user=$(id -un)
if command -v squeue >/dev/null; then
  if ! q=$(squeue -h -r -u "$user" -o '%j|%F|%K|%i|%T' 2>&1); then
    if [ "$dry" = 1 ]; then
      echo "squeue failed ($q); the dry run assumes an empty queue" >&2; q=""
    else
      echo "squeue failed: $q" >&2; exit 1
    fi
  fi
  while IFS='|' read -r name array task id state; do
    case $name in
      "$shard_name".*)
        base=${name##*.}
        [[ "$base" =~ ^[0-9]+$ && "$task" =~ ^[0-9]+$ ]] || continue
        queued[$((base + task))]=${array}_$task ;;
      "$merge_name")
        case $state in
          RUNNING | COMPLETING | CONFIGURING) running_merge=$id ;;
          *) merges+=("$id") ;;
        esac ;;
    esac
  done <<<"$q"
  # Earlier versions of this script named every merge job wormcast-merge
  # and let it pend for ever after a failed shard: one writing this
  # folder's merge.log is this sweep's.
  while read -r id; do
    [ -n "$id" ] || continue
    scontrol show job "$id" 2>/dev/null |
      awk -v p="StdOut=$out/merge.log" '{sub(/^ +/, "")} $0 == p {f = 1} END {exit !f}' &&
      merges+=("$id")
  done < <(squeue -h -u "$user" -n wormcast-merge -t PENDING -o %i 2>/dev/null || true)
elif [ "$dry" = 1 ]; then
  echo "no squeue: the dry run assumes an empty queue" >&2
else
  echo "squeue not found: is this a Slurm login node?" >&2; exit 1
fi

missing=()
deps=()
for ((i = 0; i < n; i++)); do
  f="$out/shard-$i.json"
  if [ -s "$f" ] && grep -q '"complete": true' "$f"; then
    continue
  elif [ -n "${queued[$i]:-}" ]; then
    deps+=("${queued[$i]}")
  else
    missing+=("$i")
  fi
done
[ ${#deps[@]} -eq 0 ] || echo "${#deps[@]} shards still queued or running; not submitted again" >&2

# A word quoted for a shell only when it needs it (for the dry run's echo).
shq() {
  local w out=""
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_./:=,%+@-]+$ ]]; then out+=" $w"; else out+=" $(printf '%q' "$w")"; fi
  done
  echo "${out# }"
}
dry_id=0
job=""
sbatch_cmd() { # sbatch ARGS, the job script on stdin; sets job (the id)
  if [ "$dry" = 1 ]; then
    dry_id=$((dry_id + 1))
    # shellcheck disable=SC2086 # SBATCH_FLAGS is a list of options
    echo "sbatch $(shq --parsable ${SBATCH_FLAGS:-} "$@") <<'EOF'" >&2
    cat >&2
    echo "EOF" >&2
    job=dry-run-$dry_id
  else
    # shellcheck disable=SC2086
    job=$(sbatch --parsable ${SBATCH_FLAGS:-} "$@")
    job=${job%%;*}
  fi
}

if [ -n "${merges[*]:-}" ]; then
  echo "cancelling the merge job of an earlier run: ${merges[*]}" >&2
  if [ "$dry" = 1 ]; then echo "scancel ${merges[*]}" >&2; else scancel "${merges[@]}"; fi
fi
if [ ${#missing[@]} -eq 0 ] && [ ${#deps[@]} -eq 0 ] && [ -n "$running_merge" ]; then
  echo "all $n shards complete; merge job $running_merge is running" >&2
  echo "$running_merge"
  exit 0
fi

# Consecutive numbers as ranges, one per line: 0 1 2 5 -> 0-2, 5.
ranges() {
  local lo=-1 hi=-1 i
  for i in "$@"; do
    if [ "$lo" -ge 0 ] && [ "$i" -eq $((hi + 1)) ]; then hi=$i; continue; fi
    [ "$lo" -lt 0 ] || { [ "$hi" -gt "$lo" ] && echo "$lo-$hi" || echo "$lo"; }
    lo=$i; hi=$i
  done
  [ "$lo" -lt 0 ] || { [ "$hi" -gt "$lo" ] && echo "$lo-$hi" || echo "$lo"; }
}

# The job script of the shards from BASE on (task T is shard BASE + T).
shard_script() { # BASE SWEEP_ARGS...
  local base=$1 sweep_args threads_line=""
  shift
  sweep_args=$(printf ' %q' "$@")
  # shellcheck disable=SC2016 # expanded by the job, not here
  [ "$threads" = 1 ] &&
    threads_line='[ -n "${SLURM_CPUS_PER_TASK:-}" ] && threads=(--threads "$SLURM_CPUS_PER_TASK")'
  cat <<EOF
#!/usr/bin/env bash
out=$(printf '%q' "$out")
bin=$(printf '%q' "$bin")
i=\$(($base + SLURM_ARRAY_TASK_ID))
ln -sfn "logs/array-\${SLURM_ARRAY_JOB_ID}_\$SLURM_ARRAY_TASK_ID.log" "\$out/shard-\$i.log"
echo "wormcast shard \$i/$n: array job \$SLURM_ARRAY_JOB_ID task \$SLURM_ARRAY_TASK_ID on \$(hostname) at \$(date -u +%FT%TZ)"
threads=()
$threads_line
"\$bin" sweep$sweep_args --quiet \${threads[@]+"\${threads[@]}"} --shard "\$i/$n" --json "\$out/shard-\$i.json.tmp" &&
  mv "\$out/shard-\$i.json.tmp" "\$out/shard-\$i.json"
EOF
}

# Submits one array: tasks RANGES (a comma list) run the shards BASE + T.
arrays=()
submit() { # BASE RANGES SWEEP_ARGS...
  local base=$1 tasks=$2 spec=$2
  shift 2
  [ -z "$throttle" ] || spec+="%$throttle"
  sbatch_cmd --job-name="$shard_name.$base" --array="$spec" \
    --output="$out_pat/logs/array-%A_%a.log" < <(shard_script "$base" "$@")
  arrays+=("$job")
  echo "array job $job: tasks $tasks, shard = $base + task" >&2
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "submitting shards $(ranges "${missing[@]}" | paste -sd,) (${#missing[@]} of $n)" >&2
  # An array covers the shards [base, base + max), as tasks 0 to max - 1,
  # and its range list stays under 1000 characters (sbatch refuses a far
  # longer --array).
  chunk=()
  for ((k = 0; k <= ${#missing[@]}; k++)); do
    i=${missing[k]:--1}
    if [ ${#chunk[@]} -gt 0 ] && { [ "$i" -lt 0 ] || [ $((i - i % max)) -ne "$base" ]; }; then
      spec=""
      while read -r r; do
        if [ -n "$spec" ] && [ $((${#spec} + ${#r})) -ge 1000 ]; then
          submit "$base" "$spec" "$@"; spec=""
        fi
        spec+=${spec:+,}$r
      done < <(ranges "${chunk[@]}")
      submit "$base" "$spec" "$@"
      chunk=()
    fi
    [ "$i" -ge 0 ] || break
    base=$((i - i % max))
    chunk+=($((i - base)))
  done
  deps+=("${arrays[@]}")
else
  echo "all $n shards complete or queued; submitting the merge" >&2
fi

dep=()
if [ ${#deps[@]} -gt 0 ]; then
  dep=(--dependency="afterok:$(IFS=:; echo "${deps[*]}")" --kill-on-invalid-dep=yes)
fi
sbatch_cmd --job-name="$merge_name" "${dep[@]}" --output="$out_pat/logs/merge-%j.log" <<EOF
#!/usr/bin/env bash
out=$(printf '%q' "$out")
bin=$(printf '%q' "$bin")
ln -sfn "logs/merge-\$SLURM_JOB_ID.log" "\$out/merge.log"
shards=()
for ((i = 0; i < $n; i++)); do shards+=("\$out/shard-\$i.json"); done
"\$bin" sweep-merge "\${shards[@]}" --json "\$out/sweep.json" --plot "\$out/sweep.svg"
EOF
echo "merge job $job" >&2
echo "$job"
