//! A sweep's results, as `wormcast sweep` and `wormcast sweep-merge` both
//! write them: the points of the JSON, its exit status and the latency
//! plot. Below both commands, so the merge (`shard`) reads what the sweep
//! writes without the two modules importing each other.

use crate::cli::output::Dest;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;
use wormcast_sim::InputError;

/// What a shard's JSON carries beyond an unsharded sweep's: which slice it
/// is and of which sweep.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShardInfo {
    pub index: usize,
    pub count: usize,
    /// FNV-1a 64 of the sweep definition (scenario text, `--set`s, loads,
    /// schemes), as hex.
    pub fingerprint: String,
    pub points_total: usize,
    /// The unsharded positions of this shard's points, in order.
    pub point_indices: Vec<usize>,
    /// The sweep's `--loads` and `--schemes` as typed, from which the merge
    /// rebuilds the grid and checks every point's (scheme, load) against
    /// its position. Absent in shards of older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loads: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schemes: Option<String>,
}

/// Parses `A..B/STEP` or `x,y,z` into loads.
pub fn parse_loads(s: &str) -> Result<Vec<f64>, InputError> {
    let err = || {
        InputError::new(
            "--loads",
            s,
            "`A..B/STEP` such as `0.0002..0.001/0.0002`, or a comma list; each load in (0, 1]",
        )
    };
    let mut v = Vec::new();
    if let Some((range, step)) = s.split_once('/') {
        let (a, b) = range.split_once("..").ok_or_else(err)?;
        let (a, b, step): (f64, f64, f64) = (
            a.trim().parse().map_err(|_| err())?,
            b.trim().parse().map_err(|_| err())?,
            step.trim().parse().map_err(|_| err())?,
        );
        if !step.is_finite() || step <= 0.0 || a > b || (b - a) / step > 10_000.0 {
            return Err(err());
        }
        let n = ((b - a) / step + 1e-9).floor() as usize;
        // `a + step·i` carries binary noise (0.0006000000000000001).
        v.extend((0..=n).map(|i| wormcast_sim::decimal::denoise(a + step * i as f64)));
    } else {
        for x in s.split(',') {
            v.push(x.trim().parse::<f64>().map_err(|_| err())?);
        }
    }
    if v.is_empty() || v.iter().any(|x| !(x.is_finite() && *x > 0.0 && *x <= 1.0)) {
        return Err(err());
    }
    Ok(v)
}

/// The `--schemes` list: comma-separated, blanks dropped. A sweep's points
/// are its schemes in this order, each at every load.
pub fn parse_schemes(s: &str) -> Vec<String> {
    s.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub scheme: String,
    pub load: f64,
    pub complete: bool,
    pub stop_reason: String,
    pub cycles: u64,
    pub latency_mean_cycles: f64,
    pub latency_p50_cycles: u64,
    pub latency_p99_cycles: u64,
    pub latency_unicast_mean_cycles: f64,
    pub latency_multicast_mean_cycles: f64,
    pub offered_messages_per_node_cycle: f64,
    pub accepted_messages_per_node_cycle: f64,
    pub throughput_flits_per_node_cycle: f64,
    pub source_throughput_min: f64,
    pub saturated: bool,
    pub deadlock: bool,
    pub scoreboard_clean: bool,
    pub wall_seconds: f64,
    /// `traffic.multicast = "invalidation"`: write-miss transactions done
    /// per node per cycle and their latency, miss to last ack (report
    /// `coherence`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_per_node_cycle: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_latency_mean_cycles: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_latency_p99_cycles: Option<u64>,
}

impl Point {
    /// A sweep point's figures from its run's report.
    pub fn of(scheme: &str, load: f64, r: &wormcast_sim::network::stats::Report) -> Point {
        Point {
            scheme: scheme.to_string(),
            load,
            complete: r.stop_reason != "interrupted",
            stop_reason: r.stop_reason.clone(),
            cycles: r.cycles,
            latency_mean_cycles: r.latency.mean,
            latency_p50_cycles: r.latency.p50,
            latency_p99_cycles: r.latency.p99,
            latency_unicast_mean_cycles: r.latency_unicast.mean,
            latency_multicast_mean_cycles: r.latency_multicast.mean,
            offered_messages_per_node_cycle: r.offered_messages_per_node_cycle,
            accepted_messages_per_node_cycle: r.accepted_messages_per_node_cycle,
            throughput_flits_per_node_cycle: r.throughput_flits_per_node_cycle,
            source_throughput_min: r.source_throughput_min,
            saturated: r.saturated,
            deadlock: r.deadlock,
            scoreboard_clean: r.scoreboard_clean(),
            wall_seconds: r.wall_seconds,
            transactions_per_node_cycle: r
                .coherence
                .as_ref()
                .map(|c| c.transactions_per_node_cycle),
            transaction_latency_mean_cycles: r.coherence.as_ref().map(|c| c.latency.mean),
            transaction_latency_p99_cycles: r.coherence.as_ref().map(|c| c.latency.p99),
        }
    }
}

/// The sweep JSON: one format for an unsharded sweep, a shard (with
/// `shard`) and a merge (without: byte for byte an unsharded sweep's, but
/// for the points' `wall_seconds`).
#[derive(Serialize)]
pub struct SweepOut<'a> {
    pub scenario: String,
    pub complete: bool,
    pub points: &'a [Point],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
    /// What produced the file (absent in files of older builds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::cli::provenance::Provenance>,
}

/// A sweep's (or merge's) exit status: 130 when points are missing
/// (interrupted), 1 when a point deadlocked or its scoreboard is not clean,
/// else 0. Status 1 prints its reason (the failed points) on stderr, so a
/// quiet run or a script still learns why.
pub fn exit_code(points: &[Point], complete: bool) -> ExitCode {
    if !complete {
        return ExitCode::from(130);
    }
    match failed_points(points) {
        None => ExitCode::SUCCESS,
        Some(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

/// The points that make a sweep fail, as one line (the first few named).
pub fn failed_points(points: &[Point]) -> Option<String> {
    const NAMED: usize = 5;
    let bad: Vec<String> = points
        .iter()
        .filter(|p| !p.scoreboard_clean || p.deadlock)
        .map(|p| {
            let what = match (p.deadlock, p.scoreboard_clean) {
                (true, true) => "deadlock",
                (true, false) => "deadlock, scoreboard not clean",
                _ => "scoreboard not clean",
            };
            format!(
                "{} at load {} ({what})",
                p.scheme,
                wormcast_sim::decimal::fmt_rate(p.load)
            )
        })
        .collect();
    if bad.is_empty() {
        return None;
    }
    let more = bad.len().saturating_sub(NAMED);
    Some(format!(
        "{} of {} points failed: {}{}",
        bad.len(),
        points.len(),
        bad[..bad.len().min(NAMED)].join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Mean latency (log scale) against offered load, one line per scheme
/// (drawn by `plot::sweep`: saturated points hollow, interrupted ones
/// crossed, with a key).
pub fn plot(dest: &Dest, points: &[Point], title: &str) -> Result<(), Box<dyn std::error::Error>> {
    let marks: Vec<crate::cli::plot::SweepMark> = points
        .iter()
        .map(|p| crate::cli::plot::SweepMark {
            series: p.scheme.clone(),
            load: p.load,
            latency: p.latency_mean_cycles,
            saturated: p.saturated,
            interrupted: !p.complete,
        })
        .collect();
    crate::cli::plot::sweep(dest, &marks, title)
}
