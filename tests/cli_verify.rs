//! `wormcast verify` from the outside: exit status, the text, `--json`,
//! `--dot`, `--emit-scenario` (replayed with `wormcast run`) and bad input.

mod common;
use common::{rejects, wormcast};

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-verify-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn dstm_is_proved_free_with_exit_0() {
    let json = tmp("free.json");
    let o = wormcast(&["verify", "--json", json.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("deadlock-free"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["cyclic_components"], 0);
    assert!(v["visits"].as_u64().unwrap() > 0);
}

#[test]
fn a_shared_consumption_channel_is_a_replayed_deadlock_with_exit_1() {
    let (json, dot, sc) = (tmp("cycle.json"), tmp("cycle.dot"), tmp("witness.toml"));
    let o = wormcast(&[
        "verify",
        "--scenario",
        "examples/deadlock-shared-consumption.toml",
        "--json",
        json.to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
        "--emit-scenario",
        sc.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("DEPENDENCY CYCLE") && out.contains("CONFIRMED"),
        "{out}"
    );
    assert!(out.contains("waits for consumption"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["cycles"][0]["replay"]["confirmed"], true);
    let d = std::fs::read_to_string(&dot).unwrap();
    assert!(d.starts_with("digraph") && d.contains("w0 -> w1"), "{d}");
    // The witness runs as an ordinary scenario and deadlocks: `run` exits 1.
    let r = wormcast(&["run", "-q", "--scenario", sc.to_str().unwrap()]);
    assert_eq!(
        r.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn bad_input_exits_2() {
    rejects(
        &["verify", "--set", "network.consumption_channels=9"],
        "consumption_channels",
        "9",
    );
    rejects(&["verify", "--cycles", "0"], "--cycles", "0");
    rejects(
        &["verify", "--set", "network.topology=\"torus:1x4\""],
        "topology",
        "1",
    );
    let o = wormcast(&[
        "verify",
        "--emit-scenario",
        tmp("none.toml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("deadlock-free"));
}
