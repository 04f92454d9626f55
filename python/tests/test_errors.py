"""Errors are Python exceptions with the command line's messages."""

from __future__ import annotations

import pathlib

import pytest

import wormcast
from conftest import cli


def cli_error(*args: str) -> str:
    p = cli(*args, check=False)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ")
    return line.removeprefix("error: ")


def test_scenario_error_is_a_value_error_with_the_cli_message() -> None:
    assert issubclass(wormcast.ScenarioError, ValueError)
    with pytest.raises(wormcast.ScenarioError) as e:
        wormcast.Scenario.default().set("traffic.rate", 7)
    assert str(e.value) == cli_error("run", "--set", "traffic.rate=7")
    assert "traffic.rate" in str(e.value) and "`7`" in str(e.value)


def test_a_refused_set_leaves_the_scenario_unchanged() -> None:
    sc = wormcast.Scenario.default().set("traffic.rate", 0.003)
    with pytest.raises(wormcast.ScenarioError):
        sc.set("network.topology", "torus:1x1")
    assert sc.sets == ["traffic.rate=0.003"]
    assert sc.to_dict()["network"]["topology"] == "torus:8x8"


def test_unknown_key_and_bad_types_name_the_key() -> None:
    with pytest.raises(wormcast.ScenarioError, match="traffic.no_such_key"):
        wormcast.Scenario.default().set("traffic.no_such_key", 1)
    with pytest.raises(wormcast.ScenarioError, match="network.buffer_depth"):
        wormcast.Scenario.default().set("network.buffer_depth", "deep")
    with pytest.raises(wormcast.ScenarioError, match="None"):
        wormcast.Scenario.default().set("traffic.rate", None)


def test_file_errors_give_the_file_and_line(tmp_path: pathlib.Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[network]\ntopology = \"torus:8x8\"\nbuffer_depth = 0\n")
    with pytest.raises(wormcast.ScenarioError) as e:
        wormcast.Scenario.from_file(f)
    assert str(e.value) == cli_error("run", "--scenario", str(f))
    assert "bad.toml" in str(e.value) and "line 3" in str(e.value)
    with pytest.raises(wormcast.ScenarioError, match="cannot read scenario"):
        wormcast.Scenario.from_file(tmp_path / "missing.toml")


def test_an_endless_scenario_file_is_refused_at_the_cap(tmp_path: pathlib.Path) -> None:
    f = tmp_path / "huge.toml"
    with f.open("wb") as w:
        w.truncate(65 << 20)
    with pytest.raises(wormcast.ScenarioError, match="larger than 64 MiB"):
        wormcast.Scenario.from_file(f)


def test_dict_scenarios_are_checked() -> None:
    with pytest.raises(wormcast.ScenarioError, match="no None"):
        wormcast.Scenario.from_dict({"traffic": {"rate": None}})
    with pytest.raises(wormcast.ScenarioError, match="traffic.rate"):
        wormcast.Scenario.from_dict({"traffic": {"rate": -1}})


def test_a_rust_panic_becomes_an_internal_error() -> None:
    from wormcast import _native

    with pytest.raises(wormcast.InternalError, match="a bug, not your input.*deliberate"):
        _native._panic_for_test("deliberate")
    assert issubclass(wormcast.InternalError, RuntimeError)
    # The interpreter is intact afterwards.
    assert wormcast.Scenario.default().to_dict()["network"]["topology"] == "torus:8x8"
