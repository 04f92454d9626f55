//! Peer cross-check against BookSim2: the unicast wormhole XY
//! mesh is the one configuration where wormcast and BookSim2 model the same
//! network, so their latency-vs-load curves and saturation throughput must
//! agree within tolerances fixed from the two routers' pipelines.
//!
//! Both the references (`sim/reference/booksim2-mesh-16x16*.toml`: BookSim's
//! configuration, curve and the tolerances; one for uniform Bernoulli
//! traffic and one per unicast pattern or injection process, with the
//! wormcast keys that select the same traffic) and the matched wormcast
//! scenario (`examples/booksim-mesh-16x16.toml`) are compiled in, so the CLI
//! (`wormcast crosscheck --reference NAME`), the CI test and the
//! reproduction in `docs/results/booksim-crosscheck.md` read the same
//! numbers.
//!
//! Units: BookSim's load and throughput count every flit of a 16-flit packet
//! per node per cycle. wormcast's `traffic.rate` is messages per node per
//! cycle and its throughput counts data flits (the HEAD is stripped before
//! the destination), so the rate is load / 16 and the throughput is scaled
//! by 16 / 15.

use crate::network::Network;
use crate::scenario::Scenario;
use crate::{InputError, InputResult};
use serde::{Deserialize, Serialize};

/// The BookSim2 references as stored in the repository, by name: uniform
/// Bernoulli traffic first, then the patterns and the on/off source.
pub const REFERENCES: &[(&str, &str)] = &[
    (
        "uniform",
        include_str!("../reference/booksim2-mesh-16x16.toml"),
    ),
    (
        "transpose",
        include_str!("../reference/booksim2-mesh-16x16-transpose.toml"),
    ),
    (
        "bitcomp",
        include_str!("../reference/booksim2-mesh-16x16-bitcomp.toml"),
    ),
    (
        "tornado",
        include_str!("../reference/booksim2-mesh-16x16-tornado.toml"),
    ),
    (
        "hotspot",
        include_str!("../reference/booksim2-mesh-16x16-hotspot.toml"),
    ),
    (
        "onoff",
        include_str!("../reference/booksim2-mesh-16x16-onoff.toml"),
    ),
];
/// The matched wormcast scenario.
pub const SCENARIO_TOML: &str = include_str!("../../examples/booksim-mesh-16x16.toml");
/// Flits per BookSim packet: wormcast's 15 data flits plus the HEAD.
pub const PACKET_FLITS: f64 = 16.0;
/// Data flits per packet (what wormcast's throughput counts).
pub const DATA_FLITS: f64 = 15.0;
/// Offered load (flits/node/cycle) at which saturation throughput is
/// measured: well past BookSim's 0.114, so every router is saturated.
pub const SATURATION_OFFERED: f64 = 0.2;

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Source {
    pub simulator: String,
    pub commit: String,
    pub measured: String,
    pub note: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Curve {
    pub load: Vec<f64>,
    pub latency: Vec<f64>,
    pub saturation_throughput: f64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Tolerance {
    pub low_load_max: f64,
    pub low_load_latency: f64,
    pub high_load_latency: f64,
    pub compared_max_load: f64,
    pub saturation_throughput: f64,
}

/// The wormcast keys that give the reference's traffic on the matched
/// scenario (none for uniform Bernoulli traffic).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct WormcastSide {
    pub sets: Vec<String>,
}

/// Loads where wormcast was found outside a tolerance fixed beforehand,
/// with the reason as far as it is known: recorded in the reference file,
/// reported beside the curve, and checked to still deviate the same way
/// (wormcast's latency above BookSim's), so a change that closes the gap
/// is noticed too.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Deviation {
    pub loads: Vec<f64>,
    pub measured: String,
    pub reason: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Reference {
    /// Its name in [`REFERENCES`].
    #[serde(skip)]
    pub name: String,
    pub source: Source,
    /// BookSim's own configuration keys, kept verbatim for the record.
    pub booksim: toml::Table,
    pub curve: Curve,
    pub tolerance: Tolerance,
    #[serde(default)]
    pub wormcast: WormcastSide,
    #[serde(default)]
    pub deviation: Deviation,
}

impl Reference {
    /// The uniform-traffic reference.
    pub fn builtin() -> Reference {
        Reference::named("uniform").expect("the uniform reference exists")
    }

    /// The compiled-in reference `name`.
    pub fn named(name: &str) -> InputResult<Reference> {
        let (n, text) = REFERENCES.iter().find(|(n, _)| *n == name).ok_or_else(|| {
            InputError::new(
                "reference",
                name,
                format!(
                    "one of {}",
                    REFERENCES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let mut r: Reference =
            toml::from_str(text).expect("the compiled-in BookSim references parse");
        r.name = n.to_string();
        Ok(r)
    }

    /// Whether `load` is a recorded deviation.
    pub fn deviates_at(&self, load: f64) -> bool {
        self.deviation
            .loads
            .iter()
            .any(|&l| (l - load).abs() < 1e-9)
    }

    /// The relative tolerance on latency at `load`; `None` past the knee,
    /// where the point is reported but not compared, and at a recorded
    /// deviation.
    pub fn latency_tolerance(&self, load: f64) -> Option<f64> {
        if self.deviates_at(load) {
            None
        } else if load <= self.tolerance.low_load_max + 1e-12 {
            Some(self.tolerance.low_load_latency)
        } else if load <= self.tolerance.compared_max_load + 1e-12 {
            Some(self.tolerance.high_load_latency)
        } else {
            None
        }
    }
}

/// One compared point.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Offered load, flits/node/cycle.
    pub load: f64,
    pub booksim_latency: f64,
    pub wormcast_latency: f64,
    pub ratio: f64,
    /// `None`: past the knee, reported but not compared.
    pub tolerance: Option<f64>,
    /// A recorded deviation ([`Deviation`]): reported, and `within` only
    /// while wormcast's latency is still above BookSim's.
    pub known_deviation: bool,
    /// Within the tolerance (true for a point that is not compared).
    pub within: bool,
    /// Messages whose latency was averaged (created in the window).
    pub samples: u64,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The reference's name (`uniform`, `transpose`, ...).
    pub traffic: String,
    pub reference: Source,
    pub seed: u64,
    /// `--set` overrides of the matched scenario (empty: the matched network).
    pub overrides: Vec<String>,
    pub points: Vec<Point>,
    pub booksim_saturation: f64,
    /// wormcast's accepted throughput at `SATURATION_OFFERED`, in
    /// BookSim's units (all 16 flits).
    pub wormcast_saturation: f64,
    pub saturation_ratio: f64,
    pub saturation_within: bool,
}

impl Comparison {
    pub fn all_within(&self) -> bool {
        self.saturation_within && self.points.iter().all(|p| p.within)
    }
}

/// The matched scenario at `load` flits/node/cycle, with `sets` applied
/// after (e.g. `traffic.seed=2`).
pub fn scenario_at(load: f64, sets: &[String]) -> InputResult<Scenario> {
    let mut all = vec![format!("traffic.rate={}", load / PACKET_FLITS)];
    all.extend(sets.iter().cloned());
    Scenario::from_toml(SCENARIO_TOML, &all, "examples/booksim-mesh-16x16.toml")
}

/// Runs the matched scenario at each of `loads` (plus the saturation
/// point) on up to `threads` threads and compares with the reference.
/// Every point runs on its own network with the same seed, so the result is
/// the same for any thread count. `overrides` (`section.key=value`) change
/// the matched network: a what-if, or a deliberate mismatch that must fail.
pub fn compare(
    reference: &Reference,
    loads: &[f64],
    seed: u64,
    overrides: &[String],
    threads: usize,
) -> InputResult<Comparison> {
    for &l in loads {
        if !reference.curve.load.iter().any(|&r| (r - l).abs() < 1e-9) {
            return Err(InputError::new(
                "loads",
                l,
                format!(
                    "a load of the BookSim reference: {:?}",
                    reference.curve.load
                ),
            ));
        }
    }
    let mut sets = reference.wormcast.sets.clone();
    sets.push(format!("traffic.seed={seed}"));
    sets.extend(overrides.iter().cloned());
    let mut jobs: Vec<Scenario> = loads
        .iter()
        .map(|&l| scenario_at(l, &sets))
        .collect::<InputResult<_>>()?;
    // Saturation: no drain needed, only the window's accepted flits count.
    let mut sat_sets = sets.clone();
    sat_sets.push("run.drain_cycles=0".into());
    jobs.push(scenario_at(SATURATION_OFFERED, &sat_sets)?);
    let results = run_parallel(&jobs, threads)?;
    let mut points = Vec::new();
    for (i, &load) in loads.iter().enumerate() {
        let (lat, samples) = results[i].0;
        let k = reference
            .curve
            .load
            .iter()
            .position(|&r| (r - load).abs() < 1e-9)
            .expect("checked above");
        let b = reference.curve.latency[k];
        let ratio = lat / b;
        let tol = reference.latency_tolerance(load);
        let known = reference.deviates_at(load);
        points.push(Point {
            load,
            booksim_latency: b,
            wormcast_latency: lat,
            ratio,
            tolerance: tol,
            known_deviation: known,
            within: if known {
                ratio > 1.0
            } else {
                tol.is_none_or(|t| samples > 0 && (ratio - 1.0).abs() <= t)
            },
            samples,
        });
    }
    let sat = results[loads.len()].1 * PACKET_FLITS / DATA_FLITS;
    let sat_ratio = sat / reference.curve.saturation_throughput;
    Ok(Comparison {
        traffic: reference.name.clone(),
        reference: reference.source.clone(),
        seed,
        overrides: overrides.to_vec(),
        points,
        booksim_saturation: reference.curve.saturation_throughput,
        wormcast_saturation: sat,
        saturation_ratio: sat_ratio,
        saturation_within: (sat_ratio - 1.0).abs() <= reference.tolerance.saturation_throughput,
    })
}

/// Per job: ((mean latency, samples), data-flit throughput).
type JobResult = ((f64, u64), f64);

fn run_parallel(jobs: &[Scenario], threads: usize) -> InputResult<Vec<JobResult>> {
    crate::parallel::map(jobs, threads, |sc| {
        Network::new(sc).map(|mut net| {
            let rep = net.run(&mut |_| true);
            (
                (rep.latency.mean, rep.latency.count),
                rep.throughput_flits_per_node_cycle,
            )
        })
    })
    .into_iter()
    .collect()
}
