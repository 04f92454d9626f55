//! `wormcast run` on traces (docs/scenario.md, "Trace replay"): the
//! example runs clean with every output (JSON, message records, VCD, heat
//! map, HTML replay), paths resolve as documented, a netrace file written
//! by the tests replays, and bad traces or a sweep over a trace are
//! refused with the file, line and what is allowed.

mod common;
#[path = "../sim/tests/common/netrace_file.rs"]
mod netrace_file;

use common::{rejects, wormcast};
use std::path::PathBuf;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-cli-trace-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(p: &PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn the_example_trace_runs_clean_with_every_output() {
    let d = dir();
    let out = |n: &str| d.join(n).to_string_lossy().into_owned();
    let o = wormcast(&[
        "run",
        "--scenario",
        "examples/trace.toml",
        "--json",
        &out("r.json"),
        "--messages",
        &out("m.csv"),
        "--vcd",
        &out("w.vcd"),
        "--heatmap",
        &out("h.svg"),
        "--replay",
        &out("r.html"),
        "--replay-window",
        "0..",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("trace complete") && stdout.contains("15 messages (11 dependencies)"),
        "{stdout}"
    );
    let j = json(&d.join("r.json"));
    assert_eq!(j["stop_reason"], "trace complete");
    let t = &j["trace"];
    assert_eq!(
        (t["messages"].as_u64(), t["delivered"].as_u64()),
        (Some(15), Some(15))
    );
    assert_eq!(t["completion_cycle"], j["cycles"]);
    assert_eq!(t["format"], "text");
    // 15 messages, one CSV row each plus the header.
    assert_eq!(
        std::fs::read_to_string(d.join("m.csv"))
            .unwrap()
            .lines()
            .count(),
        16
    );
    let vcd = std::fs::read_to_string(d.join("w.vcd")).unwrap();
    assert!(
        vcd.contains("$enddefinitions") && vcd.contains("#100"),
        "{}",
        vcd.len()
    );
    assert!(std::fs::read_to_string(d.join("h.svg"))
        .unwrap()
        .contains("<svg"));
    assert!(std::fs::read_to_string(d.join("r.html")).unwrap().len() > 1000);
}

#[test]
fn a_trace_in_a_file_is_beside_it_and_one_from_set_is_where_the_command_runs() {
    // examples/trace.toml names `trace-small.txt`: beside the scenario.
    let o = wormcast(&[
        "run",
        "--scenario",
        "examples/trace.toml",
        "--dump-scenario",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("trace = \"examples/trace-small.txt\""),
        "{text}"
    );
    // From --set: relative to the working directory (the package root).
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.pattern=trace",
        "--set",
        "traffic.trace=examples/trace-small.txt",
        "--set",
        "run.warmup=0",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_netrace_file_replays_from_the_command_line() {
    let d = dir();
    let p = |cycle, id, ty, src, dst, deps: &[u32]| netrace_file::NtPacket {
        cycle,
        id,
        ty,
        src,
        dst,
        deps: deps.to_vec(),
    };
    let packets = [
        p(0, 1, 1, 0, 27, &[2]),
        p(1, 2, 2, 27, 0, &[]),
        p(4, 3, 6, 63, 8, &[]),
    ];
    let f = d.join("cli.tra.bz2");
    std::fs::write(&f, netrace_file::file(&Default::default(), &packets)).unwrap();
    let j = d.join("nt.json");
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.pattern=trace",
        "--set",
        &format!("traffic.trace={}", f.display()),
        "--set",
        "traffic.trace_format=netrace",
        "--set",
        "run.warmup=0",
        "--json",
        &j.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = json(&j);
    assert_eq!(j["trace"]["benchmark"], "unit-test");
    assert_eq!(j["trace"]["delivered"], 3);
    assert_eq!(j["trace"]["dependencies"], 1);
}

#[test]
fn bad_traces_and_a_sweep_over_a_trace_are_refused() {
    let d = dir();
    let bad = d.join("bad.txt");
    std::fs::write(&bad, "# fine\n0 0,0 1,1 4\n5 0,0 1,1 four\n").unwrap();
    let set = format!("traffic.trace={}", bad.display());
    rejects(
        &["run", "--set", "traffic.pattern=trace", "--set", &set],
        "line 3: length",
        "four",
    );
    let outside = d.join("outside.txt");
    std::fs::write(&outside, "0 0,0 8,0 4\n").unwrap();
    let set = format!("traffic.trace={}", outside.display());
    rejects(
        &["run", "--set", "traffic.pattern=trace", "--set", &set],
        "line 1: destinations",
        "8,0",
    );
    rejects(
        &[
            "sweep",
            "--scenario",
            "examples/trace.toml",
            "--loads",
            "0.01,0.02",
        ],
        "traffic.pattern",
        "wormcast run",
    );
    rejects(
        &[
            "run",
            "--scenario",
            "examples/trace.toml",
            "--set",
            "traffic.rate=0.05",
        ],
        "traffic.rate",
        "0.05",
    );
}
