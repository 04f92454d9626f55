//! Golden outputs: a fixed set of scenarios whose key report
//! figures and per-message delivery log are stored in the repository, so a
//! change that shifts one latency or one delivery cycle anywhere is caught.
//!
//! Why exact comparison: the kernel is deterministic (same scenario and seed,
//! same bits), so every figure below is a pure function of the scenario and
//! there is no tolerance that would be meaningful. Wall time, simulator
//! speed and the count of router evaluations actually executed (idle
//! routers are skipped, a kernel-speed detail that changes no simulated bit)
//! are not stored.
//!
//! The cases live in `testbench/golden/cases.toml`, one expected file per
//! case in `testbench/golden/expected/NAME.json`. Only the keys present in
//! an expected file are compared, so a report that gains a field does not
//! break the suite, while a stored figure that disappears does.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

/// Report fields that are not simulated results.
const NOT_SIMULATED: [&str; 3] = ["wall_seconds", "router_cycles_per_second", "router_steps"];

/// One golden case: a scenario file (optional) plus `--set` overrides.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub base: Option<PathBuf>,
    pub sets: Vec<String>,
}

/// The repository root (the testbench crate sits one level below it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testbench has a parent directory")
        .to_path_buf()
}

pub fn golden_dir() -> PathBuf {
    repo_root().join("testbench/golden")
}

/// Reads `cases.toml`. Errors name the case and the field.
pub fn load_cases(path: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let root: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e))?;
    let list = root
        .get("case")
        .and_then(|v| v.as_array())
        .ok_or_else(|| format!("{}: no [[case]] entries", path.display()))?;
    let mut cases = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let t = c
            .as_table()
            .ok_or_else(|| format!("case {i}: not a table"))?;
        let name = t
            .get("name")
            .and_then(|v| v.as_str())
            .ok_or_else(|| format!("case {i}: `name` missing or not a string"))?
            .to_string();
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "case {i}: name `{name}` must use letters, digits, - and _ (it names a file)"
            ));
        }
        if cases.iter().any(|c: &Case| c.name == name) {
            return Err(format!("case {i}: name `{name}` used twice"));
        }
        let base = match t.get("base") {
            None => None,
            Some(v) => {
                Some(PathBuf::from(v.as_str().ok_or_else(|| {
                    format!("case {name}: `base` must be a path string")
                })?))
            }
        };
        let sets = match t.get("set") {
            None => Vec::new(),
            Some(v) => v
                .as_array()
                .ok_or_else(|| format!("case {name}: `set` must be an array of strings"))?
                .iter()
                .map(|s| {
                    s.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("case {name}: `set` entries must be strings"))
                })
                .collect::<Result<_, _>>()?,
        };
        for k in t.keys() {
            if !["name", "base", "set"].contains(&k.as_str()) {
                return Err(format!(
                    "case {name}: unknown key `{k}` (allowed: name, base, set)"
                ));
            }
        }
        cases.push(Case { name, base, sets });
    }
    Ok(cases)
}

/// FNV-1a, 64 bits: a stable fingerprint of the delivery log. Not a
/// security hash; it only has to change when the log does.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The per-message delivery log as text, one line per message: id, source,
/// creation and injection cycle, then `destination@cycle` per destination
/// (`-` when not delivered). Its hash catches a changed delivery order or
/// cycle even where every aggregate stays the same.
pub fn delivery_log(net: &Network) -> String {
    let mut s = String::new();
    for (id, m) in net.msgs.iter().enumerate() {
        let inj = if m.injected == u64::MAX {
            "-".to_string()
        } else {
            m.injected.to_string()
        };
        s.push_str(&format!("{id} {} {} {inj}", m.source, m.created));
        for (&d, &t) in m.dests.iter().zip(&m.delivered) {
            if t == u64::MAX {
                s.push_str(&format!(" {d}@-"));
            } else {
                s.push_str(&format!(" {d}@{t}"));
            }
        }
        s.push('\n');
    }
    s
}

/// Runs one case and returns its figures as a JSON object.
pub fn run_case(case: &Case) -> Result<Value, String> {
    run_case_on(case, 1)
}

/// [`run_case`] with the run's routers stepped on `run_threads` threads,
/// every cycle on the threaded path (no serial fallback for quiet cycles),
/// so that the figures prove the threaded kernel equal to the serial one.
pub fn run_case_on(case: &Case, run_threads: usize) -> Result<Value, String> {
    let root = repo_root();
    let (text, origin) = match &case.base {
        Some(p) => {
            let full = root.join(p);
            (
                std::fs::read_to_string(&full).map_err(|e| {
                    format!("case {}: cannot read {}: {e}", case.name, full.display())
                })?,
                p.display().to_string(),
            )
        }
        None => (String::new(), "built-in default scenario".to_string()),
    };
    let mut sc = Scenario::from_toml(&text, &case.sets, &origin)
        .map_err(|e| format!("case {}: {e}", case.name))?;
    sc.run.threads = run_threads;
    let mut net = Network::new(&sc).map_err(|e| format!("case {}: {e}", case.name))?;
    net.fabric.set_min_parallel(0);
    net.fabric.set_self_timed(false);
    let report = net.run(&mut |_| true);
    let Value::Object(mut fig) =
        serde_json::to_value(&report).map_err(|e| format!("case {}: {e}", case.name))?
    else {
        return Err(format!("case {}: report is not a JSON object", case.name));
    };
    for k in NOT_SIMULATED {
        fig.remove(k);
    }
    let log = delivery_log(&net);
    fig.insert("delivery_log_lines".into(), Value::from(net.msgs.len()));
    fig.insert(
        "delivery_log_fnv1a64".into(),
        Value::from(format!("{:016x}", fnv1a64(log.as_bytes()))),
    );
    Ok(Value::Object(fig))
}

/// Every stored figure that differs: `(figure, old, new)`.
pub fn compare(
    expected: &Map<String, Value>,
    got: &Map<String, Value>,
) -> Vec<(String, String, String)> {
    let mut diffs = Vec::new();
    for (k, old) in expected {
        match got.get(k) {
            Some(new) if new == old => {}
            Some(new) => diffs.push((k.clone(), old.to_string(), new.to_string())),
            None => diffs.push((k.clone(), old.to_string(), "(missing)".into())),
        }
    }
    diffs
}

pub fn expected_path(name: &str) -> PathBuf {
    golden_dir().join("expected").join(format!("{name}.json"))
}

/// Runs the cases on `threads` threads; results in case order.
pub fn run_all(cases: &[Case], threads: usize) -> Vec<Result<Value, String>> {
    run_all_on(cases, threads, 1)
}

/// [`run_all`], each run's routers on `run_threads` threads ([`run_case_on`]).
pub fn run_all_on(
    cases: &[Case],
    threads: usize,
    run_threads: usize,
) -> Vec<Result<Value, String>> {
    wormcast_sim::parallel::map(cases, threads, |c| run_case_on(c, run_threads))
}
