//! Invalidation traffic and collectives from the command line: `run --json`
//! carries the report's `coherence` and `collective`, a load sweep of
//! invalidation traffic carries the transaction figures per point, and a
//! bad key exits 2 naming it.

mod common;
use common::wormcast;

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wormcast-mcw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const INV: [&str; 8] = [
    "--set",
    "traffic.multicast=\"invalidation\"",
    "--set",
    "traffic.sharers=[[2, 1], [6, 1]]",
    "--set",
    "traffic.multicast_fraction=1",
    "--set",
    "run.cycles=3000",
];

#[test]
fn run_json_reports_transactions_and_collectives() {
    let out = tmp("inv.json");
    let mut args = vec!["run", "-q", "--json", out.to_str().unwrap()];
    args.extend(INV);
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&out);
    let c = &v["coherence"];
    assert!(c["transactions"].as_u64().unwrap() > 10, "{c}");
    assert_eq!(c["sharers_expected"], 4.0);
    let l = &c["latency"];
    assert!(l["p50"].as_u64().unwrap() <= l["p99"].as_u64().unwrap());
    assert!(v.get("collective").is_none());

    let out = tmp("scatter.json");
    let o = wormcast(&[
        "run",
        "-q",
        "--json",
        out.to_str().unwrap(),
        "--set",
        "traffic.pattern=\"none\"",
        "--set",
        "traffic.collective=\"scatter\"",
        "--set",
        "traffic.root=\"2,3\"",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&out);
    assert_eq!(v["stop_reason"], "collective complete");
    let c = &v["collective"];
    assert_eq!(c["root"], "2,3");
    assert_eq!(c["messages"], 63);
    let t = c["completion_time"].as_u64().unwrap();
    let b = c["lower_bound"]["cycles"].as_u64().unwrap();
    assert!(t >= b && b == c["lower_bound"]["injection"].as_u64().unwrap());
    assert_eq!(v["cycles"], c["completion_cycle"]);
    assert!(v.get("coherence").is_none());
}

#[test]
fn invalidation_load_sweep_reports_transaction_latency() {
    let out = tmp("sweep.json");
    let mut args = vec![
        "sweep",
        "-q",
        "--loads",
        "0.0005,0.002",
        "--schemes",
        "dstm1,spam",
        "--json",
        out.to_str().unwrap(),
    ];
    args.extend(INV);
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("| transaction mean |"), "{text}");
    let v = json(&out);
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 4);
    for p in pts {
        assert!(
            p["transaction_latency_mean_cycles"].as_f64().unwrap() > 0.0,
            "{p}"
        );
    }
    // More misses, longer transactions (per scheme).
    for s in ["dstm1", "spam"] {
        let lat: Vec<f64> = pts
            .iter()
            .filter(|p| p["scheme"] == s)
            .map(|p| p["transaction_latency_mean_cycles"].as_f64().unwrap())
            .collect();
        assert!(lat[1] > lat[0], "{s}: {lat:?}");
    }
}

#[test]
fn bad_keys_exit_2_naming_the_key() {
    let o = wormcast(&["run", "-q", "--set", "traffic.collective=\"reduce\""]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("traffic.collective") && err.contains("scatter"),
        "{err}"
    );
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.multicast=\"invalidation\"",
        "--set",
        "traffic.sharers=[[70, 1]]",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("traffic.sharers[0]") && err.contains("1 to 62"),
        "{err}"
    );
}
