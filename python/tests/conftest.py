"""Shared pieces of the Python tests: the command line to compare with.

``WORMCAST_BIN`` names the ``wormcast`` binary built from the same tree
(scripts/test.sh passes ``target/debug/wormcast``); without it the tests
look for that path beside this folder.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler for the test, whatever the test runner
    inherited. A shell that starts a job in the background without job
    control starts it with SIGINT ignored, and Python then installs no
    handler: ``_thread.interrupt_main`` does nothing and a test that waits
    for its Ctrl-C would run its long scenario to the end."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def cli_bin() -> str:
    b = os.environ.get("WORMCAST_BIN", str(ROOT / "target" / "debug" / "wormcast"))
    if not os.access(b, os.X_OK):
        raise RuntimeError(f"no wormcast binary at {b}: build it, or set WORMCAST_BIN")
    return b


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs the command line; `check` wants status 0 or 1 (a verdict)."""
    p = subprocess.run([cli_bin(), *args], capture_output=True, text=True, cwd=ROOT)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"wormcast {' '.join(args)}: status {p.returncode}: {p.stderr}")
    return p


def cli_json(tmp: pathlib.Path, *args: str) -> Any:
    out = tmp / "out.json"
    cli(*args, "--json", str(out))
    d = json.loads(out.read_text())
    # The command line's result files say what produced them (version,
    # scenario file, overrides: `provenance`); a report made in Python has
    # no command line, so the comparisons leave it out.
    if isinstance(d, dict):
        d.pop("provenance", None)
    return d


#: Report fields that time the host, not the model.
TIMING = {"wall_seconds", "router_cycles_per_second", "analysis_seconds"}


def untimed(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: untimed(v) for k, v in d.items() if k not in TIMING}
    if isinstance(d, list):
        return [untimed(v) for v in d]
    return d


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT
