//! Golden outputs (`testbench/src/golden.rs`): every case of
//! `testbench/golden/cases.toml` must reproduce its stored figures and
//! delivery-log hash exactly. With `WORMCAST_GOLDEN_BLESS=1`
//! (`scripts/golden.sh --bless`) the expected files are rewritten instead.

use serde_json::Value;
use wormcast_testbench::golden::*;

fn bless() -> bool {
    std::env::var("WORMCAST_GOLDEN_BLESS").is_ok_and(|v| v == "1")
}

#[test]
fn golden_outputs() {
    check_golden(1);
}

/// The threaded kernel (`run.threads`, every cycle on the threaded path)
/// reproduces every golden figure and delivery log of the serial one.
#[test]
fn golden_outputs_on_two_and_four_threads_a_run() {
    check_golden(2);
    check_golden(4);
}

/// Runs every case with its routers on `run_threads` threads and compares
/// with the stored figures (or rewrites them when blessing, serial only).
fn check_golden(run_threads: usize) {
    let blessing = bless();
    let bless = blessing && run_threads == 1;
    if blessing && !bless {
        eprintln!(
            "golden: blessing writes the serial figures; {run_threads} threads a run not compared"
        );
        return;
    }
    let cases = load_cases(&golden_dir().join("cases.toml")).unwrap();
    assert!(cases.len() >= 40, "only {} golden cases", cases.len());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let t0 = std::time::Instant::now();
    let results = run_all_on(&cases, threads, run_threads);
    eprintln!(
        "golden: {} cases in {:.1} s on {threads} threads, {run_threads} a run",
        cases.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut failures = Vec::new();
    for (case, res) in cases.iter().zip(results) {
        let got = match res {
            Ok(Value::Object(m)) => m,
            Ok(_) => unreachable!("run_case returns an object"),
            Err(e) => {
                failures.push(format!("{}: cannot run: {e}", case.name));
                continue;
            }
        };
        let path = expected_path(&case.name);
        if bless {
            let text = serde_json::to_string_pretty(&Value::Object(got)).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let expected = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!(
                    "{}: no expected file {} ({e}); run scripts/golden.sh --bless",
                    case.name,
                    path.display()
                ));
                continue;
            }
        };
        let expected: serde_json::Map<String, Value> =
            serde_json::from_str(&expected).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (fig, old, new) in compare(&expected, &got) {
            failures.push(format!(
                "{}: {fig}: expected {old}, got {new} ({run_threads} threads a run)",
                case.name
            ));
        }
    }
    if !bless {
        // An expected file without a case is a case that silently vanished.
        for e in std::fs::read_dir(golden_dir().join("expected")).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            let stem = name.trim_end_matches(".json");
            if !cases.iter().any(|c| c.name == stem) {
                failures.push(format!(
                    "{name}: expected file without a case in cases.toml"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The comparison itself must see a change: a copy of a real case's figures
/// with one latency moved by a cycle and the log hash changed is reported,
/// naming the figure, old and new.
#[test]
fn a_changed_figure_is_reported() {
    let cases = load_cases(&golden_dir().join("cases.toml")).unwrap();
    let case = cases.iter().find(|c| c.name == "multicast-split").unwrap();
    let Value::Object(got) = run_case(case).unwrap() else {
        unreachable!()
    };
    assert!(compare(&got, &got).is_empty());
    let mut changed = got.clone();
    let lat = changed["latency_mean_cycles"].as_f64().unwrap();
    changed.insert("latency_mean_cycles".into(), Value::from(lat + 1.0));
    changed.insert(
        "delivery_log_fnv1a64".into(),
        Value::from("0000000000000000"),
    );
    let d = compare(&got, &changed);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].0, "delivery_log_fnv1a64");
    assert_eq!(d[1].0, "latency_mean_cycles");
    assert_eq!(d[1].1, Value::from(lat).to_string());
    // A stored figure the report no longer has is a mismatch too.
    changed.remove("flit_hops");
    assert!(compare(&got, &changed)
        .iter()
        .any(|(f, _, new)| f == "flit_hops" && new == "(missing)"));
}

/// Bad case files are errors that name the case and the field.
#[test]
fn bad_case_files_name_the_field() {
    let dir = std::env::temp_dir().join(format!("wormcast-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("cases.toml");
    for (text, needle) in [
        ("[[case]]\nset = []\n", "`name` missing"),
        ("[[case]]\nname = \"a b\"\n", "name `a b`"),
        (
            "[[case]]\nname = \"a\"\n[[case]]\nname = \"a\"\n",
            "used twice",
        ),
        ("[[case]]\nname = \"a\"\nsets = []\n", "unknown key `sets`"),
        (
            "[[case]]\nname = \"a\"\nset = [1]\n",
            "`set` entries must be strings",
        ),
    ] {
        std::fs::write(&p, text).unwrap();
        let e = load_cases(&p).unwrap_err();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
