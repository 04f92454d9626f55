//! `wormcast mtree` from the outside: the thesis's worked examples, mean
//! curves with JSON and plot (same bits at any thread count), the thesis
//! comparison on a small run, the K-set search, and bad flags (exit 2,
//! field and value named).

use std::process::Output;

mod common;

fn run(args: &[&str]) -> Output {
    common::wormcast(&[&["mtree"], args].concat())
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn rejects(args: &[&str], field: &str, value: &str) {
    common::rejects(&[&["mtree"], args].concat(), field, value)
}

const EXAMPLE: &str = "0,2;3,0;4,0;4,6;6,6;7,4";

#[test]
fn thesis_worked_examples_from_the_command_line() {
    // Thesis §3.2 Example 3.2.1.1 on the 8×8 mesh and torus.
    let mesh = ok(&["--grid", "mesh:8x8", "--dest-list", EXAMPLE]);
    for line in [
        "VH: traffic 25 (AAT 19), time 13",
        "DIAG: traffic 21 (AAT 15), time 12",
        "DDS: traffic 17 (AAT 11), time 13",
    ] {
        assert!(mesh.contains(line), "{line} in\n{mesh}");
    }
    // The DIAG tree's diagonal path through (4,4), (5,4) (thesis text).
    assert!(mesh.contains("(4,4) -> (5,4)@9 (4,5)@10"), "{mesh}");
    let torus = ok(&[
        "--grid",
        "torus:8x8",
        "--alg",
        "diag,vh,dds",
        "--dest-list",
        EXAMPLE,
    ]);
    for line in [
        "DIAG: traffic 17 (AAT 11), time 6",
        "VH: traffic 18 (AAT 12), time 6",
        "DDS: traffic 16 (AAT 10), time 6",
    ] {
        assert!(torus.contains(line), "{line} in\n{torus}");
    }
    assert!(!torus.contains("MIN"), "--alg selects: {torus}");
    // 3-D example 3.2.1.2.
    let m3 = ok(&[
        "--grid",
        "mesh:5x5x5",
        "--alg",
        "diag,dds",
        "--dest-list",
        "0,3,0;1,3,0;1,4,2;2,3,0;3,1,0;4,3,3",
    ]);
    assert!(m3.contains("DIAG: traffic 20 (AAT 14), time 10"), "{m3}");
    assert!(m3.contains("DDS: traffic 16 (AAT 10), time 11"), "{m3}");
}

#[test]
fn source_anywhere_splits_into_submeshes() {
    // From the middle of a 7×7 mesh to its four corners, 6 hops each: the
    // mesh splits into four submeshes whose origins are the source and its
    // neighbours (2,3), (3,2), and (2,2) behind (2,3), so one link is
    // shared and every algorithm uses 4 · 6 − 1 = 23 links.
    let out = ok(&[
        "--grid",
        "mesh:7x7",
        "--source",
        "3,3",
        "--dest-list",
        "0,0;6,0;0,6;6,6",
    ]);
    for alg in ["VH", "DIAG", "DDS"] {
        assert!(
            out.contains(&format!("{alg}: traffic 23 (AAT 19)")),
            "{out}"
        );
    }
}

#[test]
fn curves_with_json_and_plot_are_deterministic() {
    let dir = std::env::temp_dir().join(format!("wormcast-mtree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (j1, j2, svg) = (dir.join("a.json"), dir.join("b.json"), dir.join("c.svg"));
    let args = |j: &std::path::Path| {
        vec![
            "--grid".to_string(),
            "mesh:8x8".into(),
            "--ks".into(),
            "5..60:5".into(),
            "--runs".into(),
            "30".into(),
            "--seed".into(),
            "3".into(),
            "--json".into(),
            j.to_str().unwrap().into(),
        ]
    };
    let a1: Vec<String> = args(&j1)
        .into_iter()
        .chain(["--plot".into(), svg.to_str().unwrap().into()])
        .collect();
    let o1 = common::wormcast(
        &std::iter::once("mtree")
            .chain(a1.iter().map(String::as_str))
            .collect::<Vec<_>>(),
    );
    assert!(
        o1.status.success(),
        "{}",
        String::from_utf8_lossy(&o1.stderr)
    );
    // Same flags on one thread: the K points have their own RNG streams.
    let a2 = args(&j2);
    let o2 = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .arg("mtree")
        .args(&a2)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(o2.status.success());
    assert_eq!(o1.stdout, o2.stdout);
    assert_eq!(std::fs::read(&j1).unwrap(), std::fs::read(&j2).unwrap());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j1).unwrap()).unwrap();
    let curve = v["curve"].as_array().unwrap();
    assert_eq!(curve.len(), 12);
    // At K = 60 of 63 nodes every tree is nearly spanning: traffic between
    // K and N − 1, VH's no lower than DIAG's (VH's AAT is the largest).
    let last = &curve[11];
    assert_eq!(last["k"], 60);
    let tr: Vec<f64> = (0..4)
        .map(|i| last["traffic"][i].as_f64().unwrap())
        .collect();
    assert!(tr.iter().all(|&t| (60.0..=63.0).contains(&t)), "{tr:?}");
    assert!(tr[0] >= tr[1], "{tr:?}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.contains("<svg") && plot.contains("AAT") && plot.contains("DIAG"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn thesis_comparison_and_k_fit_on_small_runs() {
    // 10 runs per K: the comparison table has every thesis mean of the
    // grid, each with its ratio, and the ratio rows side by side.
    let out = ok(&["--grid", "torus:20x20", "--thesis", "--runs", "10"]);
    for row in [
        "| 4.2.6 | traffic VH | 313.84 |",
        "| 4.2.7 | time MIN | 23.69 |",
        "| 4.2.8 | AAT DDS | 47.30 |",
        "| traffic DIAG/VH | 4.2.6 | 0.815 |",
        "| time MIN/DDS | 4.2.7 | 1.000 |",
    ] {
        assert!(out.contains(row), "{row} in\n{out}");
    }
    // VH's torus traffic depends only on the samples, which match the
    // thesis's to 0.02 % at 1000 runs; at 10 runs still within 2 %.
    let vh = out
        .lines()
        .find(|l| l.starts_with("| 4.2.6 | traffic VH"))
        .unwrap();
    let ratio: f64 = vh.split('|').nth(5).unwrap().trim().parse().unwrap();
    assert!((ratio - 1.0).abs() < 0.02, "{vh}");
    let fit = ok(&["--grid", "mesh:20x20", "--fit-k", "--runs", "3"]);
    let rows: Vec<&str> = fit.lines().filter(|l| l.contains(", …, ")).collect();
    assert_eq!(rows.len(), 5, "{fit}");
    let worst = |l: &str| -> f64 { l.split('|').nth(3).unwrap().trim().parse().unwrap() };
    assert!(
        rows.windows(2).all(|w| worst(w[0]) <= worst(w[1])),
        "sorted by worst ratio: {fit}"
    );
}

#[test]
fn bad_flags_name_field_and_value() {
    rejects(&["--grid", "cube:4x4"], "grid", "cube:4x4");
    rejects(&["--grid", "mesh:1x4"], "side K (x) is `1`", "`mesh:1x4`");
    rejects(
        &["--grid", "mesh:4x4x4x4"],
        "dimensions is `4`",
        "`mesh:4x4x4x4`",
    );
    rejects(&["--alg", "bfs"], "alg", "bfs");
    rejects(&["--wraps", "middle"], "wraps", "middle");
    rejects(&["--sampler", "gauss"], "sampler", "gauss");
    rejects(&["--ks", "10..5"], "ks", "10..5");
    rejects(&["--grid", "mesh:8x8", "--ks", "1..64"], "ks", "1..64");
    rejects(&["--ks", "1..9:0"], "ks", "1..9:0");
    rejects(&["--runs", "0"], "runs", "0");
    rejects(&["--grid", "mesh:8x8", "--thesis"], "grid", "mesh:8x8");
    rejects(&["--source", "1,1"], "source", "1,1");
    rejects(
        &["--grid", "mesh:8x8", "--dest-list", "1,1;8,0"],
        "destination",
        "(8,0)",
    );
    rejects(
        &["--grid", "mesh:8x8", "--dest-list", "1,1;2"],
        "destination",
        "2",
    );
    rejects(
        &["--grid", "mesh:8x8", "--dest-list", "1,1;1,1"],
        "destination",
        "(1,1)",
    );
    rejects(
        &[
            "--grid",
            "mesh:8x8",
            "--source",
            "9,9",
            "--dest-list",
            "1,1",
        ],
        "source",
        "9,9",
    );
}
