//! Command-line hardening from the outside: output failures, `-` for stdout, output paths
//! checked before simulating, signals, bounds, error wording, summary
//! counts, rejected nonsense and the help text. Every run here is short.

mod common;
use common::{rejects, wormcast};
use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-hard-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A tiny scenario file for `bench`.
fn tiny_scenario() -> PathBuf {
    let p = tmp("tiny.toml");
    std::fs::write(&p, "[run]\nwarmup = 0\ncycles = 300\ndrain_cycles = 2000\n").unwrap();
    p
}

/// One quick invocation of every subcommand that prints to stdout.
fn every_command() -> Vec<Vec<String>> {
    let out = tmp("verilog-out");
    let tiny = tiny_scenario();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["trees", "--topology", "torus:8x8"]),
        v(&[
            "route",
            "--topology",
            "torus:4x4",
            "--source",
            "0,0",
            "--dest",
            "1,1",
        ]),
        v(&["mtree", "--grid", "mesh:8x8", "--dest-list", "1,1;2,5"]),
        v(&["ftree", "--mesh", "10x10", "--dests", "3", "--trials", "2"]),
        v(&["run", "--set", "run.warmup=0", "--set", "run.cycles=300"]),
        v(&[
            "sweep",
            "-q",
            "--loads",
            "0.001",
            "--threads",
            "1",
            "--set",
            "run.warmup=0",
            "--set",
            "run.cycles=300",
        ]),
        v(&["bench", "--repeat", "1", tiny.to_str().unwrap()]),
        v(&["verilog", "--router", "--out", out.to_str().unwrap()]),
    ]
}

fn no_panic(o: &Output, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_ne!(o.status.code(), Some(101), "{what}: {err}");
}

/// A full disk on stdout is a clear error with exit 2, never a panic.
#[test]
fn stdout_on_a_full_disk_is_exit_2() {
    for args in every_command() {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let o = bin().args(&args).stdout(full).output().unwrap();
        no_panic(&o, &args[0]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
    }
}

/// A closed pipe ends quietly (0 if everything fitted in the pipe
/// before it closed, 141 otherwise), never with a panic.
#[test]
fn closed_pipe_ends_quietly() {
    for args in every_command() {
        let mut c = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(c.stdout.take()); // the reader is gone before any output
        let o = c.wait_with_output().unwrap();
        no_panic(&o, &args[0]);
        let code = o.status.code();
        assert!(
            code == Some(0) || code == Some(141),
            "{args:?}: {code:?} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stderr.is_empty() || !String::from_utf8_lossy(&o.stderr).contains("error"));
    }
}

/// An output file that cannot be written is found before the
/// simulation (which here would take minutes), with exit 2.
#[test]
fn unwritable_outputs_are_found_before_simulating() {
    let long = "run.cycles=1000000000";
    for flag in ["--json", "--messages", "--vcd"] {
        let mut c = bin()
            .args(["run", "--set", long, flag, "/nonexistent-dir/x.out"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = wait_at_most(&mut c, Duration::from_secs(20), flag);
        no_panic(&o, flag);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/x.out"),
            "{flag}"
        );
    }
    for args in [
        vec![
            "sweep",
            "--loads",
            "0.001",
            "--set",
            long,
            "--plot",
            "/nonexistent-dir/p.svg",
        ],
        vec![
            "sweep",
            "--loads",
            "0.001",
            "--set",
            long,
            "--json",
            "/nonexistent-dir/p.json",
        ],
        vec![
            "ftree",
            "--fig10",
            "--trials",
            "1000000",
            "--json",
            "/nonexistent-dir/f.json",
        ],
        vec![
            "mtree",
            "--runs",
            "100000000",
            "--plot",
            "/nonexistent-dir/m.svg",
        ],
    ] {
        let mut c = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = wait_at_most(&mut c, Duration::from_secs(20), args[0]);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/"));
    }
}

/// A write that still fails at the end (disk full) leaves the
/// summary printed, exit 2.
#[test]
fn failed_json_write_still_prints_the_summary() {
    let o = wormcast(&[
        "run",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=300",
        "--json",
        "/dev/full",
    ]);
    no_panic(&o, "run");
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("wormcast run:") && out.contains("messages"),
        "{out}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write JSON /dev/full"));
}

/// `-` is stdout for every JSON output; the human text goes to
/// stderr, so stdout parses as JSON and no file named `-` appears.
#[test]
fn dash_is_stdout_and_parses_as_json() {
    let dir = tmp("dash");
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = tiny_scenario();
    for (args, human) in [
        (
            vec![
                "run",
                "--set",
                "run.warmup=0",
                "--set",
                "run.cycles=300",
                "--json",
                "-",
            ],
            "wormcast run:",
        ),
        (
            vec![
                "sweep",
                "-q",
                "--loads",
                "0.001",
                "--set",
                "run.warmup=0",
                "--set",
                "run.cycles=300",
                "--json",
                "-",
            ],
            "| scheme |",
        ),
        (
            vec![
                "bench",
                "--repeat",
                "1",
                tiny.to_str().unwrap(),
                "--json",
                "-",
            ],
            "| scenario |",
        ),
    ] {
        let o = bin().args(&args).current_dir(&dir).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&o.stdout)));
        assert!(v.is_object() || v.is_array());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(human),
            "{args:?}"
        );
        assert!(!dir.join("-").exists(), "{args:?} wrote a file named -");
    }
    // Two outputs cannot share stdout.
    let o = wormcast(&["run", "--json", "-", "--messages", "-"]);
    assert_eq!(o.status.code(), Some(2));
}

fn wait_at_most(c: &mut Child, limit: Duration, what: &str) -> Output {
    let t = Instant::now();
    while c.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = c.kill();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = Output {
        status: c.wait().unwrap(),
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    use std::io::Read;
    if let Some(mut s) = c.stdout.take() {
        s.read_to_end(&mut out.stdout).unwrap();
    }
    if let Some(mut s) = c.stderr.take() {
        s.read_to_end(&mut out.stderr).unwrap();
    }
    out
}

/// Waits (up to 20 s) until the child catches SIGTERM (bit 15 of SigCgt in
/// /proc), so the test does not depend on how fast a loaded machine starts
/// the program.
fn wait_for_handler(c: &Child) {
    let t = Instant::now();
    let status = format!("/proc/{}/status", c.id());
    loop {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                let l = s.lines().find(|l| l.starts_with("SigCgt:"))?.to_string();
                u64::from_str_radix(l.split_whitespace().nth(1)?, 16).ok()
            })
            .is_some_and(|mask| mask >> (15 - 1) & 1 == 1);
        if caught {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "no SIGTERM handler");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// SIGTERM (a scheduler's time limit) and a doubled SIGINT (what
/// `timeout` sends) stop a run that would take hours; the JSON and the
/// summary of what was simulated are still written.
#[test]
fn signals_still_write_the_partial_run() {
    for signals in [&["-TERM"][..], &["-INT", "-INT"][..]] {
        let json = tmp(&format!("sig{}.json", signals.len()));
        let _ = std::fs::remove_file(&json);
        let mut c = bin()
            .args(["run", "--set", "run.cycles=1000000000", "--json"])
            .arg(&json)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_handler(&c);
        std::thread::sleep(Duration::from_millis(300));
        for s in signals {
            let ok = Command::new("kill")
                .args([*s, &c.id().to_string()])
                .status()
                .unwrap();
            assert!(ok.success());
        }
        let o = wait_at_most(&mut c, Duration::from_secs(30), signals[0]);
        assert_eq!(o.status.code(), Some(130), "{signals:?}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON written")).unwrap();
        assert_eq!(v["stop_reason"], "interrupted");
        let cycles = v["cycles"].as_u64().unwrap();
        assert!(cycles > 0 && cycles < 1_000_000_000);
        assert_eq!(
            v["window_cycles"].as_u64().unwrap(),
            cycles.saturating_sub(2000),
            "simulated window"
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("of 1000000000 planned"), "{out}");
    }
}

/// Bounded run lengths, errors that name the key
/// (never the "built-in default scenario"), no Rust debug text, small tori
/// on the defaults.
#[test]
fn scenario_errors_from_the_command_line() {
    for (set, field, value) in [
        (
            "run.warmup=9223372036854775807",
            "run.warmup",
            "9223372036854775807",
        ),
        (
            "run.drain_cycles=9223372036854775807",
            "run.drain_cycles",
            "9223372036854775807",
        ),
        ("traffic.rate=abc", "traffic.rate", "abc"),
        ("network.nonsense=1", "network.nonsense", "1"),
        ("traffic.seed=-1", "traffic.seed", "-1"),
        (
            "traffic.destinations=[0,3]",
            "traffic.destinations",
            "[0, 3]",
        ),
    ] {
        let args = ["run", "--set", set];
        rejects(&args, field, value);
        let err = String::from_utf8_lossy(&wormcast(&args).stderr).to_string();
        assert!(!err.contains("built-in default"), "{err}");
        assert!(!err.contains("Range(") && !err.contains("Fixed("), "{err}");
    }
    // Both huge: rejected, not wrapped into a 19 998-cycle run.
    let o = wormcast(&[
        "run",
        "--set",
        "run.warmup=9223372036854775807",
        "--set",
        "run.drain_cycles=9223372036854775807",
    ]);
    assert_eq!(o.status.code(), Some(2));
    for topo in ["torus:2x2", "torus:3x3"] {
        let set = format!("network.topology={topo}");
        let o = wormcast(&["run", "-q", "--set", &set, "--set", "run.cycles=2000"]);
        assert!(
            o.status.success(),
            "{topo}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A bad value in a scenario file is reported with its line and
/// column; the same value from `--set` names the flag.
#[test]
fn file_errors_have_line_and_column() {
    let f = tmp("bad-rate.toml");
    std::fs::write(
        &f,
        "[network]\ntopology = \"torus:8x8\"\n\n[traffic]\n  rate = -1.0\n",
    )
    .unwrap();
    let o = wormcast(&["run", "--scenario", f.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("traffic.rate") && err.contains("line 5, column 3"),
        "{err}"
    );
    let o = wormcast(&["run", "--set", "traffic.rate=2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("from --set traffic.rate=2"), "{err}");
}

fn summary(sets: &[&str]) -> String {
    let mut args = vec!["run"];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = wormcast(&args);
    no_panic(&o, "run");
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// The number before `word` in the summary's messages line.
fn count(s: &str, word: &str) -> u64 {
    let line = s
        .lines()
        .find(|l| l.trim_start().starts_with("messages"))
        .unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| w.trim_end_matches(',') == word)
        .unwrap();
    words[i - 1].parse().unwrap()
}

/// The summary's counts add up, name their units and settings.
#[test]
fn summary_counts_and_units() {
    let s = summary(&["traffic.length=1000000", "run.cycles=100", "run.warmup=0"]);
    let (created, unfinished) = (count(&s, "created"), count(&s, "unfinished"));
    assert!(unfinished <= created, "{s}");
    assert_eq!(
        created,
        count(&s, "delivered") + count(&s, "lost") + unfinished,
        "{s}"
    );
    assert!(s.contains("queued or in flight"), "{s}");
    let s = summary(&["run.drain_cycles=0", "run.cycles=300", "run.warmup=0"]);
    assert!(
        s.contains("end of window") && !s.contains("end of drain"),
        "{s}"
    );
    let s = summary(&[
        "traffic.multicast_fraction=0",
        "run.cycles=300",
        "run.warmup=0",
    ]);
    assert!(s.contains("latency multicast     no samples"), "{s}");
    assert!(
        s.contains("rate 0.002 msgs/node/cycle")
            && s.contains("0 % multicast")
            && s.contains("16 data flits"),
        "{s}"
    );
    assert!(
        s.contains("flits/node/cycle") && s.contains("msgs/node/cycle"),
        "{s}"
    );
}

/// Nonsense is rejected, naming the flag.
#[test]
fn nonsense_is_rejected() {
    rejects(
        &["ftree", "--mesh", "50x50", "--dests", "5000"],
        "dests",
        "5000",
    );
    rejects(
        &["sweep", "--loads", "0.001", "--threads", "0"],
        "threads",
        "0",
    );
    rejects(
        &[
            "route",
            "--topology",
            "torus:4x4",
            "--source",
            "0,0",
            "--dest",
            "1,1",
            "--dest",
            "1,1",
        ],
        "dest",
        "1,1",
    );
}

/// Help text and the node ids `route` prints.
#[test]
fn help_and_route_node_ids() {
    let h = String::from_utf8_lossy(&wormcast(&["verilog", "--help"]).stdout).to_string();
    assert!(h.contains("mesh") && h.contains("SPAM"), "{h}");
    let h = String::from_utf8_lossy(&wormcast(&["route", "--help"]).stdout).to_string();
    assert!(h.contains("mesh:KxM"), "{h}");
    let o = wormcast(&[
        "route",
        "--topology",
        "torus:8x8",
        "--source",
        "0,0",
        "--dest",
        "3,4",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // docs/conventions.md: node id = y·K + x.
    assert_eq!(v["headers"][0]["node"], 4 * 8 + 3);
    assert!(v["headers"][0]["label"].is_u64());
    let o = wormcast(&[
        "route",
        "--topology",
        "torus:8x8",
        "--source",
        "0,0",
        "--dest",
        "3,4",
    ]);
    let s = String::from_utf8_lossy(&o.stdout);
    let row = s.lines().find(|l| l.contains("(3,4)")).unwrap();
    assert_eq!(row.split_whitespace().next(), Some("35"), "{s}");
}

/// The repository's own loose ends.
#[test]
fn docs_loose_ends() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let readme = read("README.md");
    assert!(
        !readme.contains("../"),
        "README points outside the repository"
    );
    assert!(readme.contains("AAT"), "README hides the AAT deviations");
    assert!(read("Cargo.toml").contains("rust-version = \"1.95\""));
    assert_eq!(
        read("docs/scenario.md")
            .matches("random tree ([DSTM] §3.2.1)")
            .count(),
        1
    );
    let ignore = read(".gitignore");
    for f in [
        "/report.json",
        "/split.vcd",
        "/sweep.json",
        "/sweep.svg",
        "/thesis.svg",
        "/out",
    ] {
        assert!(ignore.lines().any(|l| l == f), "{f} not ignored");
    }
}

/// Tables print nodes as `(x,y)`, never Rust debug text.
#[test]
fn no_debug_text_in_tables() {
    for args in [
        vec!["trees", "--topology", "torus:4x4"],
        vec![
            "trees",
            "--topology",
            "torus:4x4",
            "--construction",
            "tarjan-best:1:3",
        ],
        vec![
            "ftree",
            "--mesh",
            "8x8",
            "--source",
            "0,0",
            "--dest-list",
            "3,3;5,6",
            "--fault-list",
            "2,2",
        ],
    ] {
        let o = wormcast(&args);
        assert!(o.status.success(), "{args:?}");
        let s = String::from_utf8_lossy(&o.stdout);
        for debug in ["[0, 0]", "Some(", "None", "[]", "(0, 0)"] {
            assert!(!s.contains(debug), "{debug} in {args:?}:\n{s}");
        }
    }
}

/// An endless scenario input (`/dev/zero`) is refused at the size cap
/// with the limit named, by every command that reads a scenario, instead
/// of being read until memory runs out. Timed only to turn a regression
/// (a hang) into a failure.
#[test]
fn endless_scenario_input_is_refused_at_the_cap() {
    let cmds: [&[&str]; 3] = [&["run"], &["sweep", "--loads", "0.001"], &["verify"]];
    for cmd in cmds {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(wormcast(&[cmd, &["--scenario", "/dev/zero"]].concat()));
        });
        let o = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("{cmd:?} --scenario /dev/zero did not return"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(
            err.contains("/dev/zero") && err.contains("64 MiB") && !err.contains("panicked"),
            "{cmd:?}: {err}"
        );
    }
}
