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
