"""wormcast from Python: run, sweep, verify and generate Verilog.

The cycle model, its scenarios, sweeps and checks are the command line's
own code, called in-process (the ``_native`` extension); results are the
JSON the command line writes, turned into objects. The same scenario and
seed give the same report from Python as from ``wormcast run --json``.
See docs/python.md.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

from . import _native
from ._native import InternalError, ScenarioError

__all__ = [
    "Scenario",
    "Report",
    "Sweep",
    "Verdict",
    "ScenarioError",
    "InternalError",
    "run",
    "sweep",
    "verify",
    "trees",
    "route",
    "verilog",
    "__version__",
]

__version__: str = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]
#: ``None``: a bar on a terminal, nothing elsewhere (a notebook);
#: ``True``: a bar on a terminal, else a line on ``sys.stderr`` every few
#: seconds; ``False``: nothing; a callable: called as ``f(done, total)``
#: a few times a second (cycles for ``run``, points for ``sweep``).
Progress = Union[None, bool, Callable[[int, int], Any]]


class Scenario:
    """A scenario: TOML text plus ``--set`` overrides, checked at once.

    Build one with :meth:`default`, :meth:`from_file`, :meth:`from_toml`
    or :meth:`from_dict`, then change values with :meth:`set`, which takes
    the keys of ``wormcast run --set``. Every change is validated as the
    command line validates it, so a bad value raises
    :class:`ScenarioError` where it is made.
    """

    def __init__(self, text: str = "", origin: str = "built-in default scenario",
                 sets: Sequence[str] = ()) -> None:
        self._text = text
        self._origin = origin
        self._sets = list(sets)
        self._toml, self._json = _native.scenario(self._text, self._sets, self._origin)

    @classmethod
    def default(cls) -> "Scenario":
        """The built-in scenario ``wormcast run`` runs without arguments."""
        return cls()

    @classmethod
    def from_file(cls, path: PathLike) -> "Scenario":
        """A scenario file, as ``--scenario PATH`` reads it."""
        p = os.fspath(path)
        return cls(_native.read_scenario(p), p)

    @classmethod
    def from_toml(cls, text: str, origin: str = "<string>") -> "Scenario":
        """Scenario TOML text; ``origin`` names it in error messages."""
        return cls(text, origin)

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]], origin: str = "<dict>") -> "Scenario":
        """Sections of keys, as the TOML file has them:
        ``{"network": {"topology": "torus:8x8"}, "traffic": {"rate": 0.01}}``."""
        return cls(_native.toml_document(json.dumps(d)), origin)

    def set(self, key: str, value: Any) -> "Scenario":
        """Sets ``section.key`` (as ``--set key=value``) and returns the
        scenario, so calls chain. Raises :class:`ScenarioError` and leaves
        the scenario unchanged when the value is not allowed."""
        literal = _native.toml_literal(json.dumps(value))
        sets = self._sets + [f"{key}={literal}"]
        self._toml, self._json = _native.scenario(self._text, sets, self._origin)
        self._sets = sets
        return self

    def copy(self) -> "Scenario":
        """An independent copy (``set`` changes the scenario in place)."""
        return Scenario(self._text, self._origin, self._sets)

    @property
    def sets(self) -> list[str]:
        """The overrides so far, as ``--set`` arguments."""
        return list(self._sets)

    def to_toml(self) -> str:
        """The effective scenario, as ``wormcast run --dump-scenario`` prints it."""
        return str(self._toml)

    def to_dict(self) -> dict[str, Any]:
        """The effective scenario as nested dicts (every key, defaults included)."""
        d: dict[str, Any] = json.loads(self._json)
        return d

    def __repr__(self) -> str:
        return f"Scenario(origin={self._origin!r}, sets={self._sets!r})"


class _Fields:
    """Read-only attribute access to a dict's keys, nested dicts included."""

    def __init__(self, d: Mapping[str, Any]) -> None:
        self._d = dict(d)

    def __getattr__(self, name: str) -> Any:
        try:
            v = self.__dict__["_d"][name]
        except KeyError:
            raise AttributeError(name) from None
        return _Fields(v) if isinstance(v, dict) else v

    def __dir__(self) -> list[str]:
        return sorted(set(self._d) | set(type(self).__dict__))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (a copy)."""
        d: dict[str, Any] = json.loads(json.dumps(self._d))
        return d

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._d!r})"


def _frame(rows: list[dict[str, Any]]) -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError("a DataFrame needs pandas: pip install pandas") from e
    return pandas.DataFrame(rows)


class Report(_Fields):
    """The report of one run: the fields of ``wormcast run --json`` as
    attributes (``report.latency.p99``, ``report.stop_reason``), with
    :meth:`to_dict`. ``messages`` holds the per-message records when
    ``run(..., messages=True)`` asked for them."""

    def __init__(self, d: Mapping[str, Any], messages: Optional[list[dict[str, Any]]] = None) -> None:
        super().__init__(d)
        self.__dict__["messages"] = messages

    @property
    def latency_mean(self) -> float:
        """Mean message latency in cycles (``latency_mean_cycles``)."""
        v: float = self._d["latency_mean_cycles"]
        return v

    def messages_frame(self) -> Any:
        """The per-message records as a pandas DataFrame (pandas needed)."""
        if self.messages is None:
            raise ValueError("no per-message records: run with messages=True")
        return _frame(self.messages)


class Sweep(list):  # type: ignore[type-arg]
    """A sweep's points, in scheme-major order: a list of dicts with the
    fields of the ``points`` of ``wormcast sweep --json``, ready for
    ``pandas.DataFrame(points)`` or :meth:`to_frame`. ``complete`` is
    false when Ctrl-C stopped the sweep."""

    complete: bool

    def __init__(self, points: Iterable[dict[str, Any]], complete: bool) -> None:
        super().__init__(points)
        self.complete = complete

    def to_frame(self) -> Any:
        """The points as a pandas DataFrame (pandas needed)."""
        return _frame(list(self))


class Verdict(_Fields):
    """The verdict of ``wormcast verify``: ``deadlock_free``, the
    configuration and model (``config``), and each dependency cycle found
    (``cycles``: its steps, the resources held and waited for, the witness
    worms and the replay's outcome), as the JSON has them. ``text`` is what
    the command line prints."""

    def __init__(self, d: Mapping[str, Any], text: str, deadlock_free: bool) -> None:
        super().__init__(d)
        self.__dict__["text"] = text
        self.__dict__["deadlock_free"] = deadlock_free


class _Lines:
    """``progress=True`` where no terminal shows a bar (a notebook, a log):
    a line on ``sys.stderr`` every few seconds."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last >= 2.0:
            self.last = now
            print(f"wormcast: {done}/{total} {self.unit}", file=sys.stderr, flush=True)


def _progress(progress: Progress, unit: str) -> tuple[bool, Optional[Callable[[int, int], Any]]]:
    tty = sys.stderr.isatty()
    if progress is None:
        return tty, None
    if progress is True:
        return (True, None) if tty else (False, _Lines(unit))
    if progress is False:
        return False, None
    if callable(progress):
        return False, progress
    raise ScenarioError(
        f"invalid progress = {progress!r}: allowed: None, True, False or a callable f(done, total)")


def _interrupted(what: str) -> None:
    warnings.warn(f"{what} interrupted (Ctrl-C): returning what it had", RuntimeWarning, stacklevel=3)


def run(scenario: Optional[Scenario] = None, *, messages: bool = False,
        progress: Progress = None) -> Report:
    """Simulates ``scenario`` (default: the built-in one) as ``wormcast run``.

    The interpreter is released while it runs. Ctrl-C stops it at the next
    cycle and returns the report so far (``stop_reason == "interrupted"``)
    with a ``RuntimeWarning``, as the command line writes its JSON on
    Ctrl-C. ``messages=True`` adds the per-message records
    (``report.messages``), the rows of ``run --messages``.
    """
    sc = scenario if scenario is not None else Scenario.default()
    bar, cb = _progress(progress, "cycles")
    text, records, interrupted = _native.run(sc._text, sc._sets, sc._origin, bar, cb, messages)
    if interrupted:
        _interrupted("run")
    return Report(json.loads(text), json.loads(records) if records is not None else None)


def sweep(scenario: Optional[Scenario] = None, loads: Union[str, Iterable[float]] = "0.001",
          schemes: Union[str, Iterable[str]] = "dstm1", *, threads: Optional[int] = None,
          progress: Progress = None) -> Sweep:
    """Latency against load, as ``wormcast sweep``: one run per (scheme,
    load), the points in parallel on ``threads`` workers (default: every
    core) with the interpreter released.

    ``loads`` is ``"A..B/STEP"``, a comma list, or numbers; ``schemes`` a
    comma list or names (``dstm1``, ``dstm2``, ``spam``, ``spam:C``, the
    mesh schemes ``dual-path``, ``brcp-pure``, ``vh``, ...). Ctrl-C stops
    the running points and skips the rest; the points so far come back
    with ``complete == False`` and a ``RuntimeWarning``.
    """
    sc = scenario if scenario is not None else Scenario.default()
    if isinstance(loads, str):
        grid = _native.parse_loads(loads)
    else:
        grid = _native.parse_loads(",".join(repr(float(x)) for x in loads))
    names = _native.parse_schemes(schemes) if isinstance(schemes, str) else list(schemes)
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
        raise ScenarioError(f"invalid threads = {threads!r}: at least 1 (None uses every core)")
    bar, cb = _progress(progress, "points")
    text, complete = _native.sweep(sc._text, sc._sets, sc._origin, grid, names,
                                   threads or 0, bar, cb)
    points = json.loads(text)
    if not complete:
        _interrupted("sweep")
    return Sweep(points, complete)


def verify(scenario: Optional[Scenario] = None, *, cycles: int = 4,
           replay_trials: int = 64) -> Verdict:
    """The static deadlock check of ``wormcast verify`` on the scenario's
    network and scheme: up to ``cycles`` dependency cycles, each replayed
    with up to ``replay_trials`` start-offset patterns."""
    for name, v, least in (("cycles", cycles, 1), ("replay_trials", replay_trials, 0)):
        if not isinstance(v, int) or isinstance(v, bool) or v < least:
            raise ScenarioError(f"invalid {name} = {v!r}: an integer, at least {least}")
    sc = scenario if scenario is not None else Scenario.default()
    text, rendered, free = _native.verify(sc._text, sc._sets, sc._origin, cycles, replay_trials)
    return Verdict(json.loads(text), rendered, free)


def _is_node(v: Any) -> bool:
    """A coordinate ``(x, y)``: two ints in a tuple or list."""
    return isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(c, int) for c in v)


def _flag_value(v: Any) -> str:
    return f"{v[0]},{v[1]}" if _is_node(v) else str(v)


def _argv(command: str, options: Mapping[str, Any]) -> list[str]:
    """Keyword arguments as the command line's flags: ``node_count=4`` is
    ``--node-count 4``, ``True`` a bare flag, a list a repeated flag, a
    coordinate ``(x, y)`` is ``x,y``."""
    argv = [command]
    for k, v in options.items():
        flag = "--" + k.replace("_", "-")
        if v is None or v is False:
            continue
        if v is True:
            argv.append(flag)
        elif isinstance(v, (list, tuple)) and not _is_node(v):
            for item in v:
                argv += [flag, _flag_value(item)]
        else:
            argv += [flag, _flag_value(v)]
    return argv


def _json_command(command: str, options: Mapping[str, Any]) -> dict[str, Any]:
    _code, text = _native.command(_argv(command, dict(options, json=True)))
    d: dict[str, Any] = json.loads(text)
    return d


def trees(topology: str, construction: str = "dstm1", **options: Any) -> dict[str, Any]:
    """The two spanning trees of ``wormcast trees --json``: roots,
    spanning and edge-disjoint checks, diameters, average distance.
    ``options`` are the command's other flags (``r1="0,0"``,
    ``roots="intersection"``)."""
    return _json_command("trees", dict(options, topology=topology, construction=construction))


def route(topology: str, source: Union[str, tuple[int, int]],
          dests: Sequence[Union[str, tuple[int, int]]], **options: Any) -> dict[str, Any]:
    """One unicast or multicast as ``wormcast route --json``: its header
    flits, path and links. ``options`` are the command's other flags
    (``construction="dstm2"``, ``routing="negative_first"``,
    ``scheme="dual-path"``)."""
    return _json_command("route", dict(options, topology=topology, source=source, dest=list(dests)))


def verilog(out: PathLike, **options: Any) -> list[str]:
    """Writes the Verilog of ``wormcast verilog --out OUT`` (the same
    files, byte for byte) and returns the paths of the files in ``out``,
    sorted. ``options`` are
    the command's flags: ``router=True``, ``topology="torus:4x4"``,
    ``node=5``, ``fpga=True``, ..."""
    out_s = os.fspath(out)
    code, _text = _native.command(_argv("verilog", dict(options, out=out_s)))
    if code != 0:
        raise ScenarioError(f"wormcast verilog exited with status {code}")
    return sorted(os.path.join(dirpath, f) for dirpath, _dirs, files in os.walk(out_s) for f in files)

