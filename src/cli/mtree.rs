//! `wormcast mtree`: the thesis's tree multicast (VH, DIAG, DDS, MIN;
//! \[THESIS\] §3.2, `sim::meshtree`) on 2-D and 3-D meshes and tori, with its
//! analytic metrics (traffic in links, one-port time in hops).
//!
//! `--dest-list` builds one multicast and prints each tree; otherwise random
//! multicasts give the per-K mean curves of §4.2 (`--ks`, `--runs`), which
//! `--thesis` compares with the means the thesis text quotes and `--fit-k`
//! searches for the K set that would fit them best.

use crate::cli::output::{self, Dest};
use rayon::prelude::*;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::meshtree::experiment::{
    compare, fit_k, mean, mean_k, ratios, thesis_means, Experiment, KPoint, Sampler, THESIS_MEANS,
};
use wormcast_sim::meshtree::{build_with, Algorithm, Grid, Point, ZoneLinks};
use wormcast_sim::InputError;

#[derive(clap::Args)]
pub struct MtreeArgs {
    /// `mesh:KxM`, `torus:KxM`, `mesh:KxMxP` or `torus:KxMxP`.
    #[arg(long, default_value = "mesh:20x20")]
    pub grid: String,
    /// `vh`, `diag`, `dds`, `min` or `all`.
    #[arg(long, default_value = "all")]
    pub alg: String,
    /// Source `X,Y[,Z]` of `--dest-list` (default: the origin).
    #[arg(long)]
    pub source: Option<String>,
    /// Build one multicast: destinations `X,Y;X,Y;...` (or `X,Y,Z;...`).
    #[arg(long, conflicts_with_all = ["thesis", "fit_k", "ks"])]
    pub dest_list: Option<String>,
    /// K values of the mean curves, `A..B` or `A..B:STEP` (inclusive;
    /// default 10 to N−1 every 10).
    #[arg(long)]
    pub ks: Option<String>,
    /// Random multicasts per K (thesis: 1000).
    #[arg(long, default_value_t = 1000)]
    pub runs: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// When a torus's zone links (wraparound links joining the zone
    /// origins) are served: `first` (the thesis's examples) or `last`.
    #[arg(long, default_value = "first")]
    pub wraps: String,
    /// How random multicasts are drawn: `uniform` (source at the origin),
    /// `rounded` or `random-source`.
    #[arg(long, default_value = "uniform")]
    pub sampler: String,
    /// Compare the means with those the thesis quotes for this grid
    /// (`mesh:20x20`, `torus:20x20`, `mesh:10x10x10`), on the thesis's K set.
    #[arg(long, conflicts_with_all = ["fit_k", "ks"])]
    pub thesis: bool,
    /// Measure every K = 1..N−1 and list the K sets whose means fit the
    /// thesis's best.
    #[arg(long, conflicts_with = "ks")]
    pub fit_k: bool,
    /// Write the mean curves (time, traffic, AAT against K) as an SVG plot
    /// (`-` for stdout).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Write the results as JSON (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn run(a: MtreeArgs) -> Result<ExitCode, String> {
    run_inner(a).map_err(|e| e.to_string())
}

fn parse_ks(s: &str, n: usize) -> Result<Vec<usize>, InputError> {
    let bad = || {
        InputError::new(
            "ks",
            s,
            format!(
                "`A..B` or `A..B:STEP` with 0 ≤ A ≤ B ≤ {} and STEP ≥ 1",
                n - 1
            ),
        )
    };
    let (range, step) = match s.split_once(':') {
        Some((r, st)) => (r, st.trim().parse::<usize>().map_err(|_| bad())?),
        None => (s, 1),
    };
    let (a, b) = range.split_once("..").ok_or_else(bad)?;
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if step == 0 || a > b || b >= n {
        return Err(bad());
    }
    Ok((a..=b).step_by(step).collect())
}

fn algorithms(s: &str) -> Result<Vec<Algorithm>, InputError> {
    if s.trim() == "all" {
        Ok(Algorithm::ALL.to_vec())
    } else {
        s.split(',')
            .map(|x| {
                x.trim().parse::<Algorithm>().map_err(|_| {
                    InputError::new("alg", s, "vh, diag, dds, min, a comma list of them, or all")
                })
            })
            .collect()
    }
}

fn run_inner(a: MtreeArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let grid: Grid = a.grid.parse()?;
    let algs = algorithms(&a.alg)?;
    let zone_links = match a.wraps.trim() {
        "first" => ZoneLinks::First,
        "last" => ZoneLinks::Last,
        w => return Err(InputError::new("wraps", w, "`first` or `last`").into()),
    };
    let sampler: Sampler = a.sampler.trim().parse()?;
    // Every output is checked before the work starts.
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let plot_out = a.plot.as_deref().map(|p| Dest::new("plot", p));
    output::prepare(&[json_out.as_ref(), plot_out.as_ref()])?;
    if let Some(list) = &a.dest_list {
        return single(&a, &grid, list, &algs, zone_links, json_out.as_ref());
    }
    if a.source.is_some() {
        return Err(InputError::new(
            "source",
            a.source.as_deref().unwrap_or_default(),
            "only with --dest-list (random multicasts follow --sampler)",
        )
        .into());
    }
    if a.runs == 0 {
        return Err(InputError::new("runs", 0, "at least 1").into());
    }
    let exp = Experiment {
        grid,
        runs: a.runs,
        seed: a.seed,
        zone_links,
        sampler,
    };
    let n = grid.nodes();
    let means = thesis_means(&grid);
    if (a.thesis || a.fit_k) && means.is_empty() {
        let mut have: Vec<&str> = THESIS_MEANS.iter().map(|m| m.grid).collect();
        have.dedup();
        return Err(InputError::new(
            "grid",
            &a.grid,
            format!("with --thesis/--fit-k one of {}", have.join(", ")),
        )
        .into());
    }
    let ks: Vec<usize> = if a.fit_k {
        (0..n).collect()
    } else if a.thesis {
        let mut ks: Vec<usize> = means.iter().flat_map(|m| m.ks.ks()).collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    } else if let Some(s) = &a.ks {
        parse_ks(s, n)?
    } else {
        (10..n).step_by(10).collect()
    };
    let curve: Vec<KPoint> = ks
        .par_iter()
        .map(|&k| exp.point(k))
        .collect::<Result<_, _>>()?;
    let mut doc = json!({
        "grid": grid.to_string(), "runs": a.runs, "seed": a.seed,
        "wraps": a.wraps, "sampler": sampler.name(), "curve": curve,
    });
    let fits = a.fit_k.then(|| fit_k(&curve, &means, 5));
    let thesis = if a.thesis && !a.fit_k {
        Some((compare(&curve, &means)?, ratios(&curve, &means)?))
    } else {
        None
    };
    if let Some(f) = &fits {
        doc["fits"] = json!(f);
    }
    if let Some((rows, rat)) = &thesis {
        doc["thesis"] = json!(rows);
        doc["ratios"] = json!(rat);
    }
    // Files first: a closed stdout pipe then loses only the tables.
    if let Some(d) = &json_out {
        d.write((serde_json::to_string_pretty(&doc)? + "\n").as_bytes())?;
    }
    if let Some(d) = &plot_out {
        plot(d, &grid, &curve, &algs)?;
    }
    if let Some(f) = &fits {
        print_fits(f, &means);
        return Ok(ExitCode::SUCCESS);
    }
    print_curve(&curve, &algs);
    if let Some((rows, rat)) = &thesis {
        outln!("\n| figure | quantity | thesis | ours | ours/thesis |\n|---|---|---|---|---|");
        for r in rows {
            outln!(
                "| {} | {} {} | {:.2} | {:.2} | {:.3} |",
                r.thesis.figure,
                r.thesis.quantity.name(),
                r.thesis.algorithm,
                r.thesis.value,
                r.ours,
                r.ratio
            );
        }
        outln!("\n| ratio | figure | thesis | ours | ours/thesis |\n|---|---|---|---|---|");
        for r in rat {
            outln!(
                "| {} {}/{} | {} | {:.3} | {:.3} | {:.3} |",
                r.quantity.name(),
                r.numerator,
                r.denominator,
                r.figure,
                r.thesis,
                r.ours,
                r.ours / r.thesis
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_curve(curve: &[KPoint], algs: &[Algorithm]) {
    let idx = |alg: &Algorithm| Algorithm::ALL.iter().position(|x| x == alg).unwrap();
    out!("| K |");
    for q in ["traffic", "time"] {
        for alg in algs {
            out!(" {q} {alg} |");
        }
    }
    outln!("\n|---|{}", "---|".repeat(2 * algs.len()));
    let row = |label: String, p: &KPoint| {
        out!("| {label} |");
        for alg in algs {
            out!(" {:.2} |", p.traffic[idx(alg)]);
        }
        for alg in algs {
            out!(" {:.2} |", p.time[idx(alg)]);
        }
        outln!();
    };
    for p in curve {
        row(p.k.to_string(), p);
    }
    row(format!("mean (K̄ {:.1})", mean_k(curve)), &mean(curve));
}

fn print_fits(
    fits: &[wormcast_sim::meshtree::experiment::KFit],
    means: &[wormcast_sim::meshtree::experiment::ThesisMean],
) {
    out!("| K set | mean K | worst \\|ratio − 1\\| |");
    for m in means {
        out!(" {} {} ({}) |", m.quantity.name(), m.algorithm, m.figure);
    }
    outln!("\n|---|---|---|{}", "---|".repeat(means.len()));
    for f in fits {
        out!(
            "| {}, {}, …, {} | {:.1} | {:.3} |",
            f.first,
            f.first + f.step,
            f.last,
            f.mean_k,
            f.worst
        );
        for r in &f.ratios {
            out!(" {r:.3} |");
        }
        outln!();
    }
}

/// One multicast: each algorithm's traffic, AAT, time and tree (every node
/// with its children in one-port service order and arrival hop).
fn single(
    a: &MtreeArgs,
    grid: &Grid,
    list: &str,
    algs: &[Algorithm],
    zone_links: ZoneLinks,
    json_out: Option<&Dest>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let source = match &a.source {
        Some(s) => Point::parse(grid, s, "source")?,
        None => Point::default(),
    };
    let dests = list
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| Point::parse(grid, p, "destination"))
        .collect::<Result<Vec<Point>, _>>()?;
    let mut out = Vec::new();
    for &alg in algs {
        let t = build_with(alg, grid, source, &dests, zone_links)?;
        outln!(
            "{alg}: traffic {} (AAT {}), time {}",
            t.traffic(),
            t.additional_traffic(),
            t.time()
        );
        for &p in t.nodes() {
            let kids = t.children(p);
            if kids.is_empty() {
                continue;
            }
            let kids: Vec<String> = kids
                .iter()
                .map(|&c| format!("{c}@{}", t.arrival(c).unwrap_or(0)))
                .collect();
            outln!("  {p} -> {}", kids.join(" "));
        }
        out.push(json!({
            "algorithm": alg, "traffic": t.traffic(), "aat": t.additional_traffic(),
            "time": t.time(),
            "edges": t.edges().iter().map(|(p, c)| (p.to_string(), c.to_string(), t.arrival(*c))).collect::<Vec<_>>(),
        }));
    }
    if let Some(d) = json_out {
        d.write((serde_json::to_string_pretty(&out)? + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Three panels against K, one line per algorithm: time, traffic, AAT (the
/// thesis's three chart types, §4.1.3).
fn plot(
    dest: &Dest,
    grid: &Grid,
    curve: &[KPoint],
    algs: &[Algorithm],
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::SeriesLabelPosition;
    // A K = 0 point (the thesis's zero sample) is not a multicast.
    let curve: Vec<&KPoint> = curve.iter().filter(|p| p.k > 0).collect();
    type Get = fn(&KPoint, usize) -> f64;
    // Legends where the curves are not: time and traffic rise, AAT falls
    // to 0 at K = N − 1.
    let kinds: [(&str, Get, SeriesLabelPosition); 3] = [
        (
            "time (hops)",
            |p, a| p.time[a],
            SeriesLabelPosition::LowerRight,
        ),
        (
            "traffic (links)",
            |p, a| p.traffic[a],
            SeriesLabelPosition::LowerRight,
        ),
        (
            "AAT (links)",
            |p, a| p.aat(a),
            SeriesLabelPosition::UpperRight,
        ),
    ];
    let panels: Vec<super::plot::Panel> = kinds
        .into_iter()
        .map(|(name, get, legend)| super::plot::Panel {
            title: format!("{grid}: {name}"),
            x_desc: "destinations K".into(),
            y_desc: name.into(),
            series: algs
                .iter()
                .map(|alg| {
                    let a = Algorithm::ALL.iter().position(|x| x == alg).unwrap();
                    (
                        alg.name().to_string(),
                        curve.iter().map(|p| (p.k as f64, get(p, a))).collect(),
                    )
                })
                .collect(),
            legend,
            dots: false,
        })
        .collect();
    super::plot::panels(dest, &panels)
}
