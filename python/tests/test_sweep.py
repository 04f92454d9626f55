"""`wormcast.sweep` against `wormcast sweep --json`."""

from __future__ import annotations

import _thread
import pathlib
import threading

import pytest

import wormcast
from conftest import cli, cli_json, untimed

SETS = ["run.cycles=2000", "run.warmup=200"]


def base() -> wormcast.Scenario:
    return wormcast.Scenario.default().set("run.cycles", 2000).set("run.warmup", 200)


def test_points_equal_the_cli_sweep(tmp_path: pathlib.Path) -> None:
    pts = wormcast.sweep(base(), loads="0.001..0.003/0.001", schemes="dstm1,spam", threads=2)
    args = [a for s in SETS for a in ("--set", s)]
    want = cli_json(tmp_path, "sweep", "-q", "--loads", "0.001..0.003/0.001",
                    "--schemes", "dstm1,spam", *args)
    assert pts.complete and want["complete"]
    assert untimed(list(pts)) == untimed(want["points"])
    assert [(p["scheme"], p["load"]) for p in pts] == [
        (s, l) for s in ("dstm1", "spam") for l in (0.001, 0.002, 0.003)]


def test_loads_as_numbers_threads_and_frames() -> None:
    a = wormcast.sweep(base(), loads=[0.001, 0.002], schemes=["dstm1", "dstm2"], threads=1)
    b = wormcast.sweep(base(), loads="0.001,0.002", schemes="dstm1,dstm2")
    assert untimed(list(a)) == untimed(list(b))
    df = a.to_frame()
    assert list(df["scheme"]) == ["dstm1", "dstm1", "dstm2", "dstm2"]
    assert (df["latency_mean_cycles"] > 0).all()


def test_mesh_schemes_sweep_on_a_mesh() -> None:
    sc = wormcast.Scenario.from_file("examples/mesh-8x8-dual-path.toml").set("run.cycles", 2000)
    pts = wormcast.sweep(sc, loads="0.001", schemes="dual-path,brcp-pure")
    assert [p["scheme"] for p in pts] == ["dual-path", "brcp-pure"]
    assert all(p["scoreboard_clean"] and not p["deadlock"] for p in pts)


def test_bad_sweeps_raise_the_cli_message() -> None:
    with pytest.raises(wormcast.ScenarioError) as e:
        wormcast.sweep(base(), loads="0.5..0.1/0.1")
    p = cli("sweep", "--loads", "0.5..0.1/0.1", check=False)
    assert p.returncode == 2 and str(e.value) in p.stderr
    with pytest.raises(wormcast.ScenarioError, match="construction"):
        wormcast.sweep(base(), loads="0.001", schemes="no-such-scheme")
    with pytest.raises(wormcast.ScenarioError, match="at least one"):
        wormcast.sweep(base(), loads="0.001", schemes=[])
    with pytest.raises(wormcast.ScenarioError, match="threads"):
        wormcast.sweep(base(), loads="0.001", threads=0)


def test_ctrl_c_stops_a_sweep_with_its_points_so_far(ctrl_c: None) -> None:
    # Two rounds of two points of about 25 s each: long past the Ctrl-C at
    # 1 s, bounded if it never arrives (the test then fails, not hangs).
    sc = (wormcast.Scenario.default().set("network.topology", "torus:16x16")
          .set("run.cycles", 1_000_000))
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with pytest.warns(RuntimeWarning, match="interrupted"):
        pts = wormcast.sweep(sc, loads="0.001,0.002,0.003,0.004", schemes="dstm1", threads=2)
    assert not pts.complete
    # The two running points come back cut short; the rest never started.
    assert 1 <= len(pts) <= 2
    assert all(p["stop_reason"] == "interrupted" for p in pts)
