//! `wormcast trees --tarjan-table` (\[DSTM\] Fig. 8), `--fault-table`
//! (Figs. 11/12) and `--construction tarjan-{best,average,path}`: the
//! Roskind–Tarjan comparison of §5.3 and the single-link faults of §7.
//! Generators of `docs/results/fig8-tarjan.md` and
//! `docs/results/fig11-12-faults.md`.

use crate::cli::output::pt;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::dist::ALL_PAIRS_MAX_SIDE;
use wormcast_sim::trees::faults::fault_trials;
use wormcast_sim::trees::tarjan::{run_trials, select, summarize, TarjanWhich};
use wormcast_sim::trees::{construct, metrics, Named, TarjanSpec};
use wormcast_sim::InputError;

/// Square sizes `A..B` every `step`.
pub fn sizes(flag: &str, range: &str, step: u32) -> Result<Vec<u32>, InputError> {
    let err = || {
        InputError::new(
            flag,
            range,
            format!("`A..B` with 2 <= A <= B <= {ALL_PAIRS_MAX_SIDE}"),
        )
    };
    let (lo, hi) = range.split_once("..").ok_or_else(err)?;
    let lo: u32 = lo.trim().parse().map_err(|_| err())?;
    let hi: u32 = hi.trim().parse().map_err(|_| err())?;
    if lo < 2 || lo > hi || hi > ALL_PAIRS_MAX_SIDE {
        return Err(err());
    }
    if step == 0 {
        return Err(InputError::new("step", step, "at least 1"));
    }
    Ok((lo..=hi).step_by(step as usize).collect())
}

fn dstm(s: u32, named: Named) -> Result<wormcast_sim::trees::TreePair, InputError> {
    let t = Topology::torus(s, s)?;
    construct(&t, &named.construction(&t, 0, None))
}

/// Least-squares slope of `y` against `x`.
fn slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let num: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let den: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    num / den
}

/// Fig. 8: CD and AD of DSTM-1, DSTM-2 and Roskind–Tarjan (min and mean over
/// `trials` random orders, plus the Hamilton-path order).
pub fn tarjan_table(
    range: &str,
    step: u32,
    trials: u32,
    seed: u64,
) -> Result<ExitCode, InputError> {
    let sizes = sizes("tarjan-table", range, step)?;
    if trials == 0 {
        return Err(InputError::new(
            "trials",
            trials,
            "at least 1 random edge order (the paper uses 500)",
        ));
    }
    outln!("| √N | DSTM-1 CD | DSTM-2 CD | RT min CD | RT mean CD | RT min / DSTM-1 | RT min / DSTM-2 | RT mean / DSTM-1 | RT mean / DSTM-2 | DSTM-1 AD | DSTM-2 AD | RT min AD | RT mean AD | RT mean AD / DSTM-1 | RT mean AD / DSTM-2 | RT max children | RT path CD / AD | best trial | average trial (CD / AD) | s |");
    outln!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut xs, mut a1s, mut a2s, mut ats) = (vec![], vec![], vec![], vec![]);
    for s in sizes {
        let start = Instant::now();
        let t = Topology::torus(s, s)?;
        let m1 = metrics(&dstm(s, Named::Dstm1)?.trees);
        let m2 = metrics(&dstm(s, Named::Dstm2)?.trees);
        let tr = run_trials(&t, seed, trials)?;
        let su = summarize(&tr);
        let best = select(&tr, TarjanWhich::Best).expect("trials >= 1");
        let avg = select(&tr, TarjanWhich::Average).expect("trials >= 1");
        let path = if s >= 3 {
            let p = TarjanSpec {
                which: TarjanWhich::Path,
                seed,
                trials,
            }
            .build(&t)?;
            let m = metrics(&p.trees);
            format!("{} / {:.2}", m.combined_diameter, m.average_distance)
        } else {
            "–".into()
        };
        let (c1, c2) = (m1.combined_diameter as f64, m2.combined_diameter as f64);
        let (a1, a2) = (m1.average_distance, m2.average_distance);
        outln!(
            "| {s} | {c1} | {c2} | {} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {a1:.3} | {a2:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {path} | #{} | #{} ({} / {:.3}) | {:.1} |",
            su.min_cd,
            su.mean_cd,
            su.min_cd as f64 / c1,
            su.min_cd as f64 / c2,
            su.mean_cd / c1,
            su.mean_cd / c2,
            su.min_ad,
            su.mean_ad,
            su.mean_ad / a1,
            su.mean_ad / a2,
            su.max_children,
            best.index,
            avg.index,
            avg.combined_diameter,
            avg.average_distance,
            start.elapsed().as_secs_f64()
        );
        xs.push(s as f64);
        a1s.push(a1);
        a2s.push(a2);
        ats.push(su.mean_ad);
    }
    if xs.len() >= 2 {
        let (k1, k2, kt) = (slope(&xs, &a1s), slope(&xs, &a2s), slope(&xs, &ats));
        outln!();
        outln!(
            "AD slope per unit of √N (least squares): DSTM-1 {k1:.4}, DSTM-2 {k2:.4}, RT mean {kt:.4}; RT grows {:.1}% faster than DSTM-1 and {:.1}% faster than DSTM-2",
            100.0 * (kt / k1 - 1.0),
            100.0 * (kt / k2 - 1.0)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Figs. 11/12: DSTM-1 and DSTM-2 with one random faulty link, global and
/// local information, next to the fault-free DSTM and Roskind–Tarjan values.
pub fn fault_table(range: &str, step: u32, trials: u32, seed: u64) -> Result<ExitCode, InputError> {
    let sizes = sizes("fault-table", range, step)?;
    if trials == 0 {
        return Err(InputError::new(
            "trials",
            trials,
            "at least 1 random faulty link (the paper uses 500)",
        ));
    }
    // Fault-free Roskind–Tarjan values, once per size, for the §7 claim.
    let mut rts = Vec::with_capacity(sizes.len());
    for &s in &sizes {
        rts.push(summarize(&run_trials(
            &Topology::torus(s, s)?,
            seed,
            trials,
        )?));
    }
    for named in [Named::Dstm1, Named::Dstm2] {
        outln!(
            "### {}",
            if named == Named::Dstm1 {
                "DSTM-1"
            } else {
                "DSTM-2"
            }
        );
        outln!();
        outln!("| √N | CD no fault | global mean CD | global max CD | local mean CD | local max CD | AD no fault | global mean AD | global max AD | local mean AD | local max AD | RT no fault: min CD / mean AD | unused-link trials |");
        outln!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (&s, rt) in sizes.iter().zip(&rts) {
            let p = dstm(s, named)?;
            let m = metrics(&p.trees);
            let f = fault_trials(&p.trees, seed, trials)?;
            outln!(
                "| {s} | {} | {:.2} | {} | {:.2} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} / {:.3} | {} |",
                m.combined_diameter,
                f.global.mean_cd,
                f.global.max_cd,
                f.local.mean_cd,
                f.local.max_cd,
                m.average_distance,
                f.global.mean_ad,
                f.global.max_ad,
                f.local.mean_ad,
                f.local.max_ad,
                rt.min_cd,
                rt.mean_ad,
                f.unused_hits
            );
        }
        outln!();
    }
    Ok(ExitCode::SUCCESS)
}

/// `wormcast trees --topology torus:KxM --construction tarjan-…`.
pub fn show(topology: &str, spec: TarjanSpec, as_json: bool) -> Result<ExitCode, InputError> {
    let topo = Topology::parse(topology)?;
    let p = spec.build(&topo)?;
    let m = metrics(&p.trees);
    let ch: Vec<usize> = p.trees.iter().map(|t| t.max_children()).collect();
    let xy = |n| {
        let (x, y) = topo.coord(n);
        [x, y]
    };
    let unused: Vec<String> = p.unused.iter().map(|&e| topo.edge_name(e)).collect();
    if as_json {
        outln!(
            "{}",
            json!({
                "topology": topo.to_string(),
                "construction": spec.to_string(),
                "roots": [xy(p.trees[0].root), xy(p.trees[1].root)],
                "root_choice": "centroid",
                "spanning": true,
                "edge_disjoint": true,
                "unused_edges": p.unused.len(),
                "unused_edge_list": unused,
                "max_children": ch,
                "combined_diameter": m.combined_diameter,
                "average_distance": m.average_distance,
                "tree_diameters": m.tree_diameters,
                "tied_pairs": m.tied_pairs,
                "pairs": m.pairs,
                "augmentations": p.partition.augmentations,
            })
        );
    } else {
        let rows = [
            ("topology", topo.to_string()),
            ("construction", spec.to_string()),
            (
                "roots",
                format!(
                    "centroid: T1 {}, T2 {}",
                    pt(xy(p.trees[0].root)),
                    pt(xy(p.trees[1].root))
                ),
            ),
            (
                "spanning",
                "true (checked by SpanningTree::from_edges)".into(),
            ),
            ("edge-disjoint", "true (matroid partition)".into()),
            (
                "unused edges",
                format!("{} ({})", unused.len(), unused.join(", ")),
            ),
            ("max children", format!("{}, {}", ch[0], ch[1])),
            ("combined diameter", m.combined_diameter.to_string()),
            ("average distance", format!("{:.4}", m.average_distance)),
            (
                "tree diameters",
                format!("{}, {}", m.tree_diameters[0], m.tree_diameters[1]),
            ),
        ];
        for (k, v) in rows {
            outln!("{k:<18} {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
