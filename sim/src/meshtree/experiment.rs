//! The averaged experiments of \[THESIS\] §4.1.3 and
//! §4.2 (Figures 4.2.1–4.2.16): per number of destinations K, the mean
//! traffic and one-port time of VH, DIAG, DDS and MIN over random multicasts,
//! every algorithm on the same samples; and the thesis's own means, the
//! only numbers of those figures that survive in our copy of the text.
//!
//! The thesis says only that the sets are "generated randomly through pseudo
//! random number" with the source at the origin (§3.1.1); [`Sampler`] holds
//! our reading and two alternatives that were tested against its means
//! (`docs/results/thesis-trees.md`).

use super::{build_with, Algorithm, Grid, Point, ZoneLinks};
use crate::error::{InputError, InputResult};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::str::FromStr;

/// How one random multicast is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Sampler {
    /// Source at the origin, K distinct destinations uniform over the other
    /// nodes (our reading of §3.1.1 and §4.1.3).
    Uniform,
    /// As `Uniform`, but each coordinate is `round(u · (side − 1))` for a
    /// uniform `u` in [0, 1) (a common `rand()/RAND_MAX` idiom), so the edge
    /// values are half as likely; repeats and the source are redrawn.
    Rounded,
    /// A uniformly random source (the thesis's submesh split, §3.1.1),
    /// destinations uniform over the other nodes.
    RandomSource,
}

impl Sampler {
    pub const ALL: [Sampler; 3] = [Sampler::Uniform, Sampler::Rounded, Sampler::RandomSource];
    pub fn name(self) -> &'static str {
        match self {
            Sampler::Uniform => "uniform",
            Sampler::Rounded => "rounded",
            Sampler::RandomSource => "random-source",
        }
    }
}

impl FromStr for Sampler {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<Sampler> {
        Sampler::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| InputError::new("sampler", s, "uniform, rounded or random-source"))
    }
}

/// One random multicast `(source, destinations)` with `k` destinations.
/// `k` must be below the number of nodes ([`Experiment::point`] checks it).
pub fn sample(grid: &Grid, k: usize, how: Sampler, rng: &mut ChaCha8Rng) -> (Point, Vec<Point>) {
    let n = grid.nodes();
    // Index i of the n − 1 non-source nodes, skipping the source id s.
    let others = |rng: &mut ChaCha8Rng, s: usize| -> Vec<Point> {
        rand::seq::index::sample(rng, n - 1, k)
            .into_iter()
            .map(|i| grid.point(if i >= s { i + 1 } else { i }))
            .collect()
    };
    match how {
        Sampler::Uniform => (Point::default(), others(rng, 0)),
        Sampler::RandomSource => {
            let s = rng.gen_range(0..n);
            let d = others(rng, s);
            (grid.point(s), d)
        }
        Sampler::Rounded => {
            let mut seen = vec![false; n];
            seen[0] = true;
            let mut d = Vec::with_capacity(k);
            while d.len() < k {
                let mut p = Point::default();
                for a in 0..grid.dims() {
                    let u: f64 = rng.gen();
                    p.0[a] = (u * (grid.side(a) - 1) as f64).round() as u16;
                }
                let i = grid.id(p);
                if !seen[i] {
                    seen[i] = true;
                    d.push(p);
                }
            }
            (Point::default(), d)
        }
    }
}

/// Means at one K, indexed like [`Algorithm::ALL`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct KPoint {
    pub k: usize,
    pub runs: usize,
    pub traffic: [f64; 4],
    pub time: [f64; 4],
}

impl KPoint {
    /// Additional traffic (thesis AAT, §2.1): traffic − K.
    pub fn aat(&self, alg: usize) -> f64 {
        self.traffic[alg] - self.k as f64
    }
}

/// What one experiment is: where, how many runs per K, which seed, how the
/// torus zone links are served and how samples are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Experiment {
    pub grid: Grid,
    pub runs: usize,
    pub seed: u64,
    pub zone_links: ZoneLinks,
    pub sampler: Sampler,
}

impl Experiment {
    /// The means at one K over `runs` multicasts. The random stream depends
    /// only on `(seed, k)`, so points can be computed in any order or in
    /// parallel and still give the same bits.
    pub fn point(&self, k: usize) -> InputResult<KPoint> {
        let n = self.grid.nodes();
        if k >= n {
            return Err(InputError::new(
                "K (destinations)",
                k,
                format!("from 0 to {} (the nodes other than the source)", n - 1),
            ));
        }
        if self.runs == 0 {
            return Err(InputError::new("runs", 0, "at least 1"));
        }
        let mut p = KPoint {
            k,
            runs: self.runs,
            ..KPoint::default()
        };
        if k == 0 {
            return Ok(p);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(k as u64);
        for _ in 0..self.runs {
            let (src, d) = sample(&self.grid, k, self.sampler, &mut rng);
            for (a, alg) in Algorithm::ALL.iter().enumerate() {
                let t = build_with(*alg, &self.grid, src, &d, self.zone_links)?;
                p.traffic[a] += t.traffic() as f64;
                p.time[a] += t.time() as f64;
            }
        }
        let r = self.runs as f64;
        p.traffic = p.traffic.map(|v| v / r);
        p.time = p.time.map(|v| v / r);
        Ok(p)
    }
}

/// The mean of a curve over its K points (the thesis's "mean", Def. 4.1.1,
/// with equal runs per K).
pub fn mean(points: &[KPoint]) -> KPoint {
    let n = points.len().max(1) as f64;
    let mut m = KPoint::default();
    for p in points {
        m.runs += p.runs;
        for a in 0..4 {
            m.traffic[a] += p.traffic[a] / n;
            m.time[a] += p.time[a] / n;
        }
    }
    m.k = 0;
    m
}

/// The mean K of a set of points.
pub fn mean_k(points: &[KPoint]) -> f64 {
    points.iter().map(|p| p.k as f64).sum::<f64>() / points.len().max(1) as f64
}

/// A quantity the thesis reports as a mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Quantity {
    Traffic,
    Time,
    /// Traffic minus the mean K.
    Aat,
}

impl Quantity {
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Traffic => "traffic",
            Quantity::Time => "time",
            Quantity::Aat => "AAT",
        }
    }
    /// Our value of this quantity for algorithm `alg` over `points`.
    pub fn of(self, points: &[KPoint], alg: usize) -> f64 {
        let m = mean(points);
        match self {
            Quantity::Traffic => m.traffic[alg],
            Quantity::Time => m.time[alg],
            Quantity::Aat => m.traffic[alg] - mean_k(points),
        }
    }
}

/// Which K points a thesis mean was taken over. The thesis gives no range,
/// but it gives each mean's AAT = traffic − mean K, which fixes mean K:
/// 195 for Figs. 4.2.1/4.2.2 (K = 10, 20, …, 380) and 190 for the others,
/// whose DIAG means are the former × 38/39, i.e. the same points plus one
/// K = 0 sample (`docs/results/thesis-trees.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum KSet {
    /// K = 10, 20, …, 10·`n`.
    Tens(usize),
    /// The same plus one K = 0 sample.
    TensAndZero(usize),
}

impl KSet {
    pub fn ks(self) -> Vec<usize> {
        match self {
            KSet::Tens(n) => (1..=n).map(|i| 10 * i).collect(),
            KSet::TensAndZero(n) => std::iter::once(0).chain((1..=n).map(|i| 10 * i)).collect(),
        }
    }
}

/// One mean quoted in the thesis text.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ThesisMean {
    /// `mesh:20x20`, `torus:20x20`, `mesh:10x10x10`.
    pub grid: &'static str,
    pub figure: &'static str,
    pub algorithm: Algorithm,
    pub quantity: Quantity,
    pub value: f64,
    pub ks: KSet,
}

const fn tm(
    grid: &'static str,
    figure: &'static str,
    algorithm: Algorithm,
    quantity: Quantity,
    value: f64,
    ks: KSet,
) -> ThesisMean {
    ThesisMean {
        grid,
        figure,
        algorithm,
        quantity,
        value,
        ks,
    }
}

use Algorithm::{Dds, Diag, Min, Vh};
use Quantity::{Aat, Time, Traffic};
const M2: &str = "mesh:20x20";
const T2: &str = "torus:20x20";
const M3: &str = "mesh:10x10x10";
const A: KSet = KSet::Tens(38);
const B: KSet = KSet::TensAndZero(38);
/// 10×10×10: no range is stated and no traffic mean given to infer one;
/// K = 10, …, 980 by analogy with the 2-D experiments.
const C: KSet = KSet::Tens(98);

/// Every mean of thesis §4.2 (text of §4.2.2–4.2.5; the figures are lost).
pub const THESIS_MEANS: &[ThesisMean] = &[
    tm(M2, "4.2.1", Vh, Time, 35.91, A),
    tm(M2, "4.2.1", Diag, Time, 35.76, A),
    tm(M2, "4.2.2", Vh, Traffic, 333.69, A),
    tm(M2, "4.2.2", Diag, Traffic, 247.28, A),
    tm(M2, "4.2.2", Vh, Aat, 138.69, A),
    tm(M2, "4.2.2", Diag, Aat, 52.28, A),
    tm(M2, "4.2.3", Diag, Time, 34.89, B),
    tm(M2, "4.2.3", Dds, Time, 37.88, B),
    tm(M2, "4.2.3", Min, Time, 39.86, B),
    tm(M2, "4.2.4", Diag, Traffic, 241.41, B),
    tm(M2, "4.2.4", Dds, Traffic, 230.85, B),
    tm(M2, "4.2.4", Min, Traffic, 227.77, B),
    tm(M2, "4.2.4", Diag, Aat, 51.41, B),
    tm(M2, "4.2.4", Dds, Aat, 40.85, B),
    tm(M2, "4.2.4", Min, Aat, 37.77, B),
    tm(M2, "4.2.10", Diag, Traffic, 241.38, B),
    tm(T2, "4.2.6", Vh, Traffic, 313.84, B),
    tm(T2, "4.2.6", Diag, Traffic, 255.63, B),
    tm(T2, "4.2.6", Vh, Aat, 123.84, B),
    tm(T2, "4.2.6", Diag, Aat, 65.63, B),
    tm(T2, "4.2.7", Diag, Time, 22.25, B),
    tm(T2, "4.2.7", Dds, Time, 23.70, B),
    tm(T2, "4.2.7", Min, Time, 23.69, B),
    tm(T2, "4.2.8", Diag, Traffic, 255.39, B),
    tm(T2, "4.2.8", Dds, Traffic, 237.30, B),
    tm(T2, "4.2.8", Min, Traffic, 235.29, B),
    tm(T2, "4.2.8", Dds, Aat, 47.30, B),
    tm(T2, "4.2.8", Min, Aat, 45.29, B),
    tm(T2, "4.2.9", Diag, Time, 22.27, B),
    tm(T2, "4.2.10", Diag, Traffic, 255.99, B),
    tm(M3, "4.2.14", Vh, Aat, 273.62, C),
    tm(M3, "4.2.14", Diag, Aat, 62.75, C),
    tm(M3, "4.2.15", Diag, Time, 25.34, C),
    tm(M3, "4.2.15", Dds, Time, 28.24, C),
    tm(M3, "4.2.15", Min, Time, 32.05, C),
];

/// The thesis means quoted for `grid` (as written by [`Grid`]'s `Display`).
pub fn thesis_means(grid: &Grid) -> Vec<ThesisMean> {
    let g = grid.to_string();
    THESIS_MEANS
        .iter()
        .filter(|m| m.grid == g)
        .copied()
        .collect()
}

/// One row of a comparison with the thesis.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub thesis: ThesisMean,
    pub ours: f64,
    pub ratio: f64,
}

/// Compares `curve` (which must hold every K the means need) with the
/// thesis's means for its grid. A missing K point is an input error.
pub fn compare(curve: &[KPoint], means: &[ThesisMean]) -> InputResult<Vec<Comparison>> {
    means
        .iter()
        .map(|m| {
            let pts =
                m.ks.ks()
                    .into_iter()
                    .map(|k| {
                        curve.iter().find(|p| p.k == k).copied().ok_or_else(|| {
                            InputError::new("ks", k, "every K of the thesis's K set (10, 20, …)")
                        })
                    })
                    .collect::<InputResult<Vec<KPoint>>>()?;
            let alg = Algorithm::ALL
                .iter()
                .position(|&a| a == m.algorithm)
                .unwrap();
            let ours = m.quantity.of(&pts, alg);
            Ok(Comparison {
                thesis: *m,
                ours,
                ratio: ours / m.value,
            })
        })
        .collect()
}

/// A ratio between two algorithms, the thesis's next to ours.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RatioRow {
    pub numerator: Algorithm,
    pub denominator: Algorithm,
    pub quantity: Quantity,
    pub figure: &'static str,
    pub thesis: f64,
    pub ours: f64,
}

/// The ratios DIAG/VH, DDS/DIAG and MIN/DDS of every quantity for which the
/// thesis quotes both means in one experiment (same figure group and K set).
pub fn ratios(curve: &[KPoint], means: &[ThesisMean]) -> InputResult<Vec<RatioRow>> {
    let rows = compare(curve, means)?;
    let mut out = Vec::new();
    for q in [Quantity::Traffic, Quantity::Time, Quantity::Aat] {
        for (num, den) in [(Diag, Vh), (Dds, Diag), (Min, Dds)] {
            let find = |a: Algorithm, ks: Option<KSet>| {
                rows.iter().find(|r| {
                    r.thesis.algorithm == a
                        && r.thesis.quantity == q
                        && ks.is_none_or(|k| r.thesis.ks == k)
                })
            };
            let Some(n) = find(num, None) else { continue };
            let Some(d) = find(den, Some(n.thesis.ks)) else {
                continue;
            };
            out.push(RatioRow {
                numerator: num,
                denominator: den,
                quantity: q,
                figure: n.thesis.figure,
                thesis: n.thesis.value / d.thesis.value,
                ours: n.ours / d.ours,
            });
        }
    }
    Ok(out)
}

/// The result of a K-set search ([`fit_k`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct KFit {
    /// `{first, first + step, …, last}`; `first = 0` is a zero sample.
    pub first: usize,
    pub step: usize,
    pub last: usize,
    pub mean_k: f64,
    /// Worst `|ours / thesis − 1|` over the means.
    pub worst: f64,
    pub ratios: Vec<f64>,
}

/// Which K set could have produced the thesis's means? Scores every
/// arithmetic set `{a, a+s, …, b}` (a ≤ 20, s ∈ {1, 2, 5, 10, 20}) of a
/// full curve (`curve[k]` = the point at K = k for every k) by the worst
/// ratio over `means` (their own K sets are ignored; AAT uses the candidate
/// set's mean K, which is what pins K) and returns the `best` best.
pub fn fit_k(curve: &[KPoint], means: &[ThesisMean], best: usize) -> Vec<KFit> {
    let kmax = curve.len().saturating_sub(1);
    let mut out: Vec<KFit> = Vec::new();
    for a in 0..=20usize.min(kmax) {
        for s in [1usize, 2, 5, 10, 20] {
            let mut b = a + 2 * s;
            while b <= kmax {
                let pts: Vec<KPoint> = (a..=b).step_by(s).map(|k| curve[k]).collect();
                let ratios: Vec<f64> = means
                    .iter()
                    .map(|m| {
                        let alg = Algorithm::ALL
                            .iter()
                            .position(|&x| x == m.algorithm)
                            .unwrap();
                        m.quantity.of(&pts, alg) / m.value
                    })
                    .collect();
                let worst = ratios.iter().map(|r| (r - 1.0).abs()).fold(0.0, f64::max);
                out.push(KFit {
                    first: a,
                    step: s,
                    last: b,
                    mean_k: mean_k(&pts),
                    worst,
                    ratios,
                });
                b += s;
            }
        }
    }
    out.sort_by(|x, y| x.worst.total_cmp(&y.worst));
    out.truncate(best);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samplers_draw_valid_distinct_sets() {
        let g = Grid::mesh2(6, 5).unwrap();
        for how in Sampler::ALL {
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            for k in [1, 7, 29] {
                let (s, d) = sample(&g, k, how, &mut rng);
                assert_eq!(d.len(), k);
                let mut ids: Vec<usize> = d.iter().map(|&p| g.id(p)).collect();
                ids.push(g.id(s));
                ids.sort();
                ids.dedup();
                assert_eq!(ids.len(), k + 1, "{how:?}: distinct, source excluded");
                assert!(d.iter().all(|&p| g.contains(p)));
                if how != Sampler::RandomSource {
                    assert_eq!(s, Point::default());
                }
            }
        }
    }

    #[test]
    fn rounded_sampler_halves_the_edge_values() {
        // round(u·(k−1)) gives 0 and k−1 probability 1/(2(k−1)), the others
        // 1/(k−1): over many single-destination draws on a 5-wide axis the
        // edge x values appear about half as often as inner ones.
        let g = Grid::mesh2(5, 40).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut hist = [0usize; 5];
        for _ in 0..40_000 {
            let (_, d) = sample(&g, 1, Sampler::Rounded, &mut rng);
            hist[d[0].get(0)] += 1;
        }
        let inner = (hist[1] + hist[2] + hist[3]) as f64 / 3.0;
        for edge in [hist[0] as f64, hist[4] as f64] {
            assert!((edge / inner - 0.5).abs() < 0.06, "{hist:?}");
        }
    }

    #[test]
    fn point_is_deterministic_and_checks_k() {
        let e = Experiment {
            grid: Grid::mesh2(8, 8).unwrap(),
            runs: 20,
            seed: 5,
            zone_links: ZoneLinks::First,
            sampler: Sampler::Uniform,
        };
        assert_eq!(e.point(12).unwrap(), e.point(12).unwrap());
        assert_ne!(e.point(12).unwrap().traffic, e.point(13).unwrap().traffic);
        assert_eq!(e.point(64).unwrap_err().field, "K (destinations)");
        // K = 63: every node is a destination, so every tree spans the mesh.
        let full = e.point(63).unwrap();
        assert!(full.traffic.iter().all(|&t| t == 63.0), "{full:?}");
        assert_eq!(e.point(0).unwrap().traffic, [0.0; 4]);
    }

    #[test]
    fn every_thesis_grid_parses_and_k_sets_fit_it() {
        for m in THESIS_MEANS {
            let g: Grid = m.grid.parse().unwrap();
            assert_eq!(g.to_string(), m.grid);
            assert!(m.ks.ks().iter().all(|&k| k < g.nodes()));
        }
        assert_eq!(KSet::TensAndZero(38).ks().len(), 39);
        let mean: f64 = KSet::Tens(38).ks().iter().sum::<usize>() as f64 / 38.0;
        assert_eq!(mean, 195.0);
    }
}
