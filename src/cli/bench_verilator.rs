//! `wormcast bench --verilator`: the native kernel against the generated
//! Verilog of the same fabric under Verilator, under the same traffic, in
//! one invocation (the yardstick of `docs/performance.md`).
//!
//! Three timings per load point: the native model alone (median of
//! `--repeat` runs); `--engine verilator`, the Verilog driven by the native
//! NIs and checked against the native fabric every cycle (one run, which
//! also records every port word of every cycle); and a bare replay of that
//! recording on a freshly loaded model, the per-cycle work of a plain C++
//! testbench (`wormcast_rtl::verilated::replay`, median of `--repeat`).
//! The replay checks the model's outputs against the recording as it goes,
//! so it measures the traced traffic or reports that it did not.

use crate::cli::measure::median;
use crate::cli::output::Dest;
use crate::cli::run::load_checked;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use wormcast_rtl::verilated::{self, Trace};
use wormcast_sim::network::Network;

/// The largest recording a point may need (port words × cycles × 8
/// bytes), checked before the run: the replay holds it in memory.
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The default points: the 4×4 DSTM-1 torus, 22 000 cycles,
/// from light load to saturation (msgs/node/cycle).
pub const DEFAULT_RATES: [f64; 4] = [0.0016, 0.008, 0.012, 0.03];

/// The settings of every default point (the commands of
/// `docs/performance.md`, "Against Verilator on the 4×4 DSTM-1 torus").
fn default_sets(rate: f64) -> Vec<String> {
    [
        "network.topology=torus:4x4".to_string(),
        "network.construction=dstm1".into(),
        format!("traffic.rate={rate}"),
        "run.cycles=20000".into(),
        "run.warmup=2000".into(),
        "run.drain_cycles=0".into(),
    ]
    .to_vec()
}

#[derive(serde::Serialize)]
struct Row {
    scenario: String,
    routers: u64,
    /// `flat` or `hierarchical` (`--verilator-build`).
    verilator_build: String,
    cycles: u64,
    throughput_flits_per_node_cycle: f64,
    native_cycles_per_second: f64,
    engine_cycles_per_second: f64,
    bare_verilator_cycles_per_second: f64,
    native_over_bare: f64,
}

/// Runs the comparison on `scenarios` (empty: the default points) and
/// prints one table row per point; `json` gets the rows.
pub fn run(
    scenarios: &[PathBuf],
    repeat: u32,
    mode: verilated::BuildMode,
    json: Option<&Dest>,
) -> Result<(), String> {
    let points: Vec<(String, Option<PathBuf>, Vec<String>)> = if scenarios.is_empty() {
        DEFAULT_RATES
            .iter()
            .map(|&r| (format!("torus:4x4 dstm1 rate {r}"), None, default_sets(r)))
            .collect()
    } else {
        scenarios
            .iter()
            .map(|f| (f.display().to_string(), Some(f.clone()), Vec::new()))
            .collect()
    };
    let cache = verilated::default_cache_dir();
    outln!("| scenario | routers | Verilator build | cycles | throughput flits/node/cycle | native k cycles/s (median of {repeat}) | `--engine verilator` k cycles/s | bare Verilator replay k cycles/s (median of {repeat}) | native / bare |");
    outln!("|---|---:|---|---:|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for (name, file, sets) in points {
        let sc = load_checked(&file, &sets)?;
        let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
        let f = &net.fabric;
        let g = wormcast_rtl::generate::fabric_module(&f.topo, &f.params, &f.cfg)
            .map_err(|e| e.to_string())?;
        let words = verilated::ni_ports(&g).count() as u64;
        let bytes = sc
            .run
            .total_cycles()
            .and_then(|c| c.checked_mul(words * 8))
            .unwrap_or(u64::MAX);
        if bytes > MAX_TRACE_BYTES {
            return Err(format!(
                "{name}: recording {words} port words a cycle for every cycle of the run needs {} MiB; at most {} MiB are allowed: use a smaller network or fewer run.warmup + run.cycles + run.drain_cycles",
                bytes >> 20,
                MAX_TRACE_BYTES >> 20
            ));
        }
        let mut native = Vec::new();
        let mut report = None;
        for _ in 0..repeat {
            let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
            let r = net.run(&mut |_| true);
            native.push(r.cycles as f64 / r.wall_seconds);
            report = Some(r);
        }
        let report = report.expect("repeat >= 1");
        let trace = Arc::new(Mutex::new(Trace::default()));
        let info = verilated::attach_traced(&mut net, &g, &cache, Some(trace.clone()), mode)
            .map_err(|e| format!("{name}: engine verilator: {e}"))?;
        let engine = net.run(&mut |_| true);
        if let Some(e) = &engine.engine_mismatch {
            return Err(format!(
                "{name}: the Verilog differs from the native model: {e}"
            ));
        }
        let trace = std::mem::take(&mut *trace.lock().expect("trace lock"));
        let mut bare = Vec::new();
        for _ in 0..repeat {
            let r = verilated::replay(&info.library, &g, &trace)?;
            if let Some(c) = r.first_mismatch {
                return Err(format!(
                    "{name}: the bare replay's outputs differ from the checked run's at cycle {c}"
                ));
            }
            bare.push(r.cycles as f64 / r.seconds);
        }
        let (native, bare) = (median(native), median(bare));
        let row = Row {
            scenario: name,
            routers: net.fabric.topo.nodes() as u64,
            verilator_build: match info.mode {
                verilated::BuildMode::Hierarchical => "hierarchical",
                _ => "flat",
            }
            .to_string(),
            cycles: report.cycles,
            throughput_flits_per_node_cycle: report.throughput_flits_per_node_cycle,
            native_cycles_per_second: native,
            engine_cycles_per_second: engine.cycles as f64 / engine.wall_seconds,
            bare_verilator_cycles_per_second: bare,
            native_over_bare: native / bare,
        };
        outln!(
            "| {} | {} | {} | {} | {:.3} | {:.0} | {:.0} | {:.0} | {:.1}× |",
            row.scenario,
            row.routers,
            row.verilator_build,
            row.cycles,
            row.throughput_flits_per_node_cycle,
            row.native_cycles_per_second / 1e3,
            row.engine_cycles_per_second / 1e3,
            row.bare_verilator_cycles_per_second / 1e3,
            row.native_over_bare
        );
        rows.push(row);
    }
    if let Some(d) = json {
        let text = serde_json::to_string_pretty(&rows).expect("serialises");
        d.write((text + "\n").as_bytes())?;
    }
    Ok(())
}
