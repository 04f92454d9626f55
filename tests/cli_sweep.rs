//! `wormcast sweep` and `wormcast bench` from the outside: determinism across
//! thread counts, the plot, and bad input.

mod common;
use common::wormcast;

fn points(path: &std::path::Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["complete"], true);
    let mut pts = v["points"].as_array().unwrap().clone();
    for p in pts.iter_mut() {
        p.as_object_mut().unwrap().remove("wall_seconds");
    }
    pts
}

#[test]
fn sweep_is_identical_for_any_thread_count() {
    let dir = std::env::temp_dir().join(format!("wormcast-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let common = [
        "sweep",
        "--loads",
        "0.001..0.003/0.001",
        "--schemes",
        "dstm1,dstm2",
        "--set",
        "run.cycles=3000",
        "--set",
        "run.warmup=300",
        "--quiet",
    ];
    let mut outs = Vec::new();
    for t in ["1", "2"] {
        let json = dir.join(format!("t{t}.json"));
        let svg = dir.join(format!("t{t}.svg"));
        let mut args = common.to_vec();
        args.extend([
            "--threads",
            t,
            "--json",
            json.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ]);
        let o = wormcast(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("dstm2"),
            "plot has a legend entry per scheme"
        );
        outs.push(points(&json));
    }
    assert_eq!(outs[0].len(), 6);
    assert_eq!(outs[0], outs[1]);
    // Latency grows with load on each scheme.
    for s in 0..2 {
        let lat: Vec<f64> = outs[0][s * 3..s * 3 + 3]
            .iter()
            .map(|p| p["latency_mean_cycles"].as_f64().unwrap())
            .collect();
        assert!(lat[0] < lat[2], "{lat:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_rejects_bad_input() {
    for (args, needle) in [
        (vec!["sweep", "--loads", "0.003..0.001/0.001"], "--loads"),
        (vec!["sweep", "--loads", "abc"], "--loads"),
        (vec!["sweep", "--loads", "0.001..0.002/0"], "--loads"),
        (
            vec!["sweep", "--loads", "0.001", "--schemes", "dstm9"],
            "construction",
        ),
        (vec!["sweep", "--loads", "2.0"], "--loads"),
        (
            vec!["sweep", "--loads", "0.001", "--set", "traffic.bogus=1"],
            "bogus",
        ),
    ] {
        let o = wormcast(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn bench_runs_a_given_scenario() {
    let o = wormcast(&["bench", "--repeat", "1", "examples/bench-16x16-low.toml"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("bench-16x16-low") && out.contains("| 256 |"),
        "{out}"
    );
    let o = wormcast(&["bench", "--repeat", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn sweep_scheme_spam_runs_spam_routing() {
    let dir = std::env::temp_dir().join(format!("wormcast-sweep-spam-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("spam.json");
    let o = wormcast(&[
        "sweep",
        "--loads",
        "0.002",
        "--schemes",
        "spam,spam:dstm2,dstm1",
        "--set",
        "run.cycles=2000",
        "--set",
        "run.warmup=200",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 3);
    for p in pts {
        assert_eq!(p["scoreboard_clean"], true, "{p}");
        assert_eq!(p["deadlock"], false, "{p}");
    }
    // SPAM and DSTM differ, so the scheme really changed the routing.
    assert_ne!(pts[0]["latency_mean_cycles"], pts[2]["latency_mean_cycles"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_mesh_schemes_set_their_routing() {
    let dir = std::env::temp_dir().join(format!("wormcast-sweep-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("mesh.json");
    let schemes = "dual-path,multi-path,ocms,otms,brcp-pure,brcp-minimal,column-path";
    let o = wormcast(&[
        "sweep",
        "--loads",
        "0.002",
        "--schemes",
        schemes,
        "--set",
        "network.topology=\"mesh:6x6\"",
        "--set",
        "network.consumption_channels=4",
        "--set",
        "traffic.multicast_fraction=0.5",
        "--set",
        "run.cycles=2000",
        "--set",
        "run.warmup=200",
        "--threads",
        "2",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pts = points(&json);
    assert_eq!(pts.len(), 7);
    for p in &pts {
        assert_eq!(p["scoreboard_clean"], true, "{p}");
        assert_eq!(p["deadlock"], false, "{p}");
        assert_eq!(p["stop_reason"], "drained", "{p}");
    }
    // Different schemes, different worms: not all latencies equal.
    let lat: Vec<String> = pts
        .iter()
        .map(|p| p["latency_mean_cycles"].to_string())
        .collect();
    assert!(lat.iter().any(|l| l != &lat[0]), "{lat:?}");
    // A mesh scheme on a torus is refused with the scheme named (the
    // routing it would set is no part of the user's input).
    let o = wormcast(&[
        "sweep",
        "--loads",
        "0.001",
        "--schemes",
        "brcp-pure",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--schemes") && err.contains("the scheme `brcp-pure` needs a mesh scenario"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `sweep --shard I/N` then `sweep-merge`: the merged JSON is the unsharded
/// sweep's (the points' `wall_seconds` aside, which no two runs share) and
/// the plot is byte for byte the same; the merge refuses a missing, a
/// doubled, a foreign and an unsharded shard.
#[test]
fn sharded_sweep_merges_into_the_unsharded_one() {
    let dir = std::env::temp_dir().join(format!("wormcast-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let common = [
        "sweep",
        "--loads",
        "0.001..0.003/0.001",
        "--schemes",
        "dstm1,dstm2",
        "--set",
        "run.cycles=3000",
        "--set",
        "run.warmup=300",
        "--quiet",
    ];
    let run = |extra: &[&str]| {
        let mut a = common.to_vec();
        a.extend(extra);
        let o = wormcast(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["--json", &p("full.json"), "--plot", &p("full.svg")]);
    for i in 0..4 {
        run(&[
            "--shard",
            &format!("{i}/4"),
            "--json",
            &p(&format!("s{i}.json")),
        ]);
    }
    let o = wormcast(&[
        "sweep-merge",
        &p("s3.json"),
        &p("s1.json"),
        &p("s0.json"),
        &p("s2.json"),
        "--json",
        &p("m.json"),
        "--plot",
        &p("m.svg"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(p("full.svg")).unwrap(),
        std::fs::read(p("m.svg")).unwrap(),
        "merged plot = unsharded plot"
    );
    let strip = |f: &str| -> serde_json::Value {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p(f)).unwrap()).unwrap();
        for pt in v["points"].as_array_mut().unwrap() {
            pt.as_object_mut().unwrap().remove("wall_seconds");
        }
        v
    };
    let (full, merged) = (strip("full.json"), strip("m.json"));
    assert_eq!(full["points"].as_array().unwrap().len(), 6);
    assert_eq!(full, merged, "merged JSON = unsharded JSON");
    assert!(merged.get("shard").is_none());
    // Each shard holds its round-robin slice.
    let s1 = strip("s1.json");
    assert_eq!(s1["shard"]["point_indices"], serde_json::json!([1, 5]));
    assert_eq!(s1["points"][0], full["points"][1]);
    // Bad merges: exit 2 with a message that names the problem.
    run(&[
        "--set",
        "run.cycles=2000",
        "--shard",
        "1/4",
        "--json",
        &p("other.json"),
    ]);
    for (files, needle) in [
        (
            vec!["s0.json", "s1.json", "s3.json"],
            "missing shard(s) 2 of 4",
        ),
        (
            vec!["s0.json", "s0.json", "s1.json", "s2.json"],
            "given twice",
        ),
        (
            vec!["s0.json", "other.json", "s2.json", "s3.json"],
            "another sweep",
        ),
        (vec!["full.json"], "without `--shard I/N`"),
        (vec!["nope.json"], "cannot read shard"),
    ] {
        let mut a = vec!["sweep-merge".to_string()];
        a.extend(files.iter().map(|f| p(f)));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = wormcast(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{files:?}: {err}");
        assert!(err.contains(needle), "{files:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    for bad in ["4/4", "0/0", "x"] {
        let mut a = common.to_vec();
        a.extend(["--shard", bad]);
        let o = wormcast(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("--shard") && err.contains(bad), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
