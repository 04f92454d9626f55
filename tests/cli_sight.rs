//! Heat maps and replays from the command line: `run --heatmap` and `run --replay`
//! write their files, and bad input is a clear error (exit 2, the flag and
//! value named, no panic) that still leaves the run's other outputs.

mod common;
use common::{rejects, wormcast};
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
    assert!(text.contains("flits per cycle") && text.contains("accepted msgs/node/cycle"));
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
        // A range: its third load is 0.0006000000000000001 in floating
        // point, named 0.0006.
        "0.0002..0.0006/0.0002",
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
            "dstm1-load-0.0002.svg",
            "dstm1-load-0.0004.svg",
            "dstm1-load-0.0006.svg",
            "spam-load-0.0002.svg",
            "spam-load-0.0004.svg",
            "spam-load-0.0006.svg"
        ]
    );
    let spam = std::fs::read_to_string(dir.join("spam-load-0.0006.svg")).unwrap();
    assert!(spam.contains("spam(bfs)") && spam.contains("</svg>"));
    // A file where the directory should be: refused before any point runs.
    let file = tmp("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    rejects(
        &[
            "sweep",
            "-q",
            "--loads",
            "0.002",
            "--heatmap-dir",
            file.to_str().unwrap(),
        ],
        "--heatmap-dir",
        "not-a-dir",
    );
}

/// The texts of an SVG, in order (plotters writes one `<text>` per label).
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()]
                .trim()
                .to_string()
        })
        .collect()
}

/// A newcomer reads a heat map without the docs: the unit of the load in
/// the title, which cycles the links count (warm-up and drain excluded by
/// default, included on request), node coordinates on both axes with the
/// direction of x and y, and a key for grey (sparse) nodes.
#[test]
fn heatmap_says_its_units_cycles_and_coordinates() {
    let svg = tmp("heat-axes.svg");
    let mut args = vec!["run", "-q", "--heatmap", svg.to_str().unwrap()];
    args.extend(SHORT);
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(t[0].contains("offered 0.004 msgs/node/cycle"), "{t:?}");
    assert!(
        t.iter()
            .any(|s| s.contains("cycles 100..1600") && s.contains("warm-up and drain excluded")),
        "{t:?}"
    );
    // Per panel: x labels 0..7 and y labels 0..7, and the arrows of x and y.
    for n in 0..8 {
        // Two panels, two axes; the two legend bars start at 0 too.
        let want = if n == 0 { 2 * 2 + 2 } else { 2 * 2 };
        assert_eq!(
            t.iter().filter(|s| **s == n.to_string()).count(),
            want,
            "label {n}"
        );
    }
    assert_eq!(t.iter().filter(|s| s.as_str() == "x \u{2192}").count(), 2);
    assert_eq!(t.iter().filter(|s| s.as_str() == "y \u{2191}").count(), 2);
    assert!(
        t.iter().any(|s| s.starts_with("grey: offered fewer than")),
        "{t:?}"
    );
    let mut args = vec![
        "run",
        "-q",
        "--heatmap",
        svg.to_str().unwrap(),
        "--heatmap-window",
        "all",
    ];
    args.extend(SHORT);
    assert!(wormcast(&args).status.success());
    let t = texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(
        t.iter()
            .any(|s| s.contains("cycles 0..1600") && s.contains("included")),
        "{t:?}"
    );
    rejects(
        &[
            "run",
            "-q",
            "--heatmap",
            svg.to_str().unwrap(),
            "--heatmap-scale",
            "2",
        ],
        "--heatmap-scale",
        "common",
    );
}

/// The link legend's top (its last tick) of a heat map file.
fn link_top(path: &std::path::Path) -> String {
    let t = texts(&std::fs::read_to_string(path).unwrap());
    let i = t
        .iter()
        .position(|s| s.starts_with("link: flits per cycle"))
        .unwrap();
    t[i + 3].clone()
}

/// A sweep's maps share one colour scale by default, so they compare by
/// eye; `--heatmap-scale auto` gives each its own, a number fixes it.
#[test]
fn sweep_heatmaps_share_one_scale() {
    let run = |scale: &str| {
        let dir = tmp(&format!("sweep-scale-{scale}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut args = vec![
            "sweep",
            "-q",
            "--loads",
            "0.001,0.008",
            "--set",
            "run.warmup=100",
            "--set",
            "run.cycles=1000",
            "--heatmap-dir",
            dir.to_str().unwrap(),
        ];
        if !scale.is_empty() {
            args.extend(["--heatmap-scale", scale]);
        }
        let o = wormcast(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            link_top(&dir.join("dstm1-load-0.001.svg")),
            link_top(&dir.join("dstm1-load-0.008.svg")),
        )
    };
    let (a, b) = run("");
    assert_eq!(a, b, "one scale across the sweep");
    let (a, b) = run("auto");
    assert_ne!(a, b, "each map its own");
    assert_eq!(run("0.7"), ("0.70".to_string(), "0.70".to_string()));
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn bad_replay_options_are_refused_before_the_run() {
    let page = tmp("never.html");
    for (window, why) in [
        ("abc", "no `..`"),
        ("30..10", "A must be below B"),
        ("x..10", "A is not a cycle number"),
        ("9000..9100", "the run has 300 cycles"),
    ] {
        let o = wormcast(&[
            "run",
            "-q",
            "--scenario",
            &example("multicast-split.toml"),
            "--replay",
            page.to_str().unwrap(),
            "--replay-window",
            window,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{window}: {err}");
        assert!(
            err.contains(&format!("--replay-window = `{window}`")),
            "{err}"
        );
        assert!(
            err.contains(why) && err.contains("allowed: `A..B`"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!page.exists(), "{window}: no file before the run");
    }
    let o = wormcast(&["run", "-q", "--replay", "/nonexistent-dir/r.html"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("replay /nonexistent-dir/r.html"), "{err}");
    rejects(
        &[
            "run",
            "-q",
            "--replay",
            page.to_str().unwrap(),
            "--replay-max-mb",
            "0",
        ],
        "--replay-max-mb",
        "0",
    );
}

/// The run drains at about cycle 60 of its planned 300: a window after
/// that is an error naming the flag, but the JSON is still written.
#[test]
fn replay_window_after_an_early_end_still_writes_the_other_outputs() {
    let page = tmp("late.html");
    let json = tmp("late.json");
    let o = wormcast(&[
        "run",
        "-q",
        "--scenario",
        &example("multicast-split.toml"),
        "--replay",
        page.to_str().unwrap(),
        "--replay-window",
        "200..250",
        "--json",
        json.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--replay-window = `200..250`: the run stopped at cycle"),
        "{err}"
    );
    assert!(err.contains("(drained)"), "{err}");
    let report = std::fs::read_to_string(&json).unwrap();
    assert!(report.contains("\"stop_reason\": \"drained\""), "{report}");
}

/// Past the size limit: the page keeps the cycles before it and says so,
/// the command fails naming the flag, the JSON is written.
#[test]
fn replay_size_limit_truncates_with_an_error() {
    let page = tmp("big.html");
    let json = tmp("big.json");
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.rate=0.01",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=4000",
        "--set",
        "run.drain_cycles=0",
        "--replay",
        page.to_str().unwrap(),
        "--replay-window",
        "0..",
        "--replay-max-mb",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the trace reached --replay-max-mb = 1 at cycle"),
        "{err}"
    );
    assert!(err.contains("allowed: raise --replay-max-mb"), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.len() > 900_000 && html.len() < 1_100_000,
        "{}",
        html.len()
    );
    assert!(html.contains("\"truncated_at\":") && !html.contains("\"truncated_at\":null"));
    assert!(std::fs::read_to_string(&json)
        .unwrap()
        .contains("\"cycles\": 4000"));
}
