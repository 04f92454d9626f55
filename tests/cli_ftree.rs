//! `wormcast ftree` from the outside: the Fig. 7(a) multicast, a tiny sweep
//! with its plot and JSON, and bad flags (exit 2, field and value named).

use std::process::Output;

mod common;

fn run(args: &[&str]) -> Output {
    common::wormcast(&[&["ftree"], args].concat())
}

fn rejects(args: &[&str], field: &str, value: &str) {
    common::rejects(&[&["ftree"], args].concat(), field, value)
}

#[test]
fn fig7a_from_the_command_line() {
    let o = run(&[
        "--mesh",
        "20x14",
        "--source",
        "0,0",
        "--dest-list",
        "17,7;5,10;12,11",
        "--fault-list",
        "5,5;6,6;7,7;8,6;9,7;10,6;10,5",
        "--strategy",
        "2",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("strategy 2: traffic 35 (multiple unicast 62)"),
        "{out}"
    );
    assert!(out.contains("(4,4) -> (4,8) (11,4)"), "{out}");
}

#[test]
fn small_sweep_writes_json_and_plot() {
    let dir = std::env::temp_dir().join(format!("wormcast-ftree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, svg) = (dir.join("f.json"), dir.join("f.svg"));
    let o = run(&[
        "--mesh",
        "24x24",
        "--fig11",
        "--step",
        "60",
        "--trials",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 9, "3 fault counts × dests 0, 60, 120");
    for p in pts {
        let mu = p["unicast"].as_f64().unwrap();
        for s in p["traffic"].as_array().unwrap() {
            assert!(s.as_f64().unwrap() <= mu);
        }
    }
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

#[test]
fn bad_flags_exit_2() {
    rejects(&["--strategy", "4"], "strategy", "4");
    rejects(&["--mesh", "1x5"], "mesh", "1x5");
    rejects(&["--keep", "all"], "keep", "all");
    rejects(&["--trials", "0"], "trials", "0");
    rejects(&["--mesh", "8x8", "--faults", "63"], "faults", "63");
    rejects(&["--source", "9,9", "--mesh", "8x8"], "source", "9,9");
    rejects(&["--dest-list", "1,1"], "source", "random");
    rejects(
        &[
            "--mesh",
            "8x8",
            "--source",
            "0,0",
            "--dest-list",
            "3,3",
            "--fault-list",
            "3,3",
        ],
        "destination",
        "3,3",
    );
    rejects(
        &["--mesh", "8x8", "--source", "0,0", "--dest-list", "0,0"],
        "destination",
        "0,0",
    );
    rejects(&["--mesh", "8x8", "--plot", "x.svg"], "plot", "x.svg");
}
