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

/// Runs `wormcast ARGS` on a pseudo-terminal (`script`), so progress bars
/// that only a terminal sees are drawn; returns what the terminal got.
fn on_terminal(args: &[&str]) -> (Option<i32>, String) {
    let bin = env!("CARGO_BIN_EXE_wormcast");
    let cmd = std::iter::once(format!("'{bin}'"))
        .chain(args.iter().map(|a| format!("'{a}'")))
        .collect::<Vec<_>>()
        .join(" ");
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("`script` (util-linux) runs the command on a pseudo-terminal");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string(),
    )
}

/// `trees` on a large torus shows the progress of its all-pairs metrics
/// on a terminal, and nothing of it in a pipe.
#[test]
fn trees_shows_progress_on_a_terminal() {
    let (code, tty) = on_terminal(&["trees", "--topology", "torus:96x96"]);
    assert_eq!(code, Some(0), "{tty}");
    assert!(tty.contains("all-pairs tree distances"), "{tty}");
    assert!(tty.contains("/9216 source nodes"), "{tty}");
    assert!(tty.contains("combined diameter"), "{tty}");
    let o = wormcast(&["trees", "--topology", "torus:96x96"]);
    assert!(!stderr(&o).contains("source nodes"), "{}", stderr(&o));
}

/// BRCP minimal with one consumption channel on a 4×4 mesh: hundreds of
/// candidate cycles, none of which a worm forms.
const BRCP_ONE_POOL: &[&str] = &[
    "verify",
    "--scenario",
    concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mesh-16x16-brcp.toml"),
    "--set",
    "network.topology=mesh:4x4",
    "--set",
    "network.consumption_channels=1",
];

/// The witness search stops at `--search-limit` and the verdict says so
/// (text and JSON); the one-wait cycle no worm forms is explained.
#[test]
fn verify_search_is_bounded_and_says_so() {
    let json = tmp("verify-limit.json");
    let mut args = BRCP_ONE_POOL.to_vec();
    args.extend(["--search-limit", "5", "--json", json.to_str().unwrap()]);
    let t0 = Instant::now();
    let o = wormcast(&args);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(t0.elapsed() < Duration::from_secs(30));
    assert!(
        out.contains("witness search: stopped at its limit of 5 candidate cycles"),
        "{out}"
    );
    assert!(
        out.contains("only a worm passing this router twice"),
        "{out}"
    );
    assert!(
        out.contains("probably one of the model's, not a deadlock"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["candidates_tried"], 5);
    assert_eq!(v["search_limit"], 5);
    assert_eq!(v["search_limit_reached"], true);
    rejects(&["verify", "--search-limit", "0"], "--search-limit", "0");
}

/// On a terminal the configuration and model lines come before the
/// search, which shows its progress.
#[test]
fn verify_prints_the_model_first_and_shows_progress() {
    let mut args = BRCP_ONE_POOL.to_vec();
    args.extend(["--search-limit", "40"]);
    let (code, tty) = on_terminal(&args);
    assert_eq!(code, Some(1), "{tty}");
    let model = tty
        .find("model: 64 visits")
        .unwrap_or_else(|| panic!("{tty}"));
    let bar = tty
        .find("/40 candidate cycles")
        .unwrap_or_else(|| panic!("{tty}"));
    let verdict = tty
        .find("DEPENDENCY CYCLE")
        .unwrap_or_else(|| panic!("{tty}"));
    assert!(model < bar && bar < verdict, "{tty}");
}

/// XY-path multicasts start at the origin only, so the scenario check
/// refuses them with random sources; `verify` needs only the network and
/// the scheme and checks it.
#[test]
fn verify_checks_xy_path_from_the_command_line() {
    let o = wormcast(&[
        "verify",
        "--set",
        "network.topology=mesh:4x4",
        "--set",
        "network.routing=dor",
        "--set",
        "traffic.multicast_scheme=xy-path",
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(out.contains("multicast scheme xy-path"), "{out}");
    // Network values are still checked.
    rejects(
        &["verify", "--set", "network.buffer_depth=99"],
        "network.buffer_depth",
        "99",
    );
}

/// SPAM's verdict says why its consumption channel count cannot matter.
#[test]
fn verify_spam_says_consumption_channels_do_not_matter() {
    let spam = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spam-8x8-mixed.toml");
    let mut models = Vec::new();
    for c in ["1", "3"] {
        let o = wormcast(&[
            "verify",
            "--scenario",
            spam,
            "--set",
            &format!("network.consumption_channels={c}"),
        ]);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(
            out.contains("model is the same for any number of consumption channels"),
            "{out}"
        );
        let model = out.lines().find(|l| l.starts_with("model:")).unwrap();
        models.push(model.split(", analysed").next().unwrap().to_string());
    }
    assert_eq!(models[0], models[1]);
}

/// `--engine verilator` says it is building, and where, before a first
/// build (which takes minutes on a large fabric), not on a cache hit; the
/// summary says the Verilog matched the native model and for how long.
/// One Verilator build of a 2×2 router module (about 30 s on a loaded
/// 2-core VM).
#[test]
fn verilator_engine_says_it_builds_and_that_it_matched() {
    let cache = tmp("verilator-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_wormcast"))
            .args([
                "run",
                "--engine",
                "verilator",
                "--verilator-build",
                "hierarchical",
                "--set",
                "network.topology=torus:2x2",
                "--set",
                "run.warmup=0",
                "--set",
                "run.cycles=300",
            ])
            .env("WORMCAST_CACHE_DIR", &cache)
            .output()
            .unwrap()
    };
    let first = run();
    let (out, err) = (String::from_utf8_lossy(&first.stdout), stderr(&first));
    assert_eq!(first.status.code(), Some(0), "{out}{err}");
    let building = err
        .lines()
        .find(|l| l.starts_with("engine verilator: building"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(building.contains(cache.to_str().unwrap()), "{building}");
    let cycles = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("cycles simulated"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        out.contains(&format!(
            "the generated Verilog matched the native model at every NI port for all {cycles} cycles"
        )),
        "{out}"
    );
    let second = run();
    let err2 = stderr(&second);
    assert_eq!(second.status.code(), Some(0), "{err2}");
    assert!(!err2.contains("engine verilator: building"), "{err2}");
    assert!(err2.contains("from the cache"), "{err2}");
    let _ = std::fs::remove_dir_all(&cache);
}
