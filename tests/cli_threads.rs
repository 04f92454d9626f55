//! `--threads` on `run` and `sweep` changes wall time only: every output
//! file of a 64×64 torus run loaded past saturation (hundreds of routers
//! active a cycle, so the threaded phases really run) is byte for byte the
//! one of the serial run, and a sweep's points are the same numbers for
//! any division of the cores.

mod common;
use common::{rejects, wormcast};

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-threads-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const BUSY: [&str; 10] = [
    "--set",
    "network.topology=torus:64x64",
    "--set",
    "traffic.rate=0.0002",
    "--set",
    "run.warmup=100",
    "--set",
    "run.cycles=500",
    "--set",
    "run.drain_cycles=0",
];

/// Drops the wall-clock figures of a run's JSON.
fn simulated(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("wall_seconds");
    o.remove("router_cycles_per_second");
    v
}

#[test]
fn run_outputs_are_the_same_bytes_on_one_and_two_threads() {
    let d = dir();
    let mut outs = Vec::new();
    for t in ["1", "2"] {
        let f = |n: &str| d.join(format!("t{t}-{n}"));
        let (json, csv, vcd, heat, replay) =
            (f("r.json"), f("m.csv"), f("w.vcd"), f("h.svg"), f("r.html"));
        let mut args = vec![
            "run",
            "-q",
            "--threads",
            t,
            "--json",
            json.to_str().unwrap(),
            "--messages",
            csv.to_str().unwrap(),
            "--vcd",
            vcd.to_str().unwrap(),
            "--vcd-routers",
            "0,0;1,0;5,7;63,63",
            "--heatmap",
            heat.to_str().unwrap(),
            "--replay",
            replay.to_str().unwrap(),
            "--replay-window",
            "200..260",
        ];
        args.extend(BUSY);
        let o = wormcast(&args);
        // Saturated on purpose: exit 1 ("saturated" / unfinished) or 0.
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{t} threads: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let read = |p: &std::path::Path| std::fs::read(p).unwrap();
        outs.push((
            simulated(&std::fs::read_to_string(&json).unwrap()),
            read(&csv),
            read(&vcd),
            read(&heat),
            read(&replay),
        ));
    }
    let (a, b) = (&outs[0], &outs[1]);
    assert!(a.0["delivered_messages"].as_u64().unwrap() > 50, "{}", a.0);
    assert_eq!(a.0, b.0, "report");
    assert!(a.1 == b.1, "message CSV differs");
    assert!(a.2 == b.2, "VCD differs");
    assert!(a.3 == b.3, "heat map differs");
    assert!(a.4 == b.4, "replay differs");
}

#[test]
fn sweep_points_are_the_same_for_any_core_count() {
    let d = dir();
    let mut points = Vec::new();
    for t in ["1", "2", "3"] {
        let json = d.join(format!("s{t}.json"));
        // One core: serial runs; more: two threads a run as well.
        let run_threads = if t == "1" {
            "run.threads=1"
        } else {
            "run.threads=2"
        };
        let mut args = vec![
            "sweep",
            "-q",
            "--threads",
            t,
            "--set",
            run_threads,
            "--loads",
            "0.00005,0.0002",
            "--json",
            json.to_str().unwrap(),
        ];
        args.extend(BUSY);
        let o = wormcast(&args);
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{t} cores: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        for p in v["points"].as_array_mut().unwrap() {
            let o = p.as_object_mut().unwrap();
            o.retain(|k, _| !k.contains("wall") && !k.contains("per_second"));
        }
        points.push(v["points"].clone());
    }
    assert_eq!(points[0].as_array().unwrap().len(), 2);
    assert_eq!(points[0], points[1]);
    assert_eq!(points[0], points[2]);
}

#[test]
fn zero_or_too_many_threads_are_refused_with_the_limit() {
    for bad in ["0", "257", "x"] {
        let o = wormcast(&["run", "-q", "--threads", bad]);
        assert_eq!(o.status.code(), Some(2), "--threads {bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("--threads"), "--threads {bad}: {e}");
    }
    let o = wormcast(&["run", "-q", "--set", "run.threads=1000"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("run.threads") && e.contains("1000") && e.contains("256"),
        "{e}"
    );
}

#[test]
fn bench_reports_the_threaded_share_and_can_force_the_threads() {
    // A 64×64 torus past saturation: thousands of routers active a cycle,
    // so cycles are large enough to thread.
    let d = dir();
    let sc = d.join("busy.toml");
    std::fs::write(
        &sc,
        "[network]\ntopology = \"torus:64x64\"\n[traffic]\nrate = 0.0002\n\
         [run]\nwarmup = 100\ncycles = 400\ndrain_cycles = 0\n",
    )
    .unwrap();
    let share = |timing: &str| -> Vec<serde_json::Value> {
        let out = d.join(format!("bench-{timing}.json"));
        let o = wormcast(&[
            "bench",
            "--threads",
            "1,2",
            "--repeat",
            "1",
            "--self-timing",
            timing,
            "--json",
            out.to_str().unwrap(),
            sc.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let table = String::from_utf8_lossy(&o.stdout);
        assert!(table.contains("core-to-core round trip"), "{table}");
        assert!(table.contains("threaded cycles"), "{table}");
        let rows: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["threaded_cycle_share"].clone())
            .collect()
    };
    // Serially there is no share; forced, every large cycle is threaded.
    let off = share("off");
    assert!(off[0].is_null(), "{off:?}");
    assert_eq!(off[1].as_f64(), Some(1.0), "{off:?}");
    // Timed, the serial probe keeps it below 1 whatever the machine.
    let on = share("on");
    let s = on[1].as_f64().expect("a share with 2 threads");
    assert!(s > 0.0 && s < 1.0, "{on:?}");
    rejects(
        &["bench", "--self-timing", "maybe", sc.to_str().unwrap()],
        "--self-timing",
        "maybe",
    );
}
