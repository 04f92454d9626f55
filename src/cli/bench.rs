//! `wormcast bench`: the speed and memory figures of `docs/performance.md`.
//!
//! Each benchmark is an ordinary scenario file (`examples/bench-*.toml`), so
//! any figure can be reproduced with `wormcast run --scenario`. The default
//! set adds the BookSim2-matched 16×16 XY mesh (`examples/booksim-mesh-16x16.toml`,
//! `sim/src/crosscheck.rs`) at 0.05 and 0.09 flits/node/cycle, the loads
//! of the side-by-side timing with BookSim2; reproduce one with
//! `wormcast run --scenario examples/booksim-mesh-16x16.toml --set traffic.rate=LOAD/16`. Scenarios run
//! in-process from the smallest network to the largest and the peak resident
//! memory (VmHWM) is read after each, so each reading is the peak up to and
//! including that scenario.

use crate::cli::measure::median;
use crate::cli::output::{self, Dest};
use crate::cli::run::load_checked;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::network::Network;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Scenario files; default: every `examples/bench-*.toml`.
    pub scenarios: Vec<PathBuf>,
    /// Runs per scenario; the median wall time is reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Write the results as JSON (`-` for stdout; the table then goes to
    /// stderr).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Time the native model against the generated Verilog of the same
    /// fabric under Verilator, under the same traffic: native,
    /// `--engine verilator`, and a bare replay of the checked run's port
    /// words (default points: the 4×4 DSTM-1 torus from light load to
    /// saturation; Verilator builds are cached as for `run`).
    #[arg(long)]
    pub verilator: bool,
    /// With `--verilator`: how the fabric is compiled (as `run
    /// --verilator-build`).
    #[arg(long, value_enum, default_value_t = crate::cli::run::VerilatorBuild::Auto)]
    pub verilator_build: crate::cli::run::VerilatorBuild,
    /// Thread counts to run each scenario with (`run.threads`), e.g. `1,2`:
    /// one row each, with the speed-up over the first. Default: the
    /// scenario's own (docs/performance.md, "One run on several threads").
    #[arg(long, value_name = "N,N,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u64).range(1..=wormcast_sim::scenario::MAX_THREADS as u64))]
    pub threads: Vec<u64>,
    /// With threads: `on` (as every run) times both kernels during the run
    /// and uses the threads only while they are faster; `off` uses them for
    /// every cycle large enough, to measure what they cost where they lose
    /// (docs/performance.md, "One run on several threads").
    #[arg(long, value_enum, default_value_t = SelfTiming::On)]
    pub self_timing: SelfTiming,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
pub enum SelfTiming {
    On,
    Off,
}

/// Offered loads (flits/node/cycle) of the matched mesh in the default set.
const MATCHED_MESH_LOADS: [f64; 2] = [0.05, 0.09];

#[derive(serde::Serialize)]
struct Row {
    scenario: String,
    /// `run.threads` of this row.
    threads: usize,
    /// Median wall time of the scenario's first thread count over this
    /// row's.
    speedup: f64,
    /// With threads: the share of the cycles large enough to thread that
    /// ran on the threads in the last repeat (the run times both modes and
    /// keeps the faster, `fabric::pacer`); `None` serially or when no cycle
    /// was large enough.
    threaded_cycle_share: Option<f64>,
    routers: u64,
    cycles: u64,
    wall_seconds_median: f64,
    router_cycles_per_second: f64,
    flit_hops_per_second: f64,
    router_steps_per_cycle: f64,
    ns_per_router_step: f64,
    /// Wall time per flit moved across a router-to-router link: the cost
    /// that stays comparable across loads and network sizes.
    ns_per_flit_hop: f64,
    offered_messages_per_node_cycle: f64,
    accepted_messages_per_node_cycle: f64,
    peak_rss_mib: f64,
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.to_string())
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map(|kib| kib / 1024.0)
        .unwrap_or(f64::NAN)
}

pub fn run(a: BenchArgs) -> Result<ExitCode, String> {
    if a.repeat == 0 || a.repeat > 100 {
        return Err(format!("invalid --repeat = `{}`: 1 to 100", a.repeat));
    }
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    if a.verilator {
        output::prepare(&[json_out.as_ref()])?;
        crate::cli::bench_verilator::run(
            &a.scenarios,
            a.repeat,
            a.verilator_build.mode(),
            json_out.as_ref(),
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut files = a.scenarios.clone();
    if files.is_empty() {
        let dir = std::fs::read_dir("examples").map_err(|e| format!("cannot list examples/: {e} (run from the repository root or name the scenario files)"))?;
        files = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("bench-") && n.ends_with(".toml"))
            })
            .collect();
    }
    let mut jobs = Vec::new();
    for f in &files {
        let sc = load_checked(&Some(f.clone()), &[])?;
        let v = sc.validate().map_err(|e| format!("{}: {e}", f.display()))?;
        jobs.push((v.topo.nodes(), sc.traffic.rate, f.clone(), sc));
    }
    if a.scenarios.is_empty() {
        for load in MATCHED_MESH_LOADS {
            let sc = wormcast_sim::crosscheck::scenario_at(load, &[]).map_err(|e| e.to_string())?;
            let v = sc.validate().map_err(|e| e.to_string())?;
            let name = PathBuf::from(format!("examples/booksim-mesh-16x16.toml@{load}"));
            jobs.push((v.topo.nodes(), sc.traffic.rate, name, sc));
        }
    }
    // Checked before the first run; `-` sends the table to stderr.
    output::prepare(&[json_out.as_ref()])?;
    // Small networks first (so each peak-memory reading covers the largest
    // network so far), then by load.
    jobs.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    if a.threads.iter().any(|&t| t > 1) {
        match wormcast_sim::fabric::core_round_trip_ns() {
            Some(ns) => {
                outln!("core-to-core round trip (a cache line, first two cores): {ns:.0} ns")
            }
            None => outln!("core-to-core round trip: fewer than two cores"),
        }
    }
    outln!("| scenario | threads | routers | cycles | wall s (median of {}) | speed-up | threaded cycles | M router-cycles/s | M flit-hops/s | router steps/cycle | ns/step | ns/flit-hop | offered → accepted msgs/node/cycle | peak RSS MiB |", a.repeat);
    outln!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    let mut rows = Vec::new();
    for (n, _, f, base) in jobs {
        let counts: Vec<usize> = match a.threads.is_empty() {
            true => vec![base.run.threads],
            false => a.threads.iter().map(|&t| t as usize).collect(),
        };
        let mut first_wall = None;
        for threads in counts {
            let mut sc = base.clone();
            sc.run.threads = threads;
            let mut walls = Vec::new();
            let mut last = None;
            let mut share = None;
            for _ in 0..a.repeat {
                let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
                net.fabric.set_self_timed(a.self_timing == SelfTiming::On);
                let r = net.run(&mut |_| true);
                walls.push(r.wall_seconds);
                last = Some(r);
                share = net
                    .fabric
                    .threaded_cycles()
                    .filter(|&(eligible, _)| eligible > 0)
                    .map(|(eligible, threaded)| threaded as f64 / eligible as f64);
            }
            let r = last.expect("repeat >= 1");
            let wall = median(walls);
            let first = *first_wall.get_or_insert(wall);
            let row = Row {
                scenario: f.display().to_string(),
                threads,
                speedup: first / wall,
                threaded_cycle_share: share,
                routers: n as u64,
                cycles: r.cycles,
                wall_seconds_median: wall,
                router_cycles_per_second: (n as u64 * r.cycles) as f64 / wall,
                flit_hops_per_second: r.flit_hops as f64 / wall,
                router_steps_per_cycle: r.router_steps as f64 / r.cycles as f64,
                ns_per_router_step: wall * 1e9 / r.router_steps.max(1) as f64,
                ns_per_flit_hop: wall * 1e9 / r.flit_hops.max(1) as f64,
                offered_messages_per_node_cycle: r.offered_messages_per_node_cycle,
                accepted_messages_per_node_cycle: r.accepted_messages_per_node_cycle,
                peak_rss_mib: peak_rss_mib(),
            };
            outln!(
            "| {} | {} | {} | {} | {:.3} | {:.2}× | {} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.3e} → {:.3e} | {:.1} |",
            row.scenario,
            row.threads,
            row.routers,
            row.cycles,
            row.wall_seconds_median,
            row.speedup,
            row.threaded_cycle_share.map_or("–".to_string(), |s| format!("{:.0} %", s * 100.0)),
            row.router_cycles_per_second / 1e6,
            row.flit_hops_per_second / 1e6,
            row.router_steps_per_cycle,
            row.ns_per_router_step,
            row.ns_per_flit_hop,
            row.offered_messages_per_node_cycle,
            row.accepted_messages_per_node_cycle,
            row.peak_rss_mib
        );
            rows.push(row);
        }
    }
    if let Some(d) = &json_out {
        let text = serde_json::to_string_pretty(&rows).expect("serialises");
        d.write((text + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
