#!/usr/bin/env bash
# The Python package's checks (docs/python.md), called by scripts/test.sh:
# builds and installs `./python` into a virtual environment with pip, as a
# user would, then mypy --strict, pytest (every function, the error paths,
# Ctrl-C, bit-identity with the command line) and the docs' Fig. 9 example,
# whose points must equal `wormcast sweep`'s for the same scenario and seed.
#
#   bash scripts/python_test.sh [WORMCAST_BIN]
#
# The extension is built with cargo's dev profile here (dependencies
# optimised, the simulator at opt-level 1): it reuses what the rest of the
# suite built, where pip's default release build would compile every crate
# again. Users get the release build (README, docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/wormcast}
venv="$PWD/target/py"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# Test tools only; the package itself needs none of them (pandas is an
# option of its DataFrame methods).
"$venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.9,<2" pytest mypy pandas pandas-stubs matplotlib
MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./python
# Outside the source tree, so the import is the installed package.
(cd target && "$venv/bin/python" -c "import wormcast; print('wormcast', wormcast.__version__, 'from', wormcast.__file__)")
(cd python && "$venv/bin/mypy" --strict wormcast tests examples)
WORMCAST_BIN="$PWD/$bin" "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests

# The docs example, short form, against the command line.
out=target/python-example
rm -rf "$out" && mkdir -p "$out"
"$venv/bin/python" python/examples/fig9.py --quick --json "$out/py.json" --out "$out/fig9.png"
"$bin" sweep -q --scenario examples/fig9.toml --loads 0.00002,0.00006,0.0001 --schemes dstm1,dstm2,spam \
  --set run.warmup=5000 --set run.cycles=40000 --set run.drain_cycles=40000 --json "$out/cli.json" >/dev/null
"$venv/bin/python" - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
strip = lambda ps: [{k: v for k, v in p.items() if k != "wall_seconds"} for p in ps]
py = strip(json.loads((out / "py.json").read_text()))
cli = strip(json.loads((out / "cli.json").read_text())["points"])
assert len(py) == 9 and py == cli, "the docs example differs from wormcast sweep"
assert (out / "fig9.png").stat().st_size > 10_000, "the example's plot is missing or empty"
print(f"docs example: {len(py)} points equal to wormcast sweep's; plot {(out / 'fig9.png').stat().st_size} B")
PY
