//! `wormcast trees`: build two edge-disjoint spanning trees (\[DSTM\] §4) and
//! print computed checks and the §5 metrics (combined diameter, average
//! distance). `--table A..B` prints the DSTM-1/DSTM-2 table of
//! `docs/results/dstm-trees.md` next to Theorems 5.1/5.2.

use crate::cli::output::pt;
use serde_json::json;
use std::process::ExitCode;
use wormcast_sim::topology::{EdgeId, NodeId, Topology};
use wormcast_sim::trees::{
    construct, construct_with, metrics, Construction, Fig5Split, Named, RootChoice, SpanningTree,
    TarjanSpec, TreePair,
};
use wormcast_sim::InputError;

/// The construction flags shared by `trees` and `route`.
#[derive(clap::Args)]
pub struct ConstructionArgs {
    /// `dstm1`, `dstm2`, a method `(±x)(±y)/(±y)(±x)` such as `+x-y/-y+x`, or
    /// a Roskind–Tarjan pair `tarjan-best`, `tarjan-average`, `tarjan-path`
    /// (optionally `:SEED` or `:SEED:TRIALS`; default 1 and 500).
    #[arg(long, default_value = "dstm1")]
    pub construction: String,
    /// Starting node R1 as `X,Y`.
    #[arg(long, default_value = "0,0")]
    pub r1: String,
    /// Starting node R2 as `X,Y` (default: the construction's offset from R1).
    #[arg(long)]
    pub r2: Option<String>,
}

#[derive(clap::Args)]
pub struct TreesArgs {
    /// Network, `torus:KxM` (trees need a torus).
    #[arg(long, required_unless_present_any = ["table", "tarjan_table", "fault_table"])]
    pub topology: Option<String>,
    #[command(flatten)]
    pub spec: ConstructionArgs,
    /// Root placement: `start` (R1, R2 with the Fig. 5 adjustment) or
    /// `intersection` (P = Q, Fig. 4). Default: the construction's own.
    #[arg(long)]
    pub roots: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print the DSTM-1/DSTM-2 metrics table for square tori `A..B` (inclusive).
    #[arg(long, value_name = "A..B", conflicts_with = "topology")]
    pub table: Option<String>,
    /// Print Fig. 8 (DSTM-1/2 vs Roskind–Tarjan CD and AD) for square tori
    /// `A..B` every `--step`.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["topology", "table"])]
    pub tarjan_table: Option<String>,
    /// Print Figs. 11/12 (DSTM-1/2 with one random faulty link) for square
    /// tori `A..B` every `--step`.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["topology", "table", "tarjan_table"])]
    pub fault_table: Option<String>,
    /// Size step of `--tarjan-table` / `--fault-table`.
    #[arg(long, default_value_t = 1)]
    pub step: u32,
    /// Random trials (edge orders or faulty links) per size.
    #[arg(long, default_value_t = 500)]
    pub trials: u32,
    /// Seed of the random trials.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Parses the common tree flags into a topology and a construction.
pub fn build(
    topology: &str,
    construction: &str,
    r1: &str,
    r2: Option<&str>,
    roots: Option<&str>,
) -> Result<(Topology, Named, Construction), InputError> {
    let topo = Topology::parse(topology)?;
    if !topo.is_torus() {
        return Err(InputError::new(
            "topology",
            topology,
            "a torus `torus:KxM`: a mesh has fewer than 2(N-1) links, so no two edge-disjoint spanning trees (paper 000 §8)",
        ));
    }
    let named = Named::parse(construction)?;
    let r1 = topo.parse_node(r1, "r1")?;
    let r2 = r2.map(|s| topo.parse_node(s, "r2")).transpose()?;
    let mut c = named.construction(&topo, r1, r2);
    if let Some(r) = roots {
        c.roots = match r.trim() {
            "start" => RootChoice::Start,
            "intersection" => RootChoice::Intersection,
            _ => {
                return Err(InputError::new(
                    "roots",
                    r,
                    "`start` (roots at R1, R2) or `intersection` (both at P = Q)",
                ))
            }
        };
    }
    Ok((topo, named, c))
}

/// The computed checks of Theorem 4.1 for a pair.
pub struct Checks {
    pub spanning: bool,
    pub edge_disjoint: bool,
    pub unused: Vec<EdgeId>,
    pub max_children: usize,
}

pub fn checks(topo: &Topology, p: &TreePair) -> Checks {
    // Re-derive everything from the edge lists rather than trusting the
    // constructor: spanning = N−1 edges forming a tree that reaches every node.
    let spanning = p.trees.iter().all(|t| {
        SpanningTree::from_edges(*topo, t.root, &t.edges, "check")
            .map(|u| u.depth.iter().all(|&d| d != u32::MAX))
            .unwrap_or(false)
    });
    let mut count = vec![0u8; topo.edge_slots() as usize];
    for t in &p.trees {
        for &e in &t.edges {
            count[e as usize] += 1;
        }
    }
    let edge_disjoint = count.iter().all(|&c| c <= 1);
    let unused = (0..topo.edge_slots())
        .filter(|&e| topo.edge_exists(e) && count[e as usize] == 0)
        .collect();
    let max_children = p.trees.iter().map(|t| t.max_children()).max().unwrap_or(0);
    Checks {
        spanning,
        edge_disjoint,
        unused,
        max_children,
    }
}

fn xy(topo: &Topology, n: NodeId) -> [u32; 2] {
    let (x, y) = topo.coord(n);
    [x, y]
}

/// `H(i,j)` / `V(i,j)` name of an edge: now `Topology::edge_name`, so
/// `tarjan.rs` needs nothing from this module (no import circle); kept for
/// callers on other branches.
pub fn edge_name(topo: &Topology, e: EdgeId) -> String {
    topo.edge_name(e)
}

/// Networks from this many nodes show the progress of their metrics on a
/// terminal: the all-pairs walk grows as N², from about 3 s at 96×96
/// (9 216 nodes) to 37 s at 255×255.
pub const PROGRESS_NODES: u64 = 8192;

pub fn run(a: TreesArgs) -> Result<ExitCode, String> {
    if let Some(range) = &a.table {
        return table(range).map_err(|e| e.to_string());
    }
    if let Some(range) = &a.tarjan_table {
        return super::tarjan::tarjan_table(range, a.step, a.trials, a.seed)
            .map_err(|e| e.to_string());
    }
    if let Some(range) = &a.fault_table {
        return super::tarjan::fault_table(range, a.step, a.trials, a.seed)
            .map_err(|e| e.to_string());
    }
    let topology = a.topology.as_deref().expect("clap requires it");
    if a.spec
        .construction
        .trim()
        .to_ascii_lowercase()
        .starts_with("tarjan")
    {
        let spec = TarjanSpec::parse(&a.spec.construction).map_err(|e| e.to_string())?;
        return super::tarjan::show(topology, spec, a.json).map_err(|e| e.to_string());
    }
    let (topo, named, c) = build(
        topology,
        &a.spec.construction,
        &a.spec.r1,
        a.spec.r2.as_deref(),
        a.roots.as_deref(),
    )
    .map_err(|e| e.to_string())?;
    let p = construct(&topo, &c).map_err(|e| e.to_string())?;
    let ch = checks(&topo, &p);
    let m = {
        let n = topo.nodes() as u64;
        let pb = crate::cli::progress::bar(n, "source nodes", n >= PROGRESS_NODES);
        pb.set_message("all-pairs tree distances");
        let m = wormcast_sim::trees::metrics_with_progress(&p.trees, &|k| pb.inc(k));
        pb.finish_and_clear();
        m
    };
    let roots = [p.trees[0].root, p.trees[1].root];
    let root_choice = match c.roots {
        RootChoice::Start => "start",
        RootChoice::Intersection => "intersection",
    };
    if a.json {
        let v = json!({
            "topology": topo.to_string(),
            "construction": named.to_string(),
            "method": c.method.to_string(),
            "r1": xy(&topo, c.r1),
            "r2": xy(&topo, c.r2),
            "root_choice": root_choice,
            "roots": [xy(&topo, roots[0]), xy(&topo, roots[1])],
            "spanning": ch.spanning,
            "edge_disjoint": ch.edge_disjoint,
            "unused_edges": ch.unused.len(),
            "unused_edge_list": ch.unused.iter().map(|&e| edge_name(&topo, e)).collect::<Vec<_>>(),
            "max_children": ch.max_children,
            "combined_diameter": m.combined_diameter,
            "average_distance": m.average_distance,
            "tree_diameters": m.tree_diameters,
            "tied_pairs": m.tied_pairs,
            "pairs": m.pairs,
        });
        outln!("{v}");
    } else {
        let rows: Vec<(&str, String)> = vec![
            ("topology", topo.to_string()),
            ("construction", named.to_string()),
            ("method (T1/T2)", c.method.to_string()),
            (
                "R1, R2",
                format!("{}, {}", pt(xy(&topo, c.r1)), pt(xy(&topo, c.r2))),
            ),
            (
                "roots",
                format!(
                    "{root_choice}: T1 {}, T2 {}",
                    pt(xy(&topo, roots[0])),
                    pt(xy(&topo, roots[1]))
                ),
            ),
            ("spanning", ch.spanning.to_string()),
            ("edge-disjoint", ch.edge_disjoint.to_string()),
            (
                "unused edges",
                format!(
                    "{} ({})",
                    ch.unused.len(),
                    ch.unused
                        .iter()
                        .map(|&e| edge_name(&topo, e))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            ("max children", ch.max_children.to_string()),
            ("combined diameter", m.combined_diameter.to_string()),
            ("average distance", format!("{:.4}", m.average_distance)),
            (
                "tree diameters",
                format!("{}, {}", m.tree_diameters[0], m.tree_diameters[1]),
            ),
            (
                "tied pairs",
                format!(
                    "{} of {} ({:.1}%)",
                    m.tied_pairs,
                    m.pairs,
                    100.0 * m.tied_pairs as f64 / m.pairs as f64
                ),
            ),
        ];
        for (k, v) in rows {
            outln!("{k:<18} {v}");
        }
    }
    let ok = ch.spanning && ch.edge_disjoint && ch.unused.len() == 2 && ch.max_children <= 2;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// CD/AD of a construction on a square torus.
fn cd_ad(
    s: u32,
    split: Fig5Split,
    c: impl Fn(&Topology) -> Construction,
) -> Result<(u32, f64), InputError> {
    let topo = Topology::torus(s, s)?;
    let p = construct_with(&topo, &c(&topo), split)?;
    let m = metrics(&p.trees);
    Ok((m.combined_diameter, m.average_distance))
}

/// The generator behind `docs/results/dstm-trees.md`.
fn table(range: &str) -> Result<ExitCode, InputError> {
    let err = || {
        InputError::new(
            "table",
            range,
            format!(
                "`A..B` with 2 <= A <= B <= {}",
                wormcast_sim::trees::dist::ALL_PAIRS_MAX_SIDE
            ),
        )
    };
    let (lo, hi) = range.split_once("..").ok_or_else(err)?;
    let lo: u32 = lo.trim().parse().map_err(|_| err())?;
    let hi: u32 = hi.trim().parse().map_err(|_| err())?;
    if lo < 2 || lo > hi || hi > wormcast_sim::trees::dist::ALL_PAIRS_MAX_SIDE {
        return Err(err());
    }
    outln!("| √N | DSTM-1 CD | Thm 5.1 (2√N−1) | ratio | DSTM-1 AD | DSTM-2 CD | Thm 5.2 (2√N−2) | ratio | DSTM-2 AD | DSTM-2 no Fig. 5: CD / AD | DSTM-2 Fig. 5 keep-half: CD / AD | DSTM-2 R2 offset ⌈√N/4⌉: CD |");
    outln!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let dflt = Fig5Split::MoveHalfUp;
    for s in lo..=hi {
        // R1 = (0,0) throughout; roots never change tree distances, only the
        // Fig. 5 move (which changes edges) does.
        let d1 = |t: &Topology| Named::Dstm1.construction(t, 0, None);
        let d2 = |t: &Topology| Named::Dstm2.construction(t, 0, None);
        let (c1, a1) = cd_ad(s, dflt, d1)?;
        let (c2, a2) = cd_ad(s, dflt, d2)?;
        // `Intersection` roots never apply the Fig. 5 move, so these are the
        // DSTM-2 edges of Theorem 4.1 as constructed.
        let (c2n, a2n) = cd_ad(s, dflt, |t| Construction {
            roots: RootChoice::Intersection,
            ..d2(t)
        })?;
        let (c2u, a2u) = cd_ad(s, Fig5Split::KeepHalf, d2)?;
        let (c2c, _) = cd_ad(s, dflt, |t| {
            Named::Dstm2.construction(t, 0, Some(t.id(0, s.div_ceil(4) % s)))
        })?;
        let (t1, t2) = (2 * s - 1, 2 * s - 2);
        outln!(
            "| {s} | {c1} | {t1} | {:.3} | {a1:.3} | {c2} | {t2} | {:.3} | {a2:.3} | {c2n} / {a2n:.3} | {c2u} / {a2u:.3} | {c2c} |",
            c1 as f64 / t1 as f64,
            c2 as f64 / t2 as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}
