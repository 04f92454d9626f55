//! Command-line hardening, third round: the memory budget of a run,
//! the overload warning, result-file provenance, progress and limits of
//! the long analyses. Every run here is short.

mod common;
use common::{rejects, wormcast};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-limits-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The overloaded run of the report: rate 1 on the default 8×8 torus for
/// 1e9 cycles, whose source queues grow without bound.
const RUNAWAY: &[&str] = &[
    "run",
    "--set",
    "traffic.rate=1",
    "--set",
    "traffic.multicast_fraction=0",
    "--set",
    "run.cycles=1000000000",
    "--set",
    "run.warmup=0",
];

/// A small message budget stops the runaway run: the JSON is written and
/// valid, its `stop_reason` names the budget, the exit status is 1 and
/// stderr says why.
#[test]
fn message_budget_stops_a_runaway_run_and_writes_the_report() {
    let json = tmp("budget.json");
    let t0 = Instant::now();
    let mut args = RUNAWAY.to_vec();
    let j = json.to_str().unwrap();
    args.extend(["--set", "run.max_messages=20000", "--json", j, "-q"]);
    let o = wormcast(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(60));
    assert!(err.contains("run.max_messages = 20000"), "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reason = r["stop_reason"].as_str().unwrap();
    assert_eq!(reason, "message budget (run.max_messages = 20000)");
    let created = r["delivered_messages"].as_u64().unwrap()
        + r["lost_messages"].as_u64().unwrap()
        + r["unfinished_messages"].as_u64().unwrap();
    // Stopped within one cycle's messages (64 nodes) of the budget.
    assert!((20_001..=20_064).contains(&created), "{created}");
    assert!(r["cycles"].as_u64().unwrap() < 1000, "{}", r["cycles"]);
}

/// Without a budget set, the one derived from memory stops the same run
/// under an address-space limit (`ulimit -v`) before the allocator fails:
/// the JSON is complete instead of empty.
#[test]
fn default_budget_keeps_the_report_under_ulimit_v() {
    let json = tmp("ulimit.json");
    let bin = env!("CARGO_BIN_EXE_wormcast");
    let script = format!(
        "ulimit -v 1500000 && exec '{bin}' {} --json '{}' -q",
        RUNAWAY.join(" "),
        json.display()
    );
    let t0 = Instant::now();
    let o = Command::new("sh").arg("-c").arg(&script).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(120));
    assert!(!err.contains("memory allocation"), "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reason = r["stop_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("message budget (run.max_messages = "),
        "{reason}"
    );
}

#[test]
fn message_budget_is_bounded() {
    rejects(
        &["run", "--set", "run.max_messages=5000000000"],
        "run.max_messages",
        "5000000000",
    );
}
