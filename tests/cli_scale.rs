//! The network size limit ("Scaling"): `topology::MAX_SIDE` is
//! 256, the side of a square of `MAX_NODES` = 2^16 nodes (16-bit tree hop
//! counts). 128×128 tori and meshes build and run, side 257 is refused with
//! an error naming the field, the value and the rule, SPAM routing is
//! refused above its table memory bound, and a 128×128 fabric stays within
//! a few KiB per router.

mod common;
use common::{rejects, wormcast};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-scale-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// `wormcast run --json -` with `sets`; the parsed report.
fn run_json(sets: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", "--json", "-"];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = wormcast(&args);
    assert!(
        o.status.success(),
        "{sets:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

/// A clean run: every injected message delivered, nothing wrong.
fn assert_clean(r: &serde_json::Value, topo: &str) {
    assert_eq!(r["topology"], topo);
    assert_eq!(r["stop_reason"], "drained", "{r}");
    assert_eq!(r["deadlock"], false);
    assert_eq!(r["router_errors"], 0);
    assert_eq!(r["lost_messages"], 0);
    assert_eq!(r["misdelivered"], 0);
    assert_eq!(r["corrupted_flits"], 0);
    let injected = r["injected_messages"].as_u64().unwrap();
    assert!(injected > 0, "{r}");
    assert_eq!(r["delivered_messages"].as_u64().unwrap(), injected);
    assert!(r["flit_hops"].as_u64().unwrap() > 0);
}

#[test]
fn torus_128x128_builds_and_runs() {
    let r = run_json(&[
        "network.topology=torus:128x128",
        "network.construction=dstm1",
        "traffic.rate=0.00005",
        "run.warmup=0",
        "run.cycles=300",
        "run.drain_cycles=20000",
    ]);
    assert_clean(&r, "torus:128x128");
}

#[test]
fn mesh_128x128_builds_and_runs() {
    let r = run_json(&[
        "network.topology=mesh:128x128",
        "network.routing=dor",
        "traffic.rate=0.00005",
        "run.warmup=0",
        "run.cycles=300",
        "run.drain_cycles=20000",
    ]);
    assert_clean(&r, "mesh:128x128");
}

#[test]
fn side_above_the_limit_is_refused() {
    // The scenario names its own field; the rule names the side.
    for (topo, side) in [("torus:257x257", "columns (K)"), ("mesh:8x257", "rows (M)")] {
        let set = format!("network.topology={topo}");
        rejects(
            &["run", "--set", &set],
            "network.topology",
            &format!("`{topo}`"),
        );
        let o = wormcast(&["run", "--set", &set]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!(
                "{side} is `257`; {side} must be an integer from 2 to 256"
            )) && err.contains("65536 nodes"),
            "{err}"
        );
    }
    // The library error quotes the whole value and names the side.
    let e = wormcast_sim::topology::Topology::parse("torus:257x8").unwrap_err();
    assert_eq!(e.field, "topology");
    assert!(e.allowed.starts_with("columns (K) is `257`"), "{e}");
    assert_eq!(e.value, "torus:257x8");
    // The largest side itself is accepted by the parser.
    assert!(wormcast_sim::topology::Topology::parse("torus:256x256").is_ok());
    assert_eq!(wormcast_sim::topology::MAX_SIDE, 256);
}

#[test]
fn spam_above_its_table_bound_is_refused() {
    let o = wormcast(&[
        "run",
        "--set",
        "network.topology=torus:65x64",
        "--set",
        "network.routing=spam",
        "--set",
        "network.construction=bfs",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("network.topology")
            && err.contains("torus:65x64")
            && err.contains("at most 4096 nodes"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The memory bound of `topology::MAX_NODES`: the fabric is linear in the
/// router count, about 2.5 KiB per router on a 128×128 torus (peak RSS of
/// the whole process, read by `wormcast bench`). The test allows 4 KiB per
/// router, 64 MiB at 128×128, so 256×256 stays near 256 MiB at worst.
#[test]
fn peak_memory_per_router_at_128x128() {
    let sc = tmp("torus-128.toml");
    std::fs::write(
        &sc,
        "[network]\ntopology = \"torus:128x128\"\nconstruction = \"dstm1\"\n\
         [traffic]\nrate = 0.000005\n\
         [run]\nwarmup = 0\ncycles = 2000\ndrain_cycles = 0\n",
    )
    .unwrap();
    let o = wormcast(&[
        "bench",
        "--repeat",
        "1",
        "--json",
        "-",
        sc.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &rows[0];
    assert_eq!(row["routers"], 16384);
    let mib = row["peak_rss_mib"].as_f64().unwrap();
    let kib_per_router = mib * 1024.0 / 16384.0;
    assert!(
        kib_per_router < 4.0,
        "peak RSS {mib:.1} MiB = {kib_per_router:.2} KiB per router"
    );
}

/// `bench --verilator` keeps every port word of the checked run in memory
/// for its replay: a run whose recording would pass the bound is refused,
/// naming the size and the bound, before anything is simulated or built.
#[test]
fn verilator_bench_refuses_a_recording_above_its_memory_bound() {
    rejects(
        &["bench", "--verilator", "examples/bench-64x64-low.toml"],
        "6187 MiB",
        "at most 1024 MiB",
    );
}
