//! Sharded sweeps: `wormcast sweep --shard I/N` runs a
//! deterministic slice of a sweep's points, and `wormcast sweep-merge`
//! puts the shards back together into exactly the JSON and plot one
//! unsharded `wormcast sweep` writes. This is what a cluster job array runs
//! (`scripts/slurm-sweep.sh`, README "Running sweeps on a cluster").
//!
//! Why round-robin (point `p` belongs to shard `p mod N`): a sweep's cost
//! grows steeply with load, and points are ordered scheme by scheme, load by
//! load; contiguous blocks would give one shard all the saturated points.
//!
//! Why a fingerprint: shards are files on a shared disk, written by jobs
//! that may have run different commands (a resubmitted shard with another
//! `--set`). The merge refuses shards whose sweep definition differs, so it
//! cannot silently splice two different sweeps.

use crate::cli::output::{self, Dest};
use crate::cli::sweep_out::{
    exit_code, parse_loads, parse_schemes, plot, Point, ShardInfo, SweepOut,
};
use serde::Deserialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--shard I/N`: this is shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: usize,
    pub count: usize,
}

impl ShardSpec {
    pub fn parse(s: &str) -> Result<ShardSpec, String> {
        let err = || {
            format!(
                "invalid --shard = `{s}`: `I/N` with N >= 1 shards and 0 <= I < N (0-based, e.g. `0/4` .. `3/4`)"
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let index: usize = i.trim().parse().map_err(|_| err())?;
        let count: usize = n.trim().parse().map_err(|_| err())?;
        if count == 0 || index >= count {
            return Err(err());
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether point `p` (in the unsharded order) belongs to this shard.
    pub fn owns(&self, p: usize) -> bool {
        p % self.count == self.index
    }
}

/// A stable hash of the sweep definition (not `DefaultHasher`, whose
/// output Rust does not promise across versions: shards may be written by
/// different builds of the same source).
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' JSON files (`wormcast sweep --shard I/N --json FILE`),
    /// all N of them, in any order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Write the merged JSON (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Plot mean latency against offered load as SVG (`-` for stdout).
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

#[derive(Deserialize)]
struct ShardFile {
    scenario: String,
    complete: bool,
    points: Vec<Point>,
    shard: Option<ShardInfo>,
    #[serde(default)]
    provenance: Option<crate::cli::provenance::Provenance>,
}

/// The merged sweep: scenario name, completeness, the points in unsharded
/// order, and the first shard's provenance (absent from older builds).
pub struct Merged {
    pub scenario: String,
    pub complete: bool,
    pub points: Vec<Point>,
    pub provenance: Option<crate::cli::provenance::Provenance>,
}

/// Reads and checks the shards.
pub fn merge_points(files: &[PathBuf]) -> Result<Merged, String> {
    let mut shards = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| format!("cannot read shard {}: {e}", f.display()))?;
        let s: ShardFile = serde_json::from_str(&text)
            .map_err(|e| format!("shard {}: not a sweep JSON: {e}", f.display()))?;
        let info = s.shard.clone().ok_or_else(|| {
            format!(
                "shard {}: no `shard` field; it was written without `--shard I/N`",
                f.display()
            )
        })?;
        if info.point_indices.len() != s.points.len() {
            return Err(format!(
                "shard {}: {} points but {} point indices (truncated file?)",
                f.display(),
                s.points.len(),
                info.point_indices.len()
            ));
        }
        shards.push((f, s, info));
    }
    let (f0, s0, i0) = &shards[0];
    let mut seen = vec![None; i0.count];
    let mut points: Vec<Option<Point>> = vec![None; i0.points_total];
    let mut complete = true;
    for (f, s, info) in &shards {
        for (what, a, b) in [
            (
                "fingerprint",
                info.fingerprint.clone(),
                i0.fingerprint.clone(),
            ),
            ("shard count", info.count.to_string(), i0.count.to_string()),
            (
                "point count",
                info.points_total.to_string(),
                i0.points_total.to_string(),
            ),
            ("scenario", s.scenario.clone(), s0.scenario.clone()),
            (
                "loads",
                info.loads.clone().unwrap_or_default(),
                i0.loads.clone().unwrap_or_default(),
            ),
            (
                "schemes",
                info.schemes.clone().unwrap_or_default(),
                i0.schemes.clone().unwrap_or_default(),
            ),
        ] {
            if a != b {
                return Err(format!(
                    "shard {} is from another sweep than {}: {what} `{a}` against `{b}`",
                    f.display(),
                    f0.display()
                ));
            }
        }
        if let Some(other) = seen[info.index].replace(f) {
            return Err(format!(
                "shard {} given twice: {} and {}",
                info.index,
                other.display(),
                f.display()
            ));
        }
        complete &= s.complete;
        let grid = grid(f, info)?;
        for (p, &k) in s.points.iter().zip(&info.point_indices) {
            if k >= points.len() || points[k].is_some() || k % info.count != info.index {
                return Err(format!("shard {}: bad point index {k}", f.display()));
            }
            if let Some((schemes, loads)) = &grid {
                let (scheme, load) = (&schemes[k / loads.len()], loads[k % loads.len()]);
                // Shards of older builds carry the loads' binary noise.
                if p.scheme != *scheme || wormcast_sim::decimal::denoise(p.load) != load {
                    return Err(format!(
                        "shard {}: point {k} is (scheme `{}`, load {}), but the sweep (--schemes `{}`, --loads `{}`) has (scheme `{scheme}`, load {load}) there; the file was edited or damaged",
                        f.display(),
                        p.scheme,
                        p.load,
                        info.schemes.as_deref().unwrap_or_default(),
                        info.loads.as_deref().unwrap_or_default(),
                    ));
                }
            }
            points[k] = Some(p.clone());
        }
    }
    let missing: Vec<String> = (0..i0.count)
        .filter(|&i| seen[i].is_none())
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing shard(s) {} of {}: run `wormcast sweep ... --shard I/{}` for each",
            missing.join(","),
            i0.count,
            i0.count
        ));
    }
    // An interrupted shard holds fewer points than it owns: the merge is
    // then incomplete, as an interrupted unsharded sweep is.
    let complete = complete && points.iter().all(Option::is_some);
    Ok(Merged {
        scenario: s0.scenario.clone(),
        complete,
        points: points.into_iter().flatten().collect(),
        provenance: s0.provenance.clone(),
    })
}

/// A sweep's points: its schemes, each at every load.
type Grid = (Vec<String>, Vec<f64>);

/// The sweep's grid (schemes, loads) as the shard records it, checked
/// against its point count; `None` for a shard of an older build, which
/// does not record it.
fn grid(f: &std::path::Path, info: &ShardInfo) -> Result<Option<Grid>, String> {
    let (Some(l), Some(s)) = (&info.loads, &info.schemes) else {
        return Ok(None);
    };
    let bad = |why: String| {
        format!(
            "shard {}: {why}; the file was edited or damaged",
            f.display()
        )
    };
    let loads = parse_loads(l).map_err(|e| bad(e.to_string()))?;
    let schemes = parse_schemes(s);
    if schemes.len() * loads.len() != info.points_total {
        return Err(bad(format!(
            "points_total = {} but --schemes `{s}` and --loads `{l}` make {} points",
            info.points_total,
            schemes.len() * loads.len()
        )));
    }
    Ok(Some((schemes, loads)))
}

pub fn run(a: MergeArgs) -> Result<ExitCode, String> {
    let inputs: Vec<(&str, &std::path::Path)> =
        a.shards.iter().map(|p| ("shard", p.as_path())).collect();
    output::refuse_overwriting_inputs(
        &[("--json", a.json.as_deref()), ("--plot", a.plot.as_deref())],
        &inputs,
    )?;
    let json_out = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let plot_out = a.plot.as_deref().map(|p| Dest::new("plot", p));
    // The shards are checked before the outputs, so bad shards leave no
    // file behind.
    let Merged {
        scenario,
        complete,
        points,
        provenance,
    } = merge_points(&a.shards)?;
    output::prepare(&[json_out.as_ref(), plot_out.as_ref()])?;
    if let Some(d) = &json_out {
        let out = SweepOut {
            scenario: scenario.clone(),
            complete,
            points: &points,
            shard: None,
            provenance,
        };
        d.write((serde_json::to_string_pretty(&out).expect("serialises") + "\n").as_bytes())?;
    }
    if let Some(d) = &plot_out {
        plot(d, &points, &scenario).map_err(|e| format!("cannot write {}: {e}", d.name()))?;
    }
    eprintln!("merged {} shards: {} points", a.shards.len(), points.len());
    Ok(exit_code(&points, complete))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs() {
        assert_eq!(
            ShardSpec::parse("2/4"),
            Ok(ShardSpec { index: 2, count: 4 })
        );
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2", "3/2"] {
            let e = ShardSpec::parse(bad).unwrap_err();
            assert!(e.contains("--shard") && e.contains(bad), "{e}");
        }
        let s = ShardSpec::parse("1/3").unwrap();
        assert_eq!(
            (0..9).filter(|&p| s.owns(p)).collect::<Vec<_>>(),
            vec![1, 4, 7]
        );
    }

    #[test]
    fn fingerprint_is_stable_and_separates_parts() {
        assert_eq!(fingerprint(&["a", "b"]), fingerprint(&["a", "b"]));
        assert_ne!(fingerprint(&["ab", ""]), fingerprint(&["a", "b"]));
        // Pinned: a change of the function would orphan shards on disk.
        assert_eq!(fingerprint(&[]), "cbf29ce484222325");
    }
}
