//! `wormcast ftree --greedy`: \[FTTREE\] Fig. 8(b), the greedy optimal
//! multicast tree of one source and destination set, from the command line.
//! The edges are those `sim/tests/ftmesh_examples.rs::fig8b_greedy_edges`
//! checks on the library; traffic and multiple unicast follow from them.

use std::process::Output;

mod common;

fn run(args: &[&str]) -> Output {
    common::wormcast(&[&["ftree"], args].concat())
}

#[test]
fn fig8b_greedy_tree_from_the_command_line() {
    let json = std::env::temp_dir().join(format!("wormcast-greedy-{}.json", std::process::id()));
    let o = run(&[
        "--mesh",
        "8x8",
        "--greedy",
        "--source",
        "0,0",
        "--dest-list",
        "1,2;3,5;5,4;7,3",
        "--json",
        json.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for e in [
        "(0,0) -> (1,2)  3 steps",
        "(1,2) -> (3,3)  3 steps",
        "(3,3) -> (3,4)  1 steps",
        "(3,4) -> (3,5)  1 steps",
        "(3,4) -> (5,4)  2 steps",
        "(3,3) -> (7,3)  4 steps",
    ] {
        assert!(out.contains(e), "{e}: {out}");
    }
    assert_eq!(out.matches(" -> ").count(), 6, "{out}");
    // 3+3+1+1+2+4 steps; unicast 3+8+9+10.
    assert!(
        out.contains("traffic steps 14, multiple unicast 30"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["traffic"], 14);
    assert_eq!(doc["unicast"], 30);
    assert_eq!(doc["edges"].as_array().unwrap().len(), 6);
    let _ = std::fs::remove_file(&json);
}

#[test]
fn greedy_with_faults_keeps_minimal_paths() {
    // A 2x2 faulty block at (2..3, 2..3) (the disable rule joins the two
    // faults): (3,3) is no longer a split point, the tree detours.
    let o = run(&[
        "--mesh",
        "8x8",
        "--greedy",
        "--source",
        "0,0",
        "--dest-list",
        "1,2;3,5;5,4;7,3",
        "--fault-list",
        "2,3;3,2",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("1 faulty blocks"), "{out}");
    assert!(!out.contains("(3,3)"), "{out}");
    assert!(out.contains("multiple unicast 30"), "{out}");
}

#[test]
fn greedy_bad_input() {
    common::rejects(
        &[
            "ftree",
            "--mesh",
            "8x8",
            "--greedy",
            "--source",
            "2,2",
            "--dest-list",
            "1,2",
        ],
        "destination",
        "1,2",
    );
    common::rejects(
        &[
            "ftree",
            "--mesh",
            "8x8",
            "--greedy",
            "--source",
            "random",
            "--dest-list",
            "1,2",
        ],
        "source",
        "random",
    );
    // --greedy without destinations is a usage error (clap, exit 2).
    let o = run(&["--mesh", "8x8", "--greedy", "--source", "0,0"]);
    assert_eq!(o.status.code(), Some(2));
}
