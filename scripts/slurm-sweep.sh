#!/usr/bin/env bash
# A wormcast sweep as a Slurm job array, then a dependent merge job
# (README "Running sweeps on a cluster").
#
#   bash scripts/slurm-sweep.sh OUTDIR N -- SWEEP_ARGS...
#
# e.g.
#   bash scripts/slurm-sweep.sh runs/fig9 16 -- --scenario examples/fig9.toml \
#        --loads 0.0002..0.002/0.0002 --schemes dstm1,dstm2,spam
#
# Shard I (0 <= I < N) runs `wormcast sweep SWEEP_ARGS --shard I/N --json
# OUTDIR/shard-I.json` as array task I; the merge job (afterok on the
# array) writes OUTDIR/sweep.json and OUTDIR/sweep.svg, exactly what one
# unsharded `wormcast sweep SWEEP_ARGS --json --plot` writes.
#
# Resuming: run the same command again. A shard whose JSON is complete
# (`"complete": true`) is not re-run; only the missing or failed indices
# are submitted (`--array=3,7`), and the merge waits for them. With every
# shard complete it submits the merge alone.
#
# Environment: WORMCAST (the binary, default: `wormcast` on PATH, else
# target/release/wormcast), SBATCH_FLAGS (extra sbatch options, e.g.
# "--partition=short --time=02:00:00"), DRY_RUN=1 (print the sbatch
# commands instead of running them).
set -euo pipefail
usage() { echo "usage: $0 OUTDIR N -- SWEEP_ARGS..." >&2; exit 2; }
[ $# -ge 3 ] || usage
out=$1; n=$2; shift 2
[ "$1" = "--" ] || usage
shift
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "N = '$n': a number of shards >= 1" >&2; exit 2; }
bin=${WORMCAST:-$(command -v wormcast || echo "$PWD/target/release/wormcast")}
[ -x "$bin" ] || { echo "wormcast binary '$bin' not found: build it (cargo build --release) or set WORMCAST" >&2; exit 2; }
bin=$(readlink -f "$bin")
mkdir -p "$out"
out=$(readlink -f "$out")

# The sweep's arguments, quoted for the job scripts.
args=$(printf ' %q' "$@")

missing=()
for ((i = 0; i < n; i++)); do
  f="$out/shard-$i.json"
  if ! { [ -s "$f" ] && grep -q '"complete": true' "$f"; }; then
    missing+=("$i")
  fi
done

sbatch_cmd() {
  if [ "${DRY_RUN:-0}" = 1 ]; then
    echo "sbatch $*" >&2
    echo 1000
  else
    sbatch --parsable ${SBATCH_FLAGS:-} "$@"
  fi
}

dep=""
if [ ${#missing[@]} -gt 0 ]; then
  list=$(IFS=,; echo "${missing[*]}")
  echo "submitting shards $list of $n" >&2
  # A failed or interrupted shard leaves no complete JSON; the merge's
  # afterok dependency then never fires, and re-running this script
  # re-submits that shard alone.
  job=$(sbatch_cmd --job-name=wormcast-sweep --array="$list" \
    --output="$out/shard-%a.log" \
    --wrap "$bin sweep$args --quiet --shard \$SLURM_ARRAY_TASK_ID/$n --json $out/shard-\$SLURM_ARRAY_TASK_ID.json.tmp && mv $out/shard-\$SLURM_ARRAY_TASK_ID.json.tmp $out/shard-\$SLURM_ARRAY_TASK_ID.json")
  job=${job%%;*}
  dep="--dependency=afterok:$job"
  echo "array job $job" >&2
else
  echo "all $n shards complete; merging" >&2
fi
shards=""
for ((i = 0; i < n; i++)); do shards+=" $out/shard-$i.json"; done
merge=$(sbatch_cmd --job-name=wormcast-merge $dep --output="$out/merge.log" \
  --wrap "$bin sweep-merge$shards --json $out/sweep.json --plot $out/sweep.svg")
echo "merge job ${merge%%;*}" >&2
echo "${merge%%;*}"
