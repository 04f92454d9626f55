"""`wormcast.run` and `wormcast.Scenario` against `wormcast run`."""

from __future__ import annotations

import _thread
import csv
import pathlib
import threading
import time
import tomllib
from typing import Any

import pytest

import wormcast
from conftest import cli, cli_json, untimed

SHORT = ["run.cycles=3000", "run.warmup=300"]


def short(sc: wormcast.Scenario) -> wormcast.Scenario:
    return sc.set("run.cycles", 3000).set("run.warmup", 300)


def sets(*kv: str) -> list[str]:
    return [a for s in kv for a in ("--set", s)]


def test_default_report_is_bit_identical_to_the_cli(tmp_path: pathlib.Path) -> None:
    r = wormcast.run(short(wormcast.Scenario.default()), progress=False)
    want = cli_json(tmp_path, "run", "-q", *sets(*SHORT))
    assert untimed(r.to_dict()) == untimed(want)
    assert r.latency_mean == want["latency_mean_cycles"] > 0
    assert r.latency.p99 == want["latency"]["p99"]
    assert r.stop_reason == want["stop_reason"]


def test_scenario_file_string_and_dict_give_one_report(root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    f = root / "examples" / "mesh-8x8-dual-path.toml"
    text = f.read_text()
    a = short(wormcast.Scenario.from_file(f))
    b = short(wormcast.Scenario.from_toml(text))
    c = short(wormcast.Scenario.from_dict(tomllib.loads(text)))
    assert a.to_toml() == b.to_toml() == c.to_toml()
    ra, rb, rc = (untimed(wormcast.run(s).to_dict()) for s in (a, b, c))
    assert ra == rb == rc
    want = cli_json(tmp_path, "run", "-q", "--scenario", str(f), *sets(*SHORT))
    assert ra == untimed(want)
    assert ra["delivered_messages"] > 0


def test_set_takes_cli_keys_and_values() -> None:
    sc = wormcast.Scenario.default()
    sc.set("network.topology", "torus:4x4").set("traffic.rate", 0.01).set("traffic.multicast_fraction", 0)
    d = sc.to_dict()
    assert d["network"]["topology"] == "torus:4x4"
    assert d["traffic"]["rate"] == 0.01
    assert sc.sets == ['network.topology="torus:4x4"', "traffic.rate=0.01", "traffic.multicast_fraction=0"]


def test_effective_scenario_is_the_cli_dump() -> None:
    sc = wormcast.Scenario.default().set("traffic.rate", 0.004)
    p = cli("run", "--set", "traffic.rate=0.004", "--dump-scenario")
    assert sc.to_toml().strip() == p.stdout.strip()


def test_messages_are_the_cli_csv_rows(tmp_path: pathlib.Path) -> None:
    r = wormcast.run(short(wormcast.Scenario.default()), messages=True)
    out = tmp_path / "m.csv"
    cli("run", "-q", *sets(*SHORT), "--messages", str(out))
    rows = list(csv.DictReader(out.open()))
    assert r.messages is not None and len(r.messages) == len(rows) > 100
    def opt(v: object) -> str:
        return "" if v is None else str(v)

    for m, row in zip(r.messages, rows):
        assert str(m["message"]) == row["message"]
        assert (str(m["source_x"]), str(m["source_y"])) == (row["source_x"], row["source_y"])
        assert (opt(m["injected"]), opt(m["finished"]), opt(m["latency"])) == (
            row["injected"], row["finished"], row["latency"])
        dl = ";".join(f"{d['x']},{d['y']}@{opt(d['cycle'])}" for d in m["deliveries"])
        assert dl == row["deliveries"]
    df = r.messages_frame()
    assert len(df) == len(rows)
    assert float(df["latency"].dropna().mean()) > 0


def test_report_attributes_and_errors() -> None:
    r = wormcast.run(short(wormcast.Scenario.default()))
    assert r.messages is None
    with pytest.raises(ValueError, match="messages=True"):
        r.messages_frame()
    with pytest.raises(AttributeError):
        r.no_such_field  # noqa: B018
    assert "latency_mean_cycles" in dir(r)


def long_scenario() -> wormcast.Scenario:
    # About 45 s of simulation (the package's test build runs a 16×16 torus
    # at about 46 000 cycles/s): long past the Ctrl-C at 1 s, short enough
    # that a Ctrl-C that never arrives fails the test instead of hanging it.
    return (wormcast.Scenario.default().set("network.topology", "torus:16x16")
            .set("run.cycles", 2_000_000).set("run.warmup", 0))


def test_ctrl_c_returns_the_partial_report(ctrl_c: None) -> None:
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    t = time.monotonic()
    with pytest.warns(RuntimeWarning, match="interrupted"):
        r = wormcast.run(long_scenario())
    assert time.monotonic() - t < 30
    assert r.stop_reason == "interrupted"
    assert 0 < r.cycles < 2_000_000
    assert r.injected_messages > 0


def test_the_interpreter_runs_other_threads_during_a_run() -> None:
    ticks = 0
    done = threading.Event()
    result: dict[str, Any] = {}

    def work() -> None:
        sc = wormcast.Scenario.default().set("network.topology", "torus:16x16").set("run.cycles", 60_000)
        result["r"] = wormcast.run(sc)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    time.sleep(0.05)
    t = time.monotonic()
    while not done.is_set():
        ticks += 1
    elapsed = time.monotonic() - t
    th.join()
    assert result["r"].cycles > 0
    # Holding the interpreter, the run would leave this loop a few
    # switch intervals at most; released, it spins the whole run.
    assert elapsed > 0.2, f"run too short to tell ({elapsed:.2f} s)"
    assert ticks > 10_000 * elapsed, (ticks, elapsed)


def test_progress_callable_sees_the_cycles() -> None:
    seen: list[tuple[int, int]] = []
    sc = wormcast.Scenario.default().set("network.topology", "torus:16x16").set("run.cycles", 40_000)
    r = wormcast.run(sc, progress=lambda d, t: seen.append((d, t)))
    assert seen, "the callback never ran"
    assert all(t == 40_000 + sc.to_dict()["run"]["warmup"] for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert seen[-1][0] <= r.cycles


def test_a_failing_progress_callable_stops_the_run() -> None:
    def boom(done: int, total: int) -> None:
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        wormcast.run(long_scenario(), progress=boom)


def test_bad_progress_is_refused() -> None:
    with pytest.raises(wormcast.ScenarioError, match="invalid progress"):
        wormcast.run(progress="yes")  # type: ignore[arg-type]


def test_workload_keys_run_as_on_the_cli(tmp_path: pathlib.Path) -> None:
    extra = ['traffic.unicast="tornado"', "traffic.multicast_fraction=0", 'traffic.process="onoff"',
             "traffic.burst_length=30", "traffic.duty_cycle=0.25"]
    sc = short(wormcast.Scenario.default())
    sc.set("traffic.unicast", "tornado").set("traffic.multicast_fraction", 0).set("traffic.process", "onoff")
    sc.set("traffic.burst_length", 30).set("traffic.duty_cycle", 0.25)
    r = wormcast.run(sc)
    want = cli_json(tmp_path, "run", "-q", *sets(*SHORT, *extra))
    assert untimed(r.to_dict()) == untimed(want)
    b = wormcast.run(wormcast.Scenario.default().set("traffic.batch", 3).set("run.warmup", 0))
    assert b.stop_reason == "batch complete" and b.batch_completion_cycle > 0
