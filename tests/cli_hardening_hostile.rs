//! Hostile input from the command line: every refusal names the field or
//! flag, quotes the value and says what is allowed, exits with status 2 and
//! leaves no output behind; a failed run says why even when quiet.

mod common;
use common::{rejects, wormcast};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The topology error quotes the whole value typed, then names the side.
#[test]
fn topology_error_quotes_the_whole_value() {
    let args = ["run", "--set", "network.topology=torus:2x1"];
    rejects(&args, "network.topology", "`torus:2x1`");
    let err = stderr(&wormcast(&args));
    assert!(err.contains("rows (M) is `1`"), "{err}");
    assert!(err.contains("from 2 to 256"), "{err}");
}

/// `-q` silences the summary, not the reason for a non-zero exit.
#[test]
fn quiet_failures_still_say_why() {
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.length=1000000",
        "--set",
        "run.cycles=200",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("still unfinished after"), "{err}");
    assert!(o.stdout.is_empty());

    let deadlock = "examples/deadlock-shared-consumption.toml";
    let o = wormcast(&["run", "-q", "--scenario", deadlock]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("deadlocked"), "{err}");

    let o = wormcast(&[
        "sweep",
        "-q",
        "--scenario",
        deadlock,
        "--loads",
        "0.02",
        "--threads",
        "1",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 of 1 points failed: dstm1 at load 0.02 (deadlock)"),
        "{err}"
    );
}
