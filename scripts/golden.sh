#!/usr/bin/env bash
# Golden outputs: every case of testbench/golden/cases.toml must
# reproduce the figures and delivery-log hash stored in
# testbench/golden/expected/.
#
#   bash scripts/golden.sh           # check; a failure names case, figure, old, new
#   bash scripts/golden.sh --bless   # rewrite the expected files, then show the diff
#
# The same test runs inside `cargo test --workspace` (scripts/test.sh, CI).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") cargo test -q -p wormcast-testbench --test golden -- --nocapture ;;
  --bless)
    WORMCAST_GOLDEN_BLESS=1 cargo test -q -p wormcast-testbench --test golden golden_outputs -- --nocapture
    git add -N testbench/golden/expected
    echo "== changes to review:"
    git --no-pager diff --stat -- testbench/golden/expected
    git --no-pager diff -U0 -- testbench/golden/expected ;;
  *) echo "usage: $0 [--bless]" >&2; exit 2 ;;
esac
