//! Issue 17 §2–3 from the command line: `run --heatmap` and `run --replay`
//! write their files, and bad input is a clear error (exit 2, the flag and
//! value named, no panic) that still leaves the run's other outputs.

mod common;
use common::wormcast;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-cli-sight-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const SHORT: [&str; 8] = [
    "--set",
    "run.warmup=100",
    "--set",
    "run.cycles=1500",
    "--set",
    "traffic.rate=0.004",
    "--set",
    "run.drain_cycles=0",
];

#[test]
fn heatmap_is_an_svg_with_a_panel_per_tree_and_a_legend() {
    let svg = tmp("heat.svg");
    let mut args = vec!["run", "-q", "--heatmap", svg.to_str().unwrap()];
    args.extend(SHORT);
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert!(text.contains("class 0:") && text.contains("class 1:"));
    assert!(text.contains("flits per cycle") && text.contains("accepted messages"));
    // One arrowhead per wired link direction of the 8×8 DSTM-1 torus.
    assert_eq!(text.matches("<polygon").count(), 252);
}

#[test]
fn unwritable_heatmap_fails_before_the_run() {
    let o = wormcast(&["run", "-q", "--heatmap", "/nonexistent-dir/h.svg"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("heat map /nonexistent-dir/h.svg"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn sweep_draws_one_heatmap_per_point() {
    let dir = tmp("sweep-heat");
    let _ = std::fs::remove_dir_all(&dir);
    let o = wormcast(&[
        "sweep",
        "-q",
        "--loads",
        "0.002,0.004",
        "--schemes",
        "dstm1,spam",
        "--set",
        "run.warmup=100",
        "--set",
        "run.cycles=1000",
        "--heatmap-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "dstm1-load-0.002.svg",
            "dstm1-load-0.004.svg",
            "spam-load-0.002.svg",
            "spam-load-0.004.svg"
        ]
    );
    let spam = std::fs::read_to_string(dir.join("spam-load-0.004.svg")).unwrap();
    assert!(spam.contains("spam(bfs)") && spam.contains("</svg>"));
    // A file where the directory should be: refused before any point runs.
    let file = tmp("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = wormcast(&[
        "sweep",
        "-q",
        "--loads",
        "0.002",
        "--heatmap-dir",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--heatmap-dir") && err.contains("not-a-dir"),
        "{err}"
    );
}
