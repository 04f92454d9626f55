//! Command-line tests of `wormcast trees` and `wormcast route` (torus trees
//! and mesh schemes).

mod common;
use common::{rejects, wormcast as run};

fn json(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

#[test]
fn trees_json_has_computed_checks_and_metrics() {
    for (topo, cons) in [
        ("torus:8x8", "dstm1"),
        ("torus:8x8", "dstm2"),
        ("torus:5x7", "+x+y/-y-x"),
        ("torus:2x3", "dstm2"),
    ] {
        let v = json(&[
            "trees",
            "--topology",
            topo,
            "--construction",
            cons,
            "--json",
        ]);
        assert_eq!(v["spanning"], true, "{topo} {cons}");
        assert_eq!(v["edge_disjoint"], true);
        assert_eq!(v["unused_edges"], 2);
        assert_eq!(v["unused_edge_list"].as_array().unwrap().len(), 2);
        assert!(v["max_children"].as_u64().unwrap() <= 2);
        assert!(v["combined_diameter"].as_u64().unwrap() > 0);
        assert!(v["average_distance"].as_f64().unwrap() > 0.0);
        assert_eq!(v["topology"], topo);
    }
    let v = json(&["trees", "--topology", "torus:9x9", "--json"]);
    assert_eq!(v["combined_diameter"], 17);
    let v = json(&[
        "trees",
        "--topology",
        "torus:8x8",
        "--construction",
        "dstm2",
        "--json",
    ]);
    assert_eq!(v["combined_diameter"], 14, "Theorem 5.2: 2√N − 2");
    assert_eq!(v["root_choice"], "start");
}

#[test]
fn trees_table_and_text() {
    let o = run(&["trees", "--topology", "torus:4x4"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(
        s.contains("combined diameter") && s.contains("edge-disjoint"),
        "{s}"
    );
    let o = run(&["trees", "--table", "4..6"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert_eq!(s.lines().count(), 5, "{s}");
    assert!(
        s.lines().nth(2).unwrap().starts_with("| 4 | 6 | 7 |"),
        "{s}"
    );
}

#[test]
fn route_unicast_and_multicast() {
    let v = json(&[
        "route",
        "--topology",
        "torus:6x6",
        "--source",
        "0,0",
        "--dest",
        "3,4",
        "--json",
    ]);
    assert_eq!(v["headers"].as_array().unwrap().len(), 1);
    assert_eq!(v["headers"][0]["x"], 3);
    assert_eq!(v["headers"][0]["y"], 4);
    assert_eq!(v["headers"][0]["c"], true);
    assert_eq!(v["consumers"], serde_json::json!([[3, 4]]));
    let hops = v["hops"].as_u64().unwrap();
    assert_eq!(v["links"].as_array().unwrap().len() as u64, hops);

    let args = [
        "route",
        "--topology",
        "torus:6x6",
        "--construction",
        "dstm2",
        "--source",
        "1,1",
        "--dest",
        "5,5",
        "--dest",
        "0,3",
        "--dest",
        "2,2",
        "--json",
        "--seed",
        "9",
    ];
    let v = json(&args);
    assert_eq!(v["consumers"].as_array().unwrap().len(), 3);
    assert!(v["tree"] == 0 || v["tree"] == 1);
    assert_eq!(json(&args), v, "same seed, same output");
    let mut forced = args.to_vec();
    forced.extend(["--tree", "1"]);
    assert_eq!(json(&forced)["tree"], 1);

    let o = run(&[
        "route",
        "--topology",
        "torus:4x4",
        "--source",
        "0,0",
        "--dest",
        "1,1",
    ]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && s.contains("hop count"), "{s}");
}

#[test]
fn bad_input_is_exit_2_with_a_named_field() {
    rejects(&["trees", "--topology", "mesh:4x4"], "topology", "mesh:4x4");
    rejects(&["trees", "--topology", "torus:1x4"], "columns", "1");
    rejects(
        &[
            "trees",
            "--topology",
            "torus:4x4",
            "--construction",
            "dstm9",
        ],
        "construction",
        "dstm9",
    );
    rejects(
        &["trees", "--topology", "torus:4x4", "--r1", "4,4"],
        "r1",
        "4,4",
    );
    rejects(&["trees", "--table", "9..3"], "table", "9..3");
    let base = ["route", "--topology", "torus:4x4", "--source", "0,0"];
    let with = |extra: &[&'static str]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    rejects(&with(&["--dest", "0,0"]), "dest", "0,0");
    rejects(&with(&["--dest", "9,1"]), "dest", "9,1");
    rejects(&with(&["--dest", "x"]), "dest", "x");
    rejects(&with(&["--dest", "1,1", "--tree", "2"]), "tree", "2");
    rejects(
        &with(&["--dest", "1,1", "--scheme", "diag"]),
        "scheme",
        "torus:4x4",
    );
    // Mesh: bad scheme for the routing, bad routing, faulty source.
    let mesh = ["route", "--topology", "mesh:6x6", "--source", "0,0"];
    let on_mesh = |extra: &[&'static str]| {
        let mut v = mesh.to_vec();
        v.extend_from_slice(extra);
        v
    };
    rejects(
        &on_mesh(&[
            "--dest",
            "2,2",
            "--scheme",
            "diag",
            "--routing",
            "hamiltonian",
        ]),
        "scheme",
        "diag",
    );
    rejects(
        &on_mesh(&["--dest", "2,2", "--routing", "tree"]),
        "routing",
        "tree",
    );
    rejects(
        &on_mesh(&["--dest", "2,2", "--scheme", "ft-s3", "--faulty-node", "0,0"]),
        "source",
        "0,0",
    );
    rejects(&on_mesh(&["--dest", "2,2", "--tree", "0"]), "tree", "0");
}

/// On a mesh every scheme's worms are walked through the routers and
/// together deliver every destination exactly once.
#[test]
fn route_on_a_mesh_walks_every_worm() {
    let dests = ["0,2", "3,0", "4,0", "4,6", "6,6", "7,4"];
    for (scheme, routing, worms) in [
        // VH from a corner under XY is the union of XY paths: one worm.
        ("vh", "dor", Some(1)),
        ("diag", "dor", None),
        ("dds", "negative_first", None),
        ("dual-path", "hamiltonian", Some(1)),
        ("brcp-minimal", "negative_first", None),
    ] {
        let mut args = vec![
            "route",
            "--topology",
            "mesh:8x8",
            "--routing",
            routing,
            "--scheme",
            scheme,
            "--source",
            "0,0",
            "--json",
        ];
        for d in &dests {
            args.extend(["--dest", d]);
        }
        let v = json(&args);
        let ws = v["worms"].as_array().unwrap();
        if let Some(n) = worms {
            assert_eq!(ws.len(), n, "{scheme}: {v}");
        }
        let mut got: Vec<String> = ws
            .iter()
            .flat_map(|w| w["consumed"].as_array().unwrap().clone())
            .map(|c| format!("{},{}", c[0], c[1]))
            .collect();
        got.sort();
        let mut want: Vec<String> = dests.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{scheme}");
        // VH's single worm uses exactly the tree's 25 links (thesis example).
        if scheme == "vh" {
            assert_eq!(ws[0]["links"].as_array().unwrap().len(), 25);
        }
    }
    // [FTTREE] around a faulty block: no worm touches a blocked node.
    let v = json(&[
        "route",
        "--topology",
        "mesh:8x8",
        "--scheme",
        "ft-s3",
        "--faulty-node",
        "3,3",
        "--faulty-node",
        "4,4",
        "--source",
        "0,0",
        "--dest",
        "6,6",
        "--dest",
        "2,7",
        "--dest",
        "5,2",
        "--json",
    ]);
    for w in v["worms"].as_array().unwrap() {
        for l in w["links"].as_array().unwrap() {
            for end in l.as_array().unwrap() {
                let (x, y) = (end[0].as_u64().unwrap(), end[1].as_u64().unwrap());
                // (3,3), (4,4) and the disabled (3,4), (4,3).
                assert!(!((3..=4).contains(&x) && (3..=4).contains(&y)), "{v}");
            }
        }
    }
}
