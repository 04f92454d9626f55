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

/// The deadlock argument does not depend on the hop contract: with
/// `network.hop = "fast"` the verdict, the cycles and the witness are the
/// ones of the standard contract, and the witness still deadlocks when
/// replayed on the fast-hop model (confirmed) and when run.
#[test]
fn the_fast_hop_changes_no_verdict() {
    let verdict = |sc: &str, hop: &str| {
        let (json, emit) = (
            tmp(&format!("{}-{}.json", hop.len(), sc.len())),
            tmp(&format!("{}-{}.toml", hop.len(), sc.len())),
        );
        let mut args = vec!["verify", "--set", hop, "--json", json.to_str().unwrap()];
        if !sc.is_empty() {
            args.extend(["--scenario", sc, "--emit-scenario", emit.to_str().unwrap()]);
        }
        let o = wormcast(&args);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (o.status.code(), out, v, emit)
    };
    for sc in ["", "examples/deadlock-shared-consumption.toml"] {
        let (c0, out0, v0, _) = verdict(sc, "network.hop=standard");
        let (c1, out1, v1, emit) = verdict(sc, "network.hop=fast");
        assert_eq!(c0, c1, "{sc}: {out0}\n{out1}");
        assert!(out1.contains("fast hop"), "{out1}");
        assert_eq!(v0["cyclic_components"], v1["cyclic_components"], "{sc}");
        assert_eq!(v0["visits"], v1["visits"], "{sc}");
        // The cycles in words, the same (the configuration line differs).
        let body = |o: &str| o.lines().skip(1).map(String::from).collect::<Vec<_>>();
        let strip = |v: Vec<String>| {
            v.into_iter()
                .filter(|l| !l.contains("analysed in") && !l.contains("replay"))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(body(&out0)), strip(body(&out1)), "{sc}");
        if !sc.is_empty() {
            assert_eq!(c1, Some(1));
            assert_eq!(v1["cycles"][0]["replay"]["confirmed"], true, "{out1}");
            let r = wormcast(&["run", "-q", "--scenario", emit.to_str().unwrap()]);
            assert_eq!(r.status.code(), Some(1), "the fast witness deadlocks");
            let w = std::fs::read_to_string(&emit).unwrap();
            assert!(
                w.contains("hop = \"fast\""),
                "the witness keeps the contract:\n{w}"
            );
        }
    }
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
