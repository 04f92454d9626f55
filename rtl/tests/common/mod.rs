//! Tool plumbing shared by the rtl Verilog tests: whether a tool is
//! installed, and compiling and running a self-checking iverilog testbench.
//! Each test binary includes this module and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `tool` runs; prints a note when it does not, so a skipped check
/// is visible in the test output (CI installs every tool).
pub fn have(tool: &str) -> bool {
    let ok = Command::new(tool).arg("-V").output().is_ok();
    if !ok {
        eprintln!("note: {tool} not installed, check skipped");
    }
    ok
}

/// A fresh scratch directory for test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wormcast_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `src` with `iverilog -g2012` into `dir/a.vvp`; panics with
/// iverilog's message when it rejects the file.
pub fn iverilog(dir: &Path, src: &Path) -> PathBuf {
    let vvp = dir.join("a.vvp");
    let out = Command::new("iverilog")
        .args(["-g2012", "-o"])
        .arg(&vvp)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iverilog rejected {}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    vvp
}

/// Writes testbench `tb` to `dir/tb.v`, compiles and runs it, and returns
/// what it wrote to `dir/out.txt` (the testbench reads its vectors from
/// `dir/in.txt`, which the caller writes).
pub fn run_tb(dir: &Path, tb: &str) -> String {
    let src = dir.join("tb.v");
    std::fs::write(&src, tb).unwrap();
    let vvp = iverilog(dir, &src);
    let run = Command::new("vvp").arg(vvp).output().unwrap();
    assert!(
        run.status.success(),
        "vvp: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(dir.join("out.txt")).unwrap()
}
