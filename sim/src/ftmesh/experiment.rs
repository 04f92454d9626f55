//! The random trials of \[FTTREE\] §6 (Figs. 10–11):
//! a mesh with random faulty nodes, a random multicast set, the three
//! strategies and multiple unicast on the same instance.
//!
//! The paper does not say where the source sits or what happens to
//! destinations without a minimal path; our choices (docs/decisions.md,
//! "\[FTTREE\] fault-tolerant trees") are the [`SourceChoice`] and [`Keep`] options.

use super::{extended_safe, multicast, Coord, FaultyMesh, Strategy};
use crate::error::{InputError, InputResult};
use crate::topology::Topology;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SourceChoice {
    /// A uniformly random healthy node (four quadrant subnetworks).
    Random,
    /// A fixed node; fault sets that disable it are redrawn.
    Fixed(Coord),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Keep {
    /// Every destination with a fault-free minimal path.
    Minimal,
    /// Only destinations to which the source is extended safe (the paper's
    /// standing assumption).
    ExtendedSafe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrialSpec {
    pub topo: Topology,
    pub faults: u32,
    pub dests: u32,
    pub source: SourceChoice,
    pub keep: Keep,
    pub seed: u64,
}

/// One instance, all three strategies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct TrialOutcome {
    /// Destinations routed (after the [`Keep`] filter and reachability).
    pub routed: u32,
    pub unicast: u32,
    /// Indexed by strategy number − 1.
    pub traffic: [u32; 3],
    pub separating_points: [u32; 3],
    pub overrides: [u32; 3],
}

fn mix(mut z: u64) -> u64 {
    // splitmix64 finaliser: independent streams per (seed, point, trial).
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl TrialSpec {
    pub fn validate(&self) -> InputResult<()> {
        if self.topo.is_torus() {
            return Err(InputError::new("mesh", self.topo, "a mesh"));
        }
        let n = self.topo.nodes();
        if self.faults + 2 > n {
            return Err(InputError::new(
                "faults",
                self.faults,
                format!("at most {} on this mesh", n - 2),
            ));
        }
        if let SourceChoice::Fixed(c) = self.source {
            self.topo.node_at(c.0 as i64, c.1 as i64, "source")?;
        }
        Ok(())
    }

    /// Runs trial `index` (independent of every other trial and point).
    pub fn run(&self, index: u64) -> InputResult<TrialOutcome> {
        self.validate()?;
        let stream = mix(self.seed
            ^ mix(((self.faults as u64) << 32) | self.dests as u64)
            ^ mix(index.wrapping_mul(0x1000_0001)));
        let mut rng = ChaCha8Rng::seed_from_u64(stream);
        let topo = self.topo;
        let n = topo.nodes() as usize;
        let mut attempt = 0;
        let (mesh, src) = loop {
            attempt += 1;
            if attempt > 1000 {
                return Err(InputError::new(
                    "faults",
                    self.faults,
                    "few enough that the source stays healthy",
                ));
            }
            let fixed = match self.source {
                SourceChoice::Fixed(c) => Some(topo.id(c.0, c.1) as usize),
                SourceChoice::Random => None,
            };
            let pool: Vec<usize> = (0..n).filter(|&i| Some(i) != fixed).collect();
            let faults: Vec<Coord> = sample(&mut rng, pool.len(), self.faults as usize)
                .into_iter()
                .map(|i| topo.coord(pool[i] as u32))
                .collect();
            let mesh = FaultyMesh::new(topo, &faults)?;
            let src = match self.source {
                SourceChoice::Fixed(c) => c,
                SourceChoice::Random => {
                    let healthy: Vec<Coord> = (0..n as u32)
                        .map(|i| topo.coord(i))
                        .filter(|&c| !mesh.is_blocked(c))
                        .collect();
                    if healthy.len() < 2 {
                        continue;
                    }
                    healthy[rng.gen_range(0..healthy.len())]
                }
            };
            if !mesh.is_blocked(src) {
                break (mesh, src);
            }
        };
        let healthy: Vec<Coord> = (0..n as u32)
            .map(|i| topo.coord(i))
            .filter(|&c| c != src && !mesh.is_blocked(c))
            .collect();
        let k = (self.dests as usize).min(healthy.len());
        let mut dests: Vec<Coord> = sample(&mut rng, healthy.len(), k)
            .into_iter()
            .map(|i| healthy[i])
            .collect();
        if self.keep == Keep::ExtendedSafe {
            dests.retain(|&d| extended_safe(&mesh, src, d));
        }
        let route_seed = rng.gen::<u64>();
        let mut out = TrialOutcome::default();
        for s in Strategy::ALL {
            let m = multicast(&mesh, src, &dests, s, route_seed)?;
            let i = s.number() as usize - 1;
            out.routed = m.routed.len() as u32;
            out.unicast = m.unicast_traffic;
            out.traffic[i] = m.traffic;
            out.separating_points[i] = m.stats.separating_points;
            out.overrides[i] = m.stats.overrides;
        }
        Ok(out)
    }
}
