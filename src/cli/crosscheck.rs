//! `wormcast crosscheck`: the peer cross-check against BookSim2's published
//! curve for the matched unicast XY mesh (`sim/src/crosscheck.rs`,
//! `docs/results/booksim-crosscheck.md`). Prints the paper-style table
//! (BookSim's value, ours, the ratio, the tolerance), optionally JSON and a
//! plot of both curves; exits 1 when a point leaves its tolerance.

use crate::cli::output::{self, Dest};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::crosscheck::{compare, Reference, SATURATION_OFFERED};

#[derive(Args, Debug)]
pub struct CrosscheckArgs {
    /// Offered loads in flits/node/cycle, comma-separated, each one of the
    /// reference's loads; `compared` = the loads with a tolerance, `all` =
    /// every reference load.
    #[arg(long, default_value = "compared")]
    pub loads: String,
    /// The BookSim2 reference: `uniform` (Bernoulli), or a unicast pattern
    /// or process: `transpose`, `bitcomp`, `tornado`, `hotspot`, `onoff`.
    #[arg(long, default_value = "uniform")]
    pub reference: String,
    /// Traffic seed of every point.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Override a key of the matched scenario (`section.key=value`), e.g.
    /// `network.buffer_depth=2`: a what-if, no longer the matched network.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Worker threads (points run in parallel; results do not depend on it).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the comparison as JSON (`-` = stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw both latency curves into an SVG.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

fn parse_loads(s: &str, r: &Reference) -> Result<Vec<f64>, String> {
    if s.trim() == "all" {
        return Ok(r.curve.load.clone());
    }
    if s.trim() == "compared" {
        return Ok(r
            .curve
            .load
            .iter()
            .copied()
            .filter(|&l| r.latency_tolerance(l).is_some())
            .collect());
    }
    s.split(',')
        .map(|t| {
            t.trim().parse::<f64>().map_err(|_| {
                format!("--loads: `{t}` is not a number (allowed: loads of the reference {:?}, or `all`)", r.curve.load)
            })
        })
        .collect()
}

pub fn run(a: CrosscheckArgs) -> Result<ExitCode, String> {
    let r = Reference::named(&a.reference).map_err(|e| e.to_string())?;
    let loads = parse_loads(&a.loads, &r)?;
    let threads = match a.threads {
        Some(0) => return Err("--threads: 0 is not allowed (at least 1)".into()),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    // Outputs are checked before the runs; `--json -` sends the table to
    // stderr (`output`).
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let plot_out = a.plot.as_deref().map(|p| Dest::new("plot", p));
    output::prepare(&[json_out.as_ref(), plot_out.as_ref()])?;
    let c = compare(&r, &loads, a.seed, &a.sets, threads).map_err(|e| e.to_string())?;
    // Files first, then the table (a closed stdout must not lose them).
    if let Some(d) = &json_out {
        let s = serde_json::to_string_pretty(&c).expect("comparison serialises") + "\n";
        d.write(s.as_bytes())?;
    }
    if let Some(d) = &plot_out {
        let series = vec![
            (
                format!("BookSim2 {}", c.reference.commit),
                r.curve
                    .load
                    .iter()
                    .copied()
                    .zip(r.curve.latency.iter().copied())
                    .collect(),
            ),
            (
                "wormcast".to_string(),
                c.points
                    .iter()
                    .map(|q| (q.load, q.wormcast_latency))
                    .collect(),
            ),
        ];
        super::plot::panels(
            d,
            &[super::plot::Panel {
                title: format!("16x16 XY mesh, 16-flit packets, {}", c.traffic),
                x_desc: "offered load (flits/node/cycle)".into(),
                y_desc: "average packet latency (cycles)".into(),
                series,
                legend: plotters::prelude::SeriesLabelPosition::UpperLeft,
                dots: true,
            }],
        )
        .map_err(|e| e.to_string())?;
    }
    outln!(
        "BookSim2 {} ({}) vs wormcast, 16x16 XY mesh, 16-flit packets, {} traffic, seed {}",
        c.reference.commit,
        c.reference.measured,
        c.traffic,
        c.seed
    );
    if !c.overrides.is_empty() {
        outln!(
            "what-if, NOT the matched network: {}",
            c.overrides.join(" ")
        );
    }
    outln!("load (flits/node/cycle)  BookSim  wormcast  ratio        tolerance  samples");
    for p in &c.points {
        outln!(
            "{:>23}  {:>7.1}  {:>8.1}  {:>5.3}  {:>15}  {:>7}{}",
            p.load,
            p.booksim_latency,
            p.wormcast_latency,
            p.ratio,
            match (p.known_deviation, p.tolerance) {
                (true, _) => "known deviation".to_string(),
                (false, None) => "not compared".to_string(),
                (false, Some(t)) => format!("±{:.0} %", t * 100.0),
            },
            p.samples,
            if p.within { "" } else { "  OUT" }
        );
    }
    outln!(
        "saturation throughput (flits/node/cycle, offered {SATURATION_OFFERED}): BookSim {:.4}, wormcast {:.4}, ratio {:.3} (±{:.0} %){}",
        c.booksim_saturation,
        c.wormcast_saturation,
        c.saturation_ratio,
        r.tolerance.saturation_throughput * 100.0,
        if c.saturation_within { "" } else { "  OUT" }
    );
    Ok(if c.all_within() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
