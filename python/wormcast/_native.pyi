"""Types of the Rust extension behind ``wormcast`` (python/src/lib.rs).

Scenarios travel as TOML text plus ``--set`` overrides; results come back
as the command line's JSON. Use the ``wormcast`` module, not these.
"""

from typing import Any, Callable, Optional

__version__: str

class ScenarioError(ValueError):
    """A bad scenario, key, value or option: the message names the key,
    the value and what is allowed, as the command line's does."""

class InternalError(RuntimeError):
    """A bug in wormcast (a Rust panic), never a bad input."""

def scenario(text: str, sets: list[str], origin: str) -> tuple[str, str]:
    """The validated effective scenario as (TOML, JSON)."""

def read_scenario(path: str) -> str:
    """A scenario file's text, refused past the command line's size cap."""

def toml_literal(json: str) -> str:
    """A JSON value as a TOML literal for a ``--set``."""

def toml_document(json: str) -> str:
    """A JSON object of sections as TOML text."""

def run(
    text: str,
    sets: list[str],
    origin: str,
    bar: bool,
    callback: Optional[Callable[[int, int], Any]] = None,
    messages: bool = False,
) -> tuple[str, Optional[str], bool]:
    """(report JSON, per-message records JSON, interrupted)."""

def parse_schemes(s: str) -> list[str]:
    """``--schemes`` of the command line: a comma list of names."""

def parse_loads(s: str) -> list[float]:
    """``--loads`` of the command line: ``A..B/STEP`` or a comma list."""

def sweep(
    text: str,
    sets: list[str],
    origin: str,
    loads: list[float],
    schemes: list[str],
    threads: int,
    bar: bool,
    callback: Optional[Callable[[int, int], Any]] = None,
) -> tuple[str, bool]:
    """(points JSON, complete)."""

def verify(
    text: str, sets: list[str], origin: str, cycles: int, replay_trials: int
) -> tuple[str, str, bool]:
    """(verdict JSON, the command line's text, deadlock-free)."""

def command(argv: list[str]) -> tuple[int, str]:
    """``wormcast trees|route|verilog ...`` in-process: (status, text)."""

def _panic_for_test(msg: str) -> None:
    """Panics in Rust; raises InternalError (the no-panic test)."""
