"""Hostile values through every door of the Python API: each is accepted
or refused with ScenarioError, never another exception, a panic or a
hang. Seeded, so a failure replays."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import wormcast

SEED = 20261129
CASES = 400


def hostile(rng: random.Random) -> Any:
    pool: list[Any] = [
        None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 2**64, 10**30, 0.5, -0.0, math.nan, math.inf,
        -math.inf, 1e-300, "", " ", "torus:8x8", "mesh:0x0", "torus:65536x2", "x" * 5000, "\u00e9\u2603",
        "\x00", "1,1", "a=b", "[", "\"", [], [1, 2], ["1,1", "1,1"], {}, {"a": 1}, [[1]], 3.5e9,
    ]
    return rng.choice(pool)


def test_set_never_fails_otherwise() -> None:
    rng = random.Random(SEED)
    d = wormcast.Scenario.default().to_dict()
    # The workload keys are left out of the effective scenario at their
    # defaults, so they are named here.
    workload = ["traffic.unicast", "traffic.hotspots", "traffic.hotspot_weights", "traffic.process",
                "traffic.burst_length", "traffic.duty_cycle", "traffic.batch", "traffic.multicast",
                "traffic.radius", "traffic.region", "traffic.region_corners", "traffic.window",
                "traffic.reply_length"]
    keys = [f"{s}.{k}" for s, t in d.items() for k in t] + workload + [
        "traffic.nope", "nope.rate", "traffic", ".", "a.b.c"]
    refused = 0
    for _ in range(CASES):
        key, value = rng.choice(keys), hostile(rng)
        try:
            wormcast.Scenario.default().set(key, value)
        except wormcast.ScenarioError as e:
            refused += 1
            assert str(e), (key, value)
    # Most of these are nonsense: a door that accepted everything would be broken.
    assert refused > CASES // 2


@pytest.mark.parametrize("kwargs", [
    {"loads": "0..1/0"}, {"loads": "1e309"}, {"loads": [math.nan]}, {"loads": []}, {"loads": "a,b"},
    {"loads": [0.001], "schemes": ""}, {"loads": [0.001], "schemes": "spam:nope"},
    {"loads": [0.001], "schemes": ["dual-path"]}, {"loads": [0.001], "threads": -3},
])
def test_bad_sweeps_are_scenario_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(wormcast.ScenarioError):
        wormcast.sweep(wormcast.Scenario.default().set("run.cycles", 100), **kwargs)


@pytest.mark.parametrize("call", [
    lambda: wormcast.trees("torus:0x0"),
    lambda: wormcast.trees("torus:8x8", construction="\x00"),
    lambda: wormcast.route("torus:8x8", "9,9", ["1,1"]),
    lambda: wormcast.route("torus:8x8", "0,0", []),
    lambda: wormcast.route("torus:8x8", (0, 0), ["1,1", "1,1"]),
    lambda: wormcast.verify(wormcast.Scenario.default(), cycles=0),
    lambda: wormcast.verify(wormcast.Scenario.default(), cycles=-1),
    lambda: wormcast.verify(wormcast.Scenario.default(), replay_trials=-1),
    lambda: wormcast.verilog("/dev/null/x", router=True),
    lambda: wormcast.Scenario.from_toml("[network\n"),
    lambda: wormcast.Scenario.from_toml("[network]\ntopology = 5\n"),
    lambda: wormcast.Scenario.from_dict({"network": 5}),  # type: ignore[dict-item]
])
def test_bad_tool_inputs_are_scenario_errors(call: Any) -> None:
    with pytest.raises(wormcast.ScenarioError):
        call()
