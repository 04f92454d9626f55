//! Fuzzing the command line end to end: every subcommand with a random
//! subset of its own flags (read from the clap definition, so new flags
//! join by themselves) and values from a pool of plausible and hostile
//! ones, run as a process. `src/fuzz_cli.rs` fuzzes the parser alone; this
//! harness runs what parses. Invariant: exit status 0, 1 or 2 only, a
//! message on stderr with status 2, no panic, and an end within
//! [`CASE_LIMIT`]. `WORMCAST_FUZZ_RUN_CASES` sets the case count
//! (default 24; `scripts/fuzz.sh` runs more), `WORMCAST_FUZZ_RUN_LOG` a
//! file that gets one line per case; docs/reliability.md has the figures.
//!
//! `bench` and `crosscheck` are left out: they run fixed benchmark
//! scenarios for minutes by design. `mtree` gets `--trials 2` first (its
//! default, 1 000 trials on a 20×20 mesh, takes 40 s).

use clap::CommandFactory;
use proptest::prelude::*;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wormcast::cli::Cli;

/// The longest one case may run before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(90);

const SUBCOMMANDS: &[&str] = &[
    "run",
    "sweep",
    "sweep-merge",
    "trees",
    "route",
    "ftree",
    "mtree",
    "verify",
    "verilog",
];

/// Values tried for any flag that takes one: well-formed small ones, and
/// hostile ones (empty, negative, overflowing, not a number, unicode,
/// paths that cannot be written).
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "",
    "18446744073709551616",
    "nan",
    "1e-9",
    "0.001",
    "0.5",
    "torus:4x4",
    "torus:3x3",
    "mesh:4x4",
    "mesh:3x5",
    "4x4",
    "torus:0x0",
    "0,0",
    "1,1",
    "3,3",
    "9,9",
    "1,1;2,2",
    "2..4",
    "5..2",
    "dstm1",
    "dstm2,spam",
    "spam",
    "dual-path",
    "all",
    "run.cycles=100",
    "run.warmup=0",
    "traffic.rate=0.5",
    "traffic.rate=2",
    "network.topology=torus:3x3",
    "network.topology=mesh:4x4",
    "network.routing=dor",
    "nonsense.key=1",
    "-",
    "out.json",
    "out/",
    "/nonexistent/dir/x",
    "/dev/full",
    "\u{1F600}",
    "a\nb",
];

/// Every flag of `sub`: its long name, whether it takes a value, and its
/// listed values (value enums).
fn flags(sub: &str) -> Vec<(String, bool, Vec<String>)> {
    let cmd = Cli::command();
    let sc = cmd.find_subcommand(sub).expect("subcommand");
    sc.get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?.to_string();
            if long == "help" || long == "version" {
                return None;
            }
            let takes = a.get_action().takes_values();
            let values = a
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect();
            Some((long, takes, values))
        })
        .collect()
}

fn cases() -> u32 {
    std::env::var("WORMCAST_FUZZ_RUN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

/// Runs one argv in a fresh directory (relative output paths land there),
/// stdin closed; returns status, stderr and wall time, or `None` on a
/// hang (the process is killed).
fn run_case(argv: &[String]) -> Option<(Option<i32>, String, Duration)> {
    let dir = std::env::temp_dir().join(format!(
        "wormcast-fuzz-runs-{}-{}",
        std::process::id(),
        argv.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let t0 = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(argv)
        .current_dir(&dir)
        .env("WORMCAST_CACHE_DIR", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr = String::from_utf8_lossy(&reader.join().unwrap()).to_string();
            let _ = std::fs::remove_dir_all(&dir);
            return Some((status.code(), stderr, t0.elapsed()));
        }
        if t0.elapsed() > CASE_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(&dir);
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A subcommand and picks of (flag, value) by index, resolved against the
/// clap definition inside the test.
fn case() -> impl Strategy<Value = (usize, Vec<(usize, usize, bool)>)> {
    (
        0..SUBCOMMANDS.len(),
        prop::collection::vec((any::<usize>(), any::<usize>(), any::<bool>()), 0..6),
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        // A shrink re-runs processes: keep it short.
        max_shrink_iters: 32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn flag_combinations_exit_cleanly((sub, picks) in case()) {
        let sub = SUBCOMMANDS[sub];
        let fl = flags(sub);
        let mut argv = vec![sub.to_string()];
        if sub == "mtree" {
            argv.extend(["--trials".to_string(), "2".to_string()]);
        }
        for (f, v, listed) in picks {
            let (long, takes, values) = &fl[f % fl.len()];
            argv.push(format!("--{long}"));
            if *takes {
                // A listed value (enums) or one of the pool.
                let value = if listed && !values.is_empty() {
                    values[v % values.len()].clone()
                } else {
                    VALUES[v % VALUES.len()].to_string()
                };
                argv.push(value);
            }
        }
        let Some((code, stderr, took)) = run_case(&argv) else {
            panic!("{argv:?}: still running after {CASE_LIMIT:?}");
        };
        // `WORMCAST_FUZZ_RUN_LOG=FILE`: one line per case (status, seconds,
        // subcommand), for the figures of docs/reliability.md.
        if let Ok(log) = std::env::var("WORMCAST_FUZZ_RUN_LOG") {
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().append(true).create(true).open(log) {
                let _ = writeln!(f, "{code:?} {:.2} {sub}", took.as_secs_f64());
            }
        }
        prop_assert!(!stderr.contains("panicked"), "{argv:?}: {stderr}");
        prop_assert!(
            matches!(code, Some(0..=2)),
            "{argv:?}: exit {code:?} after {took:?}: {stderr}"
        );
        if code == Some(2) {
            prop_assert!(!stderr.trim().is_empty(), "{argv:?}: exit 2 without a message");
        }
    }
}

/// The flag lists come from clap and are not empty: a renamed subcommand
/// would otherwise drop out of the fuzz unnoticed.
#[test]
fn every_fuzzed_subcommand_has_flags() {
    for sub in SUBCOMMANDS {
        assert!(!flags(sub).is_empty(), "{sub}");
    }
}
