//! Running the `wormcast` binary from integration tests: one definition of
//! the invocation and of the bad-input contract (exit 2, the message names
//! field and value, never a panic).

#![allow(dead_code)] // each test file uses its own subset

use std::process::{Command, Output};

/// Runs `wormcast ARGS…` and returns its output.
pub fn wormcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .expect("run wormcast")
}

/// Exit code 2 and a message naming the field and value, no panic.
pub fn rejects(args: &[&str], field: &str, value: &str) {
    let o = wormcast(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(field) && err.contains(value),
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
