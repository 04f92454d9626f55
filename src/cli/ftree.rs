//! `wormcast ftree`: fault-tolerant tree multicast on a mesh with faulty
//! blocks (\[FTTREE\], `sim::ftmesh`). Random trials give the paper's metric,
//! total traffic steps, for Strategies 1–3 against multiple unicast;
//! `--fig10` / `--fig11` sweep the paper's Figs. 10(2) and 11 and can plot
//! them; `--dest-list` routes one explicit multicast and prints its tree.

use crate::cli::output::{self, Dest};
use rayon::prelude::*;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::ftmesh::experiment::{Keep, SourceChoice, TrialOutcome, TrialSpec};
use wormcast_sim::ftmesh::{multicast, Coord, FaultyMesh, Strategy};
use wormcast_sim::topology::Topology;
use wormcast_sim::InputError;

#[derive(clap::Args)]
pub struct FtreeArgs {
    /// Mesh size `KxM` (K columns, M rows).
    #[arg(long, default_value = "50x50")]
    pub mesh: String,
    /// Number of random faulty nodes per trial.
    #[arg(long, default_value_t = 0)]
    pub faults: u32,
    /// Number of random destinations per trial.
    #[arg(long, default_value_t = 10)]
    pub dests: u32,
    /// `1`, `2`, `3` or `all`.
    #[arg(long, default_value = "all")]
    pub strategy: String,
    /// Random instances per point.
    #[arg(long, default_value_t = 100)]
    pub trials: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `random` (a random healthy node) or a fixed `X,Y`.
    #[arg(long, default_value = "random")]
    pub source: String,
    /// Which random destinations are multicast: `minimal` (all with a
    /// fault-free minimal path) or `extended-safe` (the paper's assumption).
    #[arg(long, default_value = "minimal")]
    pub keep: String,
    /// Fig. 10(2): faults 0..=320 every `--step`, at 10 and 40 destinations.
    #[arg(long, conflicts_with = "fig11")]
    pub fig10: bool,
    /// Fig. 11: destinations 0..=120 every `--step`, at 50, 100, 150 faults.
    #[arg(long)]
    pub fig11: bool,
    /// Sweep step of `--fig10` / `--fig11`.
    #[arg(long, default_value_t = 10)]
    pub step: u32,
    /// Write the sweep as an SVG plot (`-` for stdout).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Write the results as JSON (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Route one explicit multicast: destinations `X,Y;X,Y;...` (needs a
    /// fixed `--source`); prints the tree of each strategy.
    #[arg(long, conflicts_with_all = ["fig10", "fig11"])]
    pub dest_list: Option<String>,
    /// Faulty nodes `X,Y;X,Y;...` for `--dest-list`.
    #[arg(long, default_value = "")]
    pub fault_list: String,
    /// With `--dest-list`: build the greedy optimal multicast tree of
    /// paper 002 Definition 6 (Fig. 8(b)) instead of the strategies: one
    /// fixed `--source`, destinations in its +X+Y quadrant, faults from
    /// `--fault-list`. Prints its virtual edges, traffic steps and the
    /// multiple-unicast count.
    #[arg(long, requires = "dest_list")]
    pub greedy: bool,
}

fn parse_mesh(s: &str) -> Result<Topology, InputError> {
    Topology::parse(&format!("mesh:{s}")).map_err(|_| {
        InputError::new(
            "mesh",
            s,
            format!(
                "`KxM` with sides from 2 to {}, e.g. `50x50`",
                wormcast_sim::topology::MAX_SIDE
            ),
        )
    })
}

fn parse_list(topo: &Topology, s: &str, field: &str) -> Result<Vec<Coord>, InputError> {
    s.split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| topo.parse_node(p, field).map(|n| topo.coord(n)))
        .collect()
}

fn strategies(s: &str) -> Result<Vec<Strategy>, InputError> {
    if s.trim() == "all" {
        Ok(Strategy::ALL.to_vec())
    } else {
        Ok(vec![Strategy::from_number(s)?])
    }
}

/// Mean results of one (faults, destinations) point.
#[derive(Debug, Clone, serde::Serialize)]
struct Point {
    faults: u32,
    dests: u32,
    trials: u32,
    routed: f64,
    unicast: f64,
    /// Indexed by strategy number − 1.
    traffic: [f64; 3],
    separating_points: [f64; 3],
    overrides: [u64; 3],
}

impl Point {
    fn of(faults: u32, dests: u32, outs: &[TrialOutcome]) -> Point {
        let n = outs.len().max(1) as f64;
        let mean =
            |f: &dyn Fn(&TrialOutcome) -> u32| outs.iter().map(|o| f(o) as f64).sum::<f64>() / n;
        Point {
            faults,
            dests,
            trials: outs.len() as u32,
            routed: mean(&|o| o.routed),
            unicast: mean(&|o| o.unicast),
            traffic: [0, 1, 2].map(|i| mean(&|o| o.traffic[i])),
            separating_points: [0, 1, 2].map(|i| mean(&|o| o.separating_points[i])),
            overrides: [0, 1, 2].map(|i| outs.iter().map(|o| o.overrides[i] as u64).sum()),
        }
    }
}

pub fn run(a: FtreeArgs) -> Result<ExitCode, String> {
    run_inner(a).map_err(|e| e.to_string())
}

fn run_inner(a: FtreeArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let topo = parse_mesh(&a.mesh)?;
    let strats = strategies(&a.strategy)?;
    let source = match a.source.trim() {
        "random" => SourceChoice::Random,
        s => SourceChoice::Fixed(topo.coord(topo.parse_node(s, "source")?)),
    };
    let keep = match a.keep.trim() {
        "minimal" => Keep::Minimal,
        "extended-safe" => Keep::ExtendedSafe,
        k => return Err(InputError::new("keep", k, "`minimal` or `extended-safe`").into()),
    };
    if a.trials == 0 {
        return Err(InputError::new("trials", 0, "at least 1").into());
    }
    if a.step == 0 {
        return Err(InputError::new("step", 0, "at least 1").into());
    }
    // Every output is checked before the trials run.
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let plot_out = a.plot.as_deref().map(|p| Dest::new("plot", p));
    if let Some(path) = &a.plot {
        if !(a.fig10 || a.fig11) {
            return Err(InputError::new("plot", path.display(), "needs --fig10 or --fig11").into());
        }
    }
    output::prepare(&[json_out.as_ref(), plot_out.as_ref()])?;
    if let (true, Some(list)) = (a.greedy, &a.dest_list) {
        return greedy(&a, topo, source, list, json_out.as_ref());
    }
    if let Some(list) = &a.dest_list {
        return single(&a, topo, source, list, &strats, json_out.as_ref());
    }
    if !(a.fig10 || a.fig11) && a.dests as u64 + a.faults as u64 + 1 > topo.nodes() as u64 {
        return Err(InputError::new(
            "dests",
            a.dests,
            format!(
                "at most {} on this mesh with {} faults (nodes other than the source and the faulty ones)",
                (topo.nodes() as u64).saturating_sub(a.faults as u64 + 1),
                a.faults
            ),
        )
        .into());
    }
    let points: Vec<(u32, u32)> = if a.fig10 {
        [10, 40]
            .into_iter()
            .flat_map(|d| (0..=320).step_by(a.step as usize).map(move |f| (f, d)))
            .collect()
    } else if a.fig11 {
        [50, 100, 150]
            .into_iter()
            .flat_map(|f| (0..=120).step_by(a.step as usize).map(move |d| (f, d)))
            .collect()
    } else {
        vec![(a.faults, a.dests)]
    };
    let specs: Vec<TrialSpec> = points
        .iter()
        .map(|&(faults, dests)| TrialSpec {
            topo,
            faults,
            dests,
            source,
            keep,
            seed: a.seed,
        })
        .collect();
    for s in &specs {
        s.validate()?;
    }
    let jobs: Vec<(usize, u64)> = (0..specs.len())
        .flat_map(|p| (0..a.trials as u64).map(move |t| (p, t)))
        .collect();
    let outs: Vec<Result<TrialOutcome, InputError>> =
        jobs.par_iter().map(|&(p, t)| specs[p].run(t)).collect();
    let mut per_point: Vec<Vec<TrialOutcome>> = vec![Vec::new(); specs.len()];
    for (&(p, _), o) in jobs.iter().zip(outs) {
        per_point[p].push(o?);
    }
    let results: Vec<Point> = points
        .iter()
        .zip(&per_point)
        .map(|(&(f, d), o)| Point::of(f, d, o))
        .collect();
    // Files first: a closed stdout pipe then loses only the table.
    if let Some(d) = &json_out {
        let doc = json!({
            "mesh": a.mesh, "trials": a.trials, "seed": a.seed,
            "source": a.source, "keep": a.keep, "points": results,
        });
        d.write((serde_json::to_string_pretty(&doc)? + "\n").as_bytes())?;
    }
    if let Some(d) = &plot_out {
        let (panels, by_faults): (Vec<u32>, bool) = if a.fig10 {
            (vec![10, 40], true)
        } else {
            (vec![50, 100, 150], false)
        };
        plot(d, &results, &panels, by_faults, &strats)?;
    }
    print_table(&results, &strats);
    Ok(ExitCode::SUCCESS)
}

fn print_table(results: &[Point], strats: &[Strategy]) {
    out!(
        "{:>6} {:>5} {:>7} {:>8}",
        "faults",
        "dests",
        "routed",
        "unicast"
    );
    for s in strats {
        out!(
            " {:>8} {:>6}",
            format!("S{}", s.number()),
            format!("MU/S{}", s.number())
        );
    }
    outln!(" {:>9}", "overrides");
    for p in results {
        out!(
            "{:>6} {:>5} {:>7.1} {:>8.1}",
            p.faults,
            p.dests,
            p.routed,
            p.unicast
        );
        let mut ov = 0;
        for s in strats {
            let i = s.number() as usize - 1;
            let ratio = if p.traffic[i] > 0.0 {
                p.unicast / p.traffic[i]
            } else {
                f64::NAN
            };
            out!(" {:>8.1} {:>6.2}", p.traffic[i], ratio);
            ov += p.overrides[i];
        }
        outln!(" {ov:>9}");
    }
}

fn single(
    a: &FtreeArgs,
    topo: Topology,
    source: SourceChoice,
    list: &str,
    strats: &[Strategy],
    json_out: Option<&Dest>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let SourceChoice::Fixed(src) = source else {
        return Err(InputError::new("source", "random", "a fixed `X,Y` with --dest-list").into());
    };
    let faults = parse_list(&topo, &a.fault_list, "fault")?;
    let dests = parse_list(&topo, list, "destination")?;
    let mesh = FaultyMesh::new(topo, &faults)?;
    let mut out = Vec::new();
    for &s in strats {
        let m = multicast(&mesh, src, &dests, s, a.seed)?;
        outln!(
            "strategy {}: traffic {} (multiple unicast {}), separating points {}, unreachable {}",
            s.number(),
            m.traffic,
            m.unicast_traffic,
            m.stats.separating_points,
            if m.unreachable.is_empty() {
                "none".to_string()
            } else {
                m.unreachable
                    .iter()
                    .map(|c| format!("({},{})", c.0, c.1))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        );
        for b in m.tree.branch_nodes() {
            if b.children.is_empty() && !b.destination {
                continue;
            }
            let kids: Vec<String> = b
                .child_coords
                .iter()
                .map(|c| format!("({},{})", c.0, c.1))
                .collect();
            outln!(
                "  ({},{}){} -> {}",
                b.at.0,
                b.at.1,
                if b.destination { " [dest]" } else { "" },
                if kids.is_empty() {
                    "-".to_string()
                } else {
                    kids.join(" ")
                }
            );
        }
        out.push(json!({
            "strategy": s.number(), "traffic": m.traffic, "unicast": m.unicast_traffic,
            "blocks": mesh.blocks, "branch_nodes": m.tree.branch_nodes(), "visits": m.tree.visits,
            "unreachable": m.unreachable, "not_extended_safe": m.not_extended_safe,
        }));
    }
    if let Some(d) = json_out {
        d.write((serde_json::to_string_pretty(&out)? + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--greedy`: the greedy optimal multicast tree (\[FTTREE\] Definition 6,
/// Fig. 8(b); `ftmesh::greedy_tree`). Its traffic is the total length of
/// its virtual edges (each realised by one minimal path); multiple unicast
/// sends one minimal path per destination.
fn greedy(
    a: &FtreeArgs,
    topo: Topology,
    source: SourceChoice,
    list: &str,
    json_out: Option<&Dest>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let SourceChoice::Fixed(src) = source else {
        return Err(InputError::new("source", "random", "a fixed `X,Y` with --greedy").into());
    };
    let faults = parse_list(&topo, &a.fault_list, "fault")?;
    let dests = parse_list(&topo, list, "destination")?;
    if dests.is_empty() {
        return Err(InputError::new("dest-list", list, "at least one destination `X,Y`").into());
    }
    let mesh = FaultyMesh::new(topo, &faults)?;
    let edges = wormcast_sim::ftmesh::greedy_tree(&mesh, src, &dests)?;
    let steps = |a: Coord, b: Coord| a.0.abs_diff(b.0) + a.1.abs_diff(b.1);
    let traffic: u32 = edges.iter().map(|&(u, v)| steps(u, v)).sum();
    let mut uniq = dests.clone();
    uniq.sort_unstable();
    uniq.dedup();
    let unicast: u32 = uniq.iter().map(|&d| steps(src, d)).sum();
    // The file first, then the table (a closed stdout must not lose it).
    if let Some(d) = json_out {
        let doc = json!({
            "source": src, "destinations": uniq, "blocks": mesh.blocks,
            "edges": edges, "traffic": traffic, "unicast": unicast,
        });
        d.write((serde_json::to_string_pretty(&doc)? + "\n").as_bytes())?;
    }
    outln!(
        "greedy multicast tree from ({},{}) to {} destinations, {} faulty blocks",
        src.0,
        src.1,
        uniq.len(),
        mesh.blocks.len()
    );
    for &(u, v) in &edges {
        outln!(
            "  ({},{}) -> ({},{})  {} steps",
            u.0,
            u.1,
            v.0,
            v.1,
            steps(u, v)
        );
    }
    outln!("traffic steps {traffic}, multiple unicast {unicast}");
    Ok(ExitCode::SUCCESS)
}

/// One panel per destination count (Fig. 10) or fault count (Fig. 11):
/// multiple unicast and each strategy against the swept quantity.
fn plot(
    dest: &Dest,
    results: &[Point],
    panels: &[u32],
    by_faults: bool,
    strats: &[Strategy],
) -> Result<(), Box<dyn std::error::Error>> {
    let panels: Vec<super::plot::Panel> = panels
        .iter()
        .map(|&fixed| {
            let pts: Vec<&Point> = results
                .iter()
                .filter(|p| {
                    if by_faults {
                        p.dests == fixed
                    } else {
                        p.faults == fixed
                    }
                })
                .collect();
            let xv = |p: &Point| if by_faults { p.faults } else { p.dests } as f64;
            let mut series: Vec<(String, Vec<(f64, f64)>)> = vec![(
                "multiple unicast".into(),
                pts.iter().map(|p| (xv(p), p.unicast)).collect(),
            )];
            for s in strats {
                let i = s.number() as usize - 1;
                series.push((
                    format!("strategy {}", s.number()),
                    pts.iter().map(|p| (xv(p), p.traffic[i])).collect(),
                ));
            }
            super::plot::Panel {
                title: if by_faults {
                    format!("{fixed} destinations")
                } else {
                    format!("{fixed} faults")
                },
                x_desc: if by_faults { "faults" } else { "destinations" }.into(),
                y_desc: "total traffic steps".into(),
                series,
                legend: plotters::prelude::SeriesLabelPosition::UpperLeft,
                dots: true,
            }
        })
        .collect();
    super::plot::panels(dest, &panels)
}
