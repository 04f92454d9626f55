//! `wormcast run` from the outside: the JSON contract, the per-message CSV,
//! `--dump-scenario` round trip, exit codes.

mod common;
use common::wormcast;

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-run-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const SHORT: [&str; 4] = ["--set", "run.cycles=3000", "--set", "run.warmup=300"];

#[test]
fn json_has_the_contract_fields_and_csv_one_row_per_message() {
    let json = tmp("r.json");
    let csv = tmp("m.csv");
    let mut args = vec![
        "run",
        "-q",
        "--json",
        json.to_str().unwrap(),
        "--messages",
        csv.to_str().unwrap(),
    ];
    args.extend(SHORT);
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for k in [
        "cycles",
        "injected_messages",
        "delivered_messages",
        "lost_messages",
        "duplicate_deliveries",
        "router_errors",
        "deadlock",
        "latency_mean_cycles",
        "latency_p99_cycles",
        "throughput_flits_per_node_cycle",
        "wall_seconds",
        "router_cycles_per_second",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["deadlock"], false);
    assert_eq!(v["lost_messages"], 0);
    let injected = v["injected_messages"].as_u64().unwrap();
    assert!(injected > 50);
    assert_eq!(
        v["delivered_messages"].as_u64().unwrap(),
        injected,
        "the default run drains completely"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len() as u64, injected);
    // Every delivered row has a latency equal to finished − created.
    for r in rows.iter().take(200) {
        let f: Vec<&str> = r.splitn(11, ',').collect();
        let (created, finished, latency): (u64, u64, u64) = (
            f[6].parse().unwrap(),
            f[8].parse().unwrap(),
            f[9].parse().unwrap(),
        );
        assert_eq!(finished - created, latency, "{r}");
        assert_eq!(
            f[10].matches('@').count(),
            f[3].parse::<usize>().unwrap(),
            "{r}"
        );
    }
}

#[test]
fn dump_scenario_round_trips() {
    let o = wormcast(&[
        "run",
        "--dump-scenario",
        "--set",
        "traffic.rate=0.001",
        "--set",
        "traffic.seed=9",
    ]);
    assert!(o.status.success());
    let dumped = String::from_utf8(o.stdout).unwrap();
    assert!(
        dumped.contains("rate = 0.001") && dumped.contains("seed = 9"),
        "{dumped}"
    );
    let file = tmp("dumped.toml");
    std::fs::write(&file, &dumped).unwrap();
    let strip = |p: &std::path::Path| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let m = v.as_object_mut().unwrap();
        m.remove("wall_seconds");
        m.remove("router_cycles_per_second");
        // Where the scenario came from (a file, or `--set`s) differs by
        // design; the figures must not.
        m.remove("provenance");
        v
    };
    let (a, b) = (tmp("a.json"), tmp("b.json"));
    let mut args1 = vec![
        "run",
        "-q",
        "--scenario",
        file.to_str().unwrap(),
        "--json",
        a.to_str().unwrap(),
    ];
    args1.extend(SHORT);
    let mut args2 = vec![
        "run",
        "-q",
        "--set",
        "traffic.rate=0.001",
        "--set",
        "traffic.seed=9",
        "--json",
        b.to_str().unwrap(),
    ];
    args2.extend(SHORT);
    assert!(wormcast(&args1).status.success());
    assert!(wormcast(&args2).status.success());
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn exit_codes() {
    // Deadlock: 1, with the report still written.
    let json = tmp("dl.json");
    let o = wormcast(&[
        "run",
        "-q",
        "--scenario",
        "examples/deadlock-shared-consumption.toml",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["deadlock"], true);
    // Bad input: 2, naming the field.
    let o = wormcast(&["run", "--set", "network.buffer_depth=0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("network.buffer_depth"));
    let o = wormcast(&["run", "--scenario", "does/not/exist.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does/not/exist.toml"));
}
