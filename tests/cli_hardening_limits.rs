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

/// The default load on a 64×64 torus is far past its capacity (the
/// balanced tree links carry traffic from thousands of sources): the run
/// warns before simulating, naming the load and the estimate; `-q`
/// silences the warning (it is not a failure).
#[test]
fn overload_is_warned_before_the_run() {
    let args = [
        "run",
        "--set",
        "network.topology=torus:64x64",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=10",
        "--set",
        "run.drain_cycles=0",
    ];
    let o = wormcast(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("warning: the offered load"))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(
        line.contains("traffic.rate = 0.002 msgs/node/cycle"),
        "{line}"
    );
    assert!(
        line.contains("estimated capacity of at most 0.0001"),
        "{line}"
    );
    assert!(line.contains("is 19× this network's"), "{line}");
    assert!(line.contains("tree link"), "{line}");
    let mut quiet = args.to_vec();
    quiet.push("-q");
    let o = wormcast(&quiet);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// No example scenario warns at its own load (the bench and scale files
/// run at up to about their saturation rate, and the estimate is an
/// upper bound on it); each is cut to a few cycles.
#[test]
fn examples_at_their_loads_do_not_warn() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for f in files {
        let o = wormcast(&[
            "run",
            "--scenario",
            f.to_str().unwrap(),
            "--set",
            "run.warmup=0",
            "--set",
            "run.cycles=1",
            "--set",
            "run.drain_cycles=0",
        ]);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{}: {err}", f.display());
        assert!(
            !err.contains("warning: the offered load"),
            "{}: {err}",
            f.display()
        );
        checked += 1;
    }
    assert!(checked >= 40, "{checked} examples");
}

/// `run --json` and `sweep --json` say what produced them; sweep loads
/// carry no binary noise, in the JSON and in the table; a small rate
/// prints as itself, not `0.00000`.
#[test]
fn result_files_carry_their_provenance() {
    let scen = tmp("prov.toml");
    std::fs::write(&scen, "[traffic]\nlength = 8\n").unwrap();
    let json = tmp("prov-run.json");
    let o = wormcast(&[
        "run",
        "--scenario",
        scen.to_str().unwrap(),
        "--set",
        "traffic.rate=0.000005",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=200000",
        "--json",
        json.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.contains("rate 0.000005 msgs/node/cycle"), "{out}");
    let offered: f64 = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("offered / accepted"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{out}"))
        .parse()
        .unwrap();
    assert!(offered > 0.000003 && offered < 0.000007, "{out}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = &r["provenance"];
    assert_eq!(p["wormcast_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["command"], "run");
    assert_eq!(p["scenario"], scen.to_str().unwrap());
    assert_eq!(p["overrides"][0], "traffic.rate=0.000005");
    assert_eq!(p["load"], 0.000005);
    assert_eq!(p["length"], "8");
    assert_eq!(p["multicast_fraction"], 0.1);
    assert_eq!(p["destinations"], "[4, 12]");
    assert_eq!(p["topology"], "torus:8x8");
    // The report's keys are unchanged.
    assert!(r["stop_reason"].is_string() && r["latency"]["p99"].is_u64());

    let sj = tmp("prov-sweep.json");
    let o = wormcast(&[
        "sweep",
        "-q",
        "--loads",
        "0.0002..0.0006/0.0001",
        "--schemes",
        "dstm1",
        "--set",
        "network.topology=torus:4x4",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=200",
        "--json",
        sj.to_str().unwrap(),
    ]);
    let table = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(table.contains("| dstm1 | 0.0005 |"), "{table}");
    assert!(!table.contains("00000000001"), "{table}");
    let text = std::fs::read_to_string(&sj).unwrap();
    assert!(!text.contains("00000000001"), "{text}");
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(s["provenance"]["command"], "sweep");
    assert_eq!(s["provenance"]["scenario"], "built-in default scenario");
    assert_eq!(s["provenance"]["loads"][3], 0.0005);
    assert_eq!(s["provenance"]["schemes"][0], "dstm1");
    assert_eq!(s["points"][3]["load"], 0.0005);
    assert_eq!(s["scenario"], "built-in default scenario");
}
