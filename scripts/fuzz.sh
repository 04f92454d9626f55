#!/usr/bin/env bash
# Longer fuzz runs of the harnesses that `cargo test` runs briefly
# (sim/tests/fuzz.rs: scenario parser and validator, one router, a small
# fabric with raw flits; src/fuzz_cli.rs: argv parsing of every subcommand;
# tests/cli_fuzz_runs.rs: subcommands with random flag subsets, run).
#
#   WORMCAST_FUZZ_CASES   cases per harness per round (default 20000)
#   WORMCAST_FUZZ_RUN_CASES cases of the process-level harness per round
#                         (default 200: each case is a process, up to seconds)
#   WORMCAST_FUZZ_SECONDS keep starting rounds until this many seconds have
#                         passed (default 0: one round)
#
# Each round draws fresh random inputs (proptest seeds every run anew); a
# failure stops the script with proptest's minimal failing input, which is
# also saved under sim/tests/*.proptest-regressions for the short CI run.
# Prints the rounds, cases and wall time at the end (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export WORMCAST_FUZZ_CASES="${WORMCAST_FUZZ_CASES:-20000}"
export WORMCAST_FUZZ_RUN_CASES="${WORMCAST_FUZZ_RUN_CASES:-200}"
budget="${WORMCAST_FUZZ_SECONDS:-0}"
cargo test -q -p wormcast-sim --test fuzz --no-run
cargo test -q -p wormcast --bin wormcast --no-run
cargo test -q -p wormcast --test cli_fuzz_runs --no-run
start=$(date +%s)
rounds=0
while :; do
  cargo test -q -p wormcast-sim --test fuzz
  cargo test -q -p wormcast --bin wormcast fuzz
  cargo test -q -p wormcast --test cli_fuzz_runs
  rounds=$((rounds + 1))
  now=$(date +%s)
  echo "round $rounds done: $((now - start)) s"
  [ $((now - start)) -ge "$budget" ] && break
done
# 7 sim harnesses + 1 argv harness, each WORMCAST_FUZZ_CASES cases a round,
# and the process-level harness, WORMCAST_FUZZ_RUN_CASES a round.
echo "fuzz: $rounds rounds x 8 harnesses x $WORMCAST_FUZZ_CASES cases = $((rounds * 8 * WORMCAST_FUZZ_CASES)) cases, plus $((rounds * WORMCAST_FUZZ_RUN_CASES)) command runs, in $(( $(date +%s) - start )) s"
