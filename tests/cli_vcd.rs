//! `wormcast run --vcd`: option errors reach the user as messages naming the
//! flag (exit 2, no file left behind), and a good run writes a VCD.

use std::path::PathBuf;
use std::process::Command;

fn wormcast() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
}

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/multicast-split.toml")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-cli-vcd-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Removes a test's file, and the per-process directory once it is empty.
fn cleanup(f: &std::path::Path) {
    let _ = std::fs::remove_file(f);
    let _ = std::fs::remove_dir(f.parent().unwrap());
}

#[test]
fn bad_vcd_options_are_reported_and_leave_no_file() {
    let cases: [(&[&str], &str); 4] = [
        (&["--vcd-window", "20..10"], "--vcd-window"),
        (&["--vcd-window", "ten"], "--vcd-window"),
        (&["--vcd-routers", "4,0"], "--vcd-routers"),
        (&["--vcd-routers", "0,0;banana"], "--vcd-routers"),
    ];
    for (k, (args, flag)) in cases.iter().enumerate() {
        let out = tmp(&format!("bad{k}.vcd"));
        let o = wormcast()
            .arg("run")
            .arg("--scenario")
            .arg(example())
            .arg("--vcd")
            .arg(&out)
            .args(*args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(args[1]), "{err}");
        assert!(!out.exists(), "{args:?} left a file");
    }
}

#[test]
fn large_network_needs_a_router_list() {
    let out = tmp("large.vcd");
    let o = wormcast()
        .args(["run", "--set", "network.topology=torus:16x16", "--vcd"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--vcd-routers") && err.contains("256 routers"),
        "{err}"
    );
}

#[test]
fn unwritable_path_is_an_error_not_a_panic() {
    let o = wormcast()
        .arg("run")
        .arg("--scenario")
        .arg(example())
        .args(["--vcd", "/nonexistent-dir/x.vcd"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write VCD"), "{err}");
}

#[test]
fn example_writes_a_vcd() {
    let out = tmp("ok.vcd");
    let o = wormcast()
        .arg("run")
        .arg("--scenario")
        .arg(example())
        .arg("-q")
        .arg("--vcd")
        .arg(&out)
        .args(["--vcd-routers", "2,0;3,0", "--vcd-window", "0..60"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("$scope module r_2_0 $end"));
    assert!(text.contains("$scope module r_3_0 $end"));
    assert!(!text.contains("r_0_0"));
    assert!(text.trim_end().ends_with("#60"), "ends at the window end");
    cleanup(&out);
}

/// Ctrl-C stops the run after the current cycle: the summary is printed, the
/// VCD is complete (ends with a timestamp line), and the status is 130.
#[cfg(unix)]
#[test]
fn ctrl_c_finishes_the_vcd() {
    let out = tmp("interrupted.vcd");
    let child = wormcast()
        .args(["run", "--set", "run.cycles=1000000000"])
        .args(["--set", "traffic.rate=0.005", "--vcd"])
        .arg(&out)
        .args(["--vcd-routers", "0,0;1,1", "--vcd-window", "0.."])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Give it time to install its handler and fill a few write buffers.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("interrupted"), "{summary}");
    // The file ends with the end marker one cycle after the last simulated
    // cycle, not somewhere in the middle of a buffer.
    let cycles: u64 = summary
        .lines()
        .find_map(|l| l.trim().strip_prefix("cycles simulated"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("cycles simulated in the summary");
    let text = std::fs::read_to_string(&out).unwrap();
    let last = text.lines().last().unwrap();
    assert_eq!(last, format!("#{}", cycles + 1), "VCD finished");
    cleanup(&out);
}
