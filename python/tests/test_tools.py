"""`trees`, `route`, `verify` and `verilog` against the command line."""

from __future__ import annotations

import json
import pathlib

import pytest

import wormcast
from conftest import cli, cli_json, untimed


def test_trees_equal_the_cli() -> None:
    t = wormcast.trees("torus:8x8", "dstm2")
    want = json.loads(cli("trees", "--topology", "torus:8x8", "--construction", "dstm2", "--json").stdout)
    assert t == want
    assert t["spanning"] and t["edge_disjoint"]


def test_route_equals_the_cli_on_a_torus_and_a_mesh() -> None:
    r = wormcast.route("torus:8x8", (0, 0), [(3, 4), "7,7"], construction="dstm1")
    want = json.loads(cli("route", "--topology", "torus:8x8", "--construction", "dstm1", "--source", "0,0",
                          "--dest", "3,4", "--dest", "7,7", "--json").stdout)
    assert r == want
    m = wormcast.route("mesh:6x6", "0,0", ["5,5", "2,3"], routing="hamiltonian", scheme="dual-path")
    want = json.loads(cli("route", "--topology", "mesh:6x6", "--source", "0,0", "--dest", "5,5", "--dest", "2,3",
                          "--routing", "hamiltonian", "--scheme", "dual-path", "--json").stdout)
    assert m == want


def test_tool_errors_are_scenario_errors() -> None:
    with pytest.raises(wormcast.ScenarioError, match="torus"):
        wormcast.trees("mesh:4x4")
    with pytest.raises(wormcast.ScenarioError, match="--no-such-flag"):
        wormcast.trees("torus:4x4", no_such_flag=1)
    with pytest.raises(wormcast.ScenarioError, match="allowed: trees, route, verilog"):
        wormcast._native.command(["run"])


def test_verify_returns_the_cycle_as_data(root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    f = root / "examples" / "deadlock-shared-consumption.toml"
    v = wormcast.verify(wormcast.Scenario.from_file(f))
    assert not v.deadlock_free
    want = cli_json(tmp_path, "verify", "--scenario", str(f))
    assert untimed(v.to_dict()) == untimed(want)
    c = v.cycles[0]
    assert c["steps"][0]["waits_for"] and c["steps"][0]["holder_input"]
    assert c["witness"][0]["destinations"]
    assert c["replay"]["confirmed"]
    assert "cycle" in v.text
    ok = wormcast.verify()
    assert ok.deadlock_free and ok.cycles == []


def test_verilog_writes_the_cli_files(tmp_path: pathlib.Path) -> None:
    # One output folder for both: the file lists name it.
    out = tmp_path / "v"
    cli("verilog", "--router", "--node", "5", "--out", str(out))
    want = {p.name: p.read_bytes() for p in out.iterdir()}
    for p in out.iterdir():
        p.unlink()
    files = wormcast.verilog(out, router=True, node=5)
    assert [pathlib.Path(f).name for f in files] == sorted(want)
    assert "wormcast_router_n5.v" in want
    assert {p.name: p.read_bytes() for p in out.iterdir()} == want
    with pytest.raises(wormcast.ScenarioError, match="node"):
        wormcast.verilog(tmp_path / "bad", router=True, node="99,99")
