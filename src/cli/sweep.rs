//! `wormcast sweep`: latency-vs-load curves, one simulation per (scheme,
//! load) point, the points run in parallel (rayon) — never inside one run, so
//! every point is bit-identical whatever the thread count.
//!
//! A point is the scenario file with `traffic.rate = load` and
//! `network.routing = "tree"`, `network.construction = scheme` (plus any
//! `--set`); the scheme `spam` sets `network.routing = "spam"` and
//! `construction = "bfs"`, `spam:C` uses tree 0 of C. A path-based mesh
//! scheme (`dual-path`, `multi-path`, `lin`, `ocms`, `otms`, `brcp-pure`,
//! `brcp-minimal`, `column-path`) or tree scheme (`vh`, `diag`, `dds`,
//! `min`, `ft-s1`..`ft-s3`, `ft-unicast`; XY routing) sets
//! `traffic.multicast_scheme` and the routing function it needs
//! (hamiltonian, negative_first or dor); the scenario must then be a mesh. Ctrl-C stops the
//! running points at their next cycle, skips the rest, and still writes the
//! JSON and the plot, marked incomplete.

use crate::cli::interrupt;
use crate::cli::output::{self, Dest};
use crate::cli::provenance::Provenance;
use crate::cli::shard::{fingerprint, ShardSpec};
pub use crate::cli::sweep_out::parse_loads;
use crate::cli::sweep_out::{exit_code, parse_schemes, plot, Point, ShardInfo, SweepOut};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;
use wormcast_sim::InputError;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Base scenario (TOML); default: the built-in scenario.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Loads in messages per node per cycle: `A..B/STEP` (inclusive) or a
    /// comma list `0.001,0.002`.
    #[arg(long)]
    pub loads: String,
    /// Comma-separated schemes: constructions with tree routing (e.g.
    /// `dstm1,dstm2`), or `spam` (SPAM on a BFS tree) / `spam:CONSTRUCTION`,
    /// or path-based mesh schemes (`dual-path`, `multi-path`, `lin`, `ocms`,
    /// `otms`, `brcp-pure`, `brcp-minimal`, `column-path`) or tree schemes
    /// (`vh`, `diag`, `dds`, `min`, `ft-s1`, `ft-s2`, `ft-s3`, `ft-unicast`;
    /// mesh scenario, XY routing).
    #[arg(long, default_value = "dstm1")]
    pub schemes: String,
    /// Extra scenario overrides, applied to every point.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Write all points as JSON (`-` for stdout; the table then goes to
    /// stderr).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Plot mean latency against offered load as SVG (`-` for stdout).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Also draw each point's link heat map (as `run --heatmap`) into this
    /// directory, as `SCHEME-load-LOAD.svg`; created if missing.
    #[arg(long, value_name = "DIR")]
    pub heatmap_dir: Option<PathBuf>,
    #[command(flatten)]
    pub heat: crate::cli::heatmap::HeatOpts,
    /// Run only shard I of N (`I/N`, 0-based): the points whose position
    /// in the sweep is I modulo N. The JSON then records the slice, for
    /// `wormcast sweep-merge` (README "Running sweeps on a cluster").
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Cores to use, at least 1 (default: all): as many points run at once
    /// as fit beside each run's `run.threads` (docs/performance.md, "One run
    /// on several threads").
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The scenario overrides that select one scheme (see the module doc).
pub fn scheme_sets(s: &str) -> Vec<String> {
    // `spam` (or `spam:CONSTRUCTION`) is the SPAM baseline on a BFS tree
    // (or on tree 0 of CONSTRUCTION); anything else is a DSTM construction
    // with tree routing.
    let mesh = wormcast_sim::treeworm::scheme::MeshScheme::all()
        .into_iter()
        .find(|k| k.name() == s);
    if let Some(k) = mesh {
        vec![
            format!("network.routing=\"{}\"", k.default_routing().name()),
            format!("traffic.multicast_scheme=\"{s}\""),
        ]
    } else if s == "spam" || s.starts_with("spam:") {
        let c = s.strip_prefix("spam:").unwrap_or("bfs");
        vec![
            "network.routing=\"spam\"".into(),
            format!("network.construction=\"{c}\""),
        ]
    } else {
        vec![
            "network.routing=\"tree\"".into(),
            format!("network.construction=\"{s}\""),
        ]
    }
}

/// Every point of a sweep, scheme-major, each scenario parsed and
/// validated before any runs: `base_text` (from `origin`) with the user's
/// `sets`, then the scheme's overrides and `traffic.rate = load`, which
/// win over both.
pub fn points(
    base_text: &str,
    origin: &str,
    sets: &[String],
    loads: &[f64],
    schemes: &[String],
) -> Result<Vec<(String, f64, wormcast_sim::scenario::Scenario)>, String> {
    if schemes.is_empty() {
        return Err(
            "invalid --schemes = ``: a comma list of constructions such as `dstm1,dstm2`, or `spam`".into(),
        );
    }
    // The scenario's own topology, before any scheme sets its routing: a
    // mesh scheme on a torus is the scheme's error, not the routing's.
    let base = wormcast_sim::scenario::Scenario::from_toml(base_text, sets, origin)
        .map_err(|e| e.to_string())?;
    if base.traffic.pattern == wormcast_sim::scenario::Pattern::Trace {
        // A sweep varies traffic.rate; a trace fixes its own injection
        // times (docs/decisions.md, "Trace replay and sweeps").
        return Err(InputError::new(
            "traffic.pattern",
            "trace",
            "a generated workload (poisson) for `wormcast sweep`, which varies traffic.rate: a trace sets its own injection times and dependencies; replay it with `wormcast run` (docs/scenario.md, \"Trace replay\")",
        )
        .to_string());
    }
    let base_topology = base.network.topology;
    let listed = schemes.join(",");
    let mut jobs = Vec::new();
    for s in schemes {
        let mesh = wormcast_sim::treeworm::scheme::MeshScheme::all()
            .into_iter()
            .any(|k| k.name() == s);
        let needs = match (mesh, base_topology.is_torus()) {
            (true, true) => Some(format!(
                "the scheme `{s}` needs a mesh scenario (network.topology = \"mesh:KxM\"), and this one is {base_topology}; on a torus use constructions such as `dstm1,dstm2` or `spam`"
            )),
            (false, false) => Some(format!(
                "the scheme `{s}` (tree or spam routing) needs a torus scenario (network.topology = \"torus:KxM\"), and this one is {base_topology}; on a mesh use the mesh schemes such as `dual-path` or `column-path`"
            )),
            _ => None,
        };
        if let Some(allowed) = needs {
            return Err(InputError::new("--schemes", &listed, allowed).to_string());
        }
        for &l in loads {
            let mut all = sets.to_vec();
            all.extend(scheme_sets(s));
            all.push(format!("traffic.rate={l}"));
            let sc = wormcast_sim::scenario::Scenario::from_toml(base_text, &all, origin)
                .map_err(|e| e.to_string())?;
            sc.validate()
                .map_err(|e| crate::cli::run::locate_error(e, base_text, origin, sets))?;
            jobs.push((s.clone(), l, sc));
        }
    }
    Ok(jobs)
}

/// The point workers of a sweep on `cores` cores: as many as fit beside
/// the widest run (`run.threads`, 1 unless set), at least one.
pub fn divide_cores(jobs: &[(String, f64, Scenario)], cores: usize) -> usize {
    let widest = jobs
        .iter()
        .map(|(_, _, sc)| sc.run.threads)
        .max()
        .unwrap_or(1);
    (cores.max(1) / widest.max(1)).max(1)
}

/// Gives each point that leaves `run.max_messages` to its default a
/// share of the memory budget: `workers` points run at once, and each
/// reading the free memory for itself would count on all of it
/// (`network::budget::shared_max_messages`). A budget the user set stays.
pub fn share_budget(jobs: &mut [(String, f64, Scenario)], workers: usize) {
    let share = wormcast_sim::network::budget::shared_max_messages(workers);
    for (_, _, sc) in jobs.iter_mut() {
        if sc.run.max_messages == 0 {
            sc.run.max_messages = share;
        }
    }
}

pub fn run(a: SweepArgs) -> Result<ExitCode, String> {
    if let Some(input) = a.scenario.as_deref() {
        output::refuse_overwriting_inputs(
            &[("--json", a.json.as_deref()), ("--plot", a.plot.as_deref())],
            &[("--scenario", input)],
        )?;
    }
    let loads = parse_loads(&a.loads).map_err(|e| e.to_string())?;
    let schemes = parse_schemes(&a.schemes);
    let base_text = match &a.scenario {
        Some(p) => super::run::read_scenario(p)?,
        None => String::new(),
    };
    let origin = a
        .scenario
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "built-in default scenario".into());
    let mut jobs = points(&base_text, &origin, &a.sets, &loads, &schemes)?;
    let provenance = jobs.first().map(|(_, _, sc)| {
        let mut p = Provenance::new("sweep", a.scenario.as_deref(), &a.sets, sc);
        p.loads = Some(loads.clone());
        p.schemes = Some(schemes.clone());
        p
    });
    let shard = a.shard.as_deref().map(ShardSpec::parse).transpose()?;
    let points_total = jobs.len();
    let fp = fingerprint(&[&base_text, &a.sets.join("\n"), &a.loads, &a.schemes]);
    let point_indices: Vec<usize> = (0..points_total)
        .filter(|&p| shard.is_none_or(|s| s.owns(p)))
        .collect();
    if let Some(sh) = shard {
        let mut k = 0;
        jobs.retain(|_| {
            k += 1;
            sh.owns(k - 1)
        });
    }
    if a.threads == Some(0) {
        return Err("invalid --threads = `0`: at least 1 (omit it to use every core)".into());
    }
    // Every output is checked before any point runs.
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let plot_out = a.plot.as_deref().map(|p| Dest::new("plot", p));
    output::prepare(&[json_out.as_ref(), plot_out.as_ref()])?;
    if let Some(dir) = &a.heatmap_dir {
        crate::cli::heatmap::prepare_dir(dir)?;
    }
    // Every point's map, written once all have run (one common scale).
    let heat_maps = std::sync::Mutex::new(Vec::new());
    interrupt::install();
    let pb = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(jobs.len() as u64)
    };
    pb.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} points, {elapsed} elapsed, ETA {eta} {msg}",
        )
        .expect("template"),
    );
    let cores = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let workers = divide_cores(&jobs, cores);
    share_budget(&mut jobs, workers);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| format!("cannot start threads: {e}"))?;
    let mut points: Vec<Option<Point>> = pool.install(|| {
        jobs.par_iter()
            .map(|(scheme, l, sc)| {
                if interrupt::requested() {
                    return None;
                }
                let mut net = Network::new(sc).expect("validated");
                let mut heat = a
                    .heatmap_dir
                    .as_ref()
                    .map(|_| crate::cli::heatmap::LinkCounts::new(&net, a.heat.heatmap_window));
                let r = net.run(&mut |n| {
                    if let Some(h) = heat.as_mut() {
                        h.sample(n);
                    }
                    !interrupt::requested()
                });
                if let (Some(dir), Some(h)) = (&a.heatmap_dir, &heat) {
                    let map = crate::cli::heatmap::point(dir, scheme, *l, &net, &r, h);
                    heat_maps.lock().unwrap().push(map);
                }
                pb.inc(1);
                Some(Point::of(scheme, *l, &r))
            })
            .collect()
    });
    pb.finish_and_clear();
    let complete = points
        .iter()
        .all(|p| p.as_ref().is_some_and(|p| p.complete));
    // The unsharded positions of the points that ran (an interrupted run
    // skips some).
    let point_indices: Vec<usize> = points
        .iter()
        .zip(&point_indices)
        .filter(|(p, _)| p.is_some())
        .map(|(_, &k)| k)
        .collect();
    let points: Vec<Point> = points.drain(..).flatten().collect();
    // Files first, then the table; a failed file write still shows the
    // table before the error.
    let mut errors =
        crate::cli::heatmap::write_all(&heat_maps.into_inner().unwrap(), a.heat.heatmap_scale);
    if let Some(d) = &json_out {
        let out = SweepOut {
            scenario: origin.clone(),
            complete,
            points: &points,
            shard: shard.map(|sh| ShardInfo {
                index: sh.index,
                count: sh.count,
                fingerprint: fp.clone(),
                points_total,
                point_indices: point_indices.clone(),
                loads: Some(a.loads.clone()),
                schemes: Some(a.schemes.clone()),
            }),
            provenance: provenance.clone(),
        };
        let text = serde_json::to_string_pretty(&out).expect("serialises");
        if let Err(e) = d.write((text + "\n").as_bytes()) {
            errors.push(e);
        }
    }
    if let Some(d) = &plot_out {
        if let Err(e) = plot(d, &points, &origin) {
            errors.push(format!("cannot write {}: {e}", d.name()));
        }
    }
    outln!("| scheme | load | mean latency | p99 | accepted | saturated | deadlock | stop |");
    outln!("|---|---:|---:|---:|---:|---|---|---|");
    for p in &points {
        outln!(
            "| {} | {} | {:.1} | {} | {} | {} | {} | {} |",
            p.scheme,
            wormcast_sim::decimal::fmt_rate(p.load),
            p.latency_mean_cycles,
            p.latency_p99_cycles,
            wormcast_sim::decimal::fmt_sig(p.accepted_messages_per_node_cycle, 4),
            p.saturated,
            p.deadlock,
            p.stop_reason
        );
    }
    if points
        .iter()
        .any(|p| p.transaction_latency_mean_cycles.is_some())
    {
        outln!();
        outln!("| scheme | load | transactions/node/cycle | transaction mean | p99 |");
        outln!("|---|---:|---:|---:|---:|");
        for p in &points {
            outln!(
                "| {} | {} | {:.5} | {:.1} | {} |",
                p.scheme,
                p.load,
                p.transactions_per_node_cycle.unwrap_or(0.0),
                p.transaction_latency_mean_cycles.unwrap_or(0.0),
                p.transaction_latency_p99_cycles.unwrap_or(0)
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\nerror: "));
    }
    if !complete {
        eprintln!(
            "sweep interrupted: {} of {} points written",
            points.len(),
            jobs.len()
        );
    }
    Ok(exit_code(&points, complete))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(points: usize, run_threads: usize) -> Vec<(String, f64, Scenario)> {
        (0..points)
            .map(|k| {
                let mut sc = Scenario::default();
                sc.run.threads = run_threads;
                ("dstm1".to_string(), k as f64, sc)
            })
            .collect()
    }

    #[test]
    fn points_fit_beside_each_runs_threads() {
        assert_eq!(divide_cores(&jobs(8, 1), 2), 2);
        assert_eq!(divide_cores(&jobs(8, 2), 2), 1);
        assert_eq!(divide_cores(&jobs(6, 3), 8), 2);
        assert_eq!(divide_cores(&jobs(6, 4), 2), 1);
        assert_eq!(divide_cores(&jobs(0, 1), 0), 1);
    }

    #[test]
    fn parallel_points_share_the_default_budget_and_keep_a_set_one() {
        let mut js = jobs(3, 1);
        js[2].2.run.max_messages = 12_345;
        share_budget(&mut js, 1 << 40);
        assert_eq!(js[0].2.run.max_messages, 100_000, "the floor");
        assert_eq!(js[1].2.run.max_messages, 100_000);
        assert_eq!(js[2].2.run.max_messages, 12_345, "set by the user");
    }
}
