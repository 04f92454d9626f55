//! Averaged tables of thesis `003` §4.2 (Figures 4.2.1–4.2.16): mean
//! multicast traffic and one-port time of VH, DIAG, DDS and MIN on a 20×20
//! mesh and torus (and a 10×10×10 mesh and torus with `--3d`), source at the
//! origin, destinations uniform without repetition over the other nodes,
//! `K = 10, 20, …` and `--runs` multicasts per K (thesis: 1000). Every
//! algorithm sees the same samples. Prints markdown.
//!
//! ```text
//! cargo run --release -p wormcast-sim --example meshtree_tables -- [--runs N] [--seed S] [--3d]
//! cargo run --release -p wormcast-sim --example meshtree_tables -- --fit-k [--runs N] [--seed S]
//! ```
//!
//! `--fit-k` asks which set of K values could have produced the thesis's
//! means: it measures every K = 1 … N−1 once (`--runs` per K) and scores
//! every arithmetic K set `{a, a+s, …, b}` (a ≤ 20, s ∈ {1, 2, 5, 10, 20},
//! a = 0 meaning a zero sample) by its worst ratio to the thesis, for the
//! 20×20 mesh experiments and the 10×10×10 mesh. It exists because the
//! thesis states no K range and its figures are lost (see
//! `docs/results/thesis-trees.md`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use wormcast_sim::meshtree::{build_with, Algorithm, Grid, Point, ZoneLinks};

struct Means {
    /// Per algorithm: (traffic sum, time sum).
    sums: [(f64, f64); 4],
    samples: usize,
    k_sum: usize,
}

/// How a sample is drawn. The thesis says only "generated randomly through
/// pseudo random number" (§4.1.3); the alternatives test readings of that.
#[derive(Clone, Copy, PartialEq)]
enum Sampler {
    /// Source at the origin, K distinct destinations uniform over the rest.
    Uniform,
    /// As `Uniform`, but each coordinate is `round(u · (side−1))` (a common
    /// `rand()/RAND_MAX` idiom): the edge values 0 and side−1 are half as
    /// likely. Duplicates and the source are redrawn.
    Rounded,
    /// A uniformly random source (the thesis's submesh split), destinations
    /// uniform over the other nodes.
    RandomSource,
}

impl Sampler {
    fn parse(s: &str) -> Sampler {
        match s {
            "uniform" => Sampler::Uniform,
            "rounded" => Sampler::Rounded,
            "random-source" => Sampler::RandomSource,
            _ => panic!("--sampler {s}: use uniform, rounded or random-source"),
        }
    }
}

/// One sample: (source, destinations).
fn sample(grid: &Grid, k: usize, how: Sampler, rng: &mut ChaCha8Rng) -> (Point, Vec<Point>) {
    use rand::Rng;
    let n = grid.nodes();
    match how {
        Sampler::Uniform => (
            Point::default(),
            rand::seq::index::sample(rng, n - 1, k)
                .into_iter()
                .map(|i| grid.point(i + 1))
                .collect(),
        ),
        Sampler::RandomSource => {
            let s = rng.gen_range(0..n);
            let d = rand::seq::index::sample(rng, n - 1, k)
                .into_iter()
                .map(|i| grid.point(if i >= s { i + 1 } else { i }))
                .collect();
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

fn run(grid: &Grid, ks: &[usize], runs: usize, seed: u64, zl: ZoneLinks, how: Sampler) -> Means {
    let mut m = Means {
        sums: [(0.0, 0.0); 4],
        samples: 0,
        k_sum: 0,
    };
    for &k in ks {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(k as u64);
        for _ in 0..runs {
            let (src, d) = sample(grid, k, how, &mut rng);
            for (a, alg) in Algorithm::ALL.iter().enumerate() {
                let t = build_with(*alg, grid, src, &d, zl).expect("valid sample");
                m.sums[a].0 += t.traffic() as f64;
                m.sums[a].1 += t.time() as f64;
            }
            m.samples += 1;
            m.k_sum += k;
        }
    }
    m
}

/// Thesis values for one network: (label, figure, alg index, traffic or time,
/// value, K-set: true = with the zero sample).
type Ref = (&'static str, &'static str, usize, bool, f64, bool);

const VH: usize = 0;
const DIAG: usize = 1;
const DDS: usize = 2;
const MIN: usize = 3;

fn report(title: &str, m: &Means, zero_factor: f64, refs: &[Ref]) {
    let s = m.samples as f64;
    let mean = |a: usize, traffic: bool| {
        if traffic {
            m.sums[a].0 / s
        } else {
            m.sums[a].1 / s
        }
    };
    println!(
        "### {title}\n\n{} samples, mean K {:.1}\n",
        m.samples,
        m.k_sum as f64 / s
    );
    println!("| | VH | DIAG | DDS | MIN |\n|---|---|---|---|---|");
    for (name, tr) in [("traffic", true), ("time", false)] {
        print!("| {name} (K = 10..) |");
        for a in 0..4 {
            print!(" {:.2} |", mean(a, tr));
        }
        println!();
        print!("| {name} (+ K = 0 sample) |");
        for a in 0..4 {
            print!(" {:.2} |", mean(a, tr) * zero_factor);
        }
        println!();
    }
    println!("\n| quantity | thesis | figure | ours | ours/thesis |\n|---|---|---|---|---|");
    for &(label, fig, a, tr, v, zero) in refs {
        let ours = mean(a, tr) * if zero { zero_factor } else { 1.0 };
        println!("| {label} | {v:.2} | {fig} | {ours:.2} | {:.3} |", ours / v);
    }
    let r = |a: usize, b: usize, tr: bool| mean(a, tr) / mean(b, tr);
    println!("\n| ratio | ours |\n|---|---|");
    println!("| traffic DIAG/VH | {:.3} |", r(DIAG, VH, true));
    println!("| traffic DDS/DIAG | {:.3} |", r(DDS, DIAG, true));
    println!("| traffic MIN/DDS | {:.3} |", r(MIN, DDS, true));
    println!("| time DIAG/VH | {:.3} |", r(DIAG, VH, false));
    println!("| time DDS/DIAG | {:.3} |", r(DDS, DIAG, false));
    println!("| time MIN/DDS | {:.3} |", r(MIN, DDS, false));
    println!();
}

/// Per-K means `[alg] = (traffic, time)` for K = 0 … N−1 (K = 0: no
/// destination, zero traffic and time).
fn per_k(grid: &Grid, runs: usize, seed: u64) -> Vec<[(f64, f64); 4]> {
    let ks: Vec<usize> = (1..grid.nodes()).collect();
    let mut out = vec![[(0.0, 0.0); 4]];
    for &k in &ks {
        let m = run(grid, &[k], runs, seed, ZoneLinks::First, Sampler::Uniform);
        out.push(m.sums.map(|(tr, ti)| (tr / runs as f64, ti / runs as f64)));
    }
    out
}

/// A thesis mean to fit: (label, algorithm, quantity, value).
#[derive(Clone, Copy)]
enum Q {
    Traffic,
    Time,
    /// Traffic minus the mean K of the set.
    Aat,
}

fn fit(title: &str, curves: &[[(f64, f64); 4]], refs: &[(&str, usize, Q, f64)]) {
    let kmax = curves.len() - 1;
    let score = |ks: &[usize]| -> (f64, f64, Vec<f64>) {
        let n = ks.len() as f64;
        let mk = ks.iter().sum::<usize>() as f64 / n;
        let r: Vec<f64> = refs
            .iter()
            .map(|&(_, a, q, v)| {
                let m = |f: fn(&(f64, f64)) -> f64| {
                    ks.iter().map(|&k| f(&curves[k][a])).sum::<f64>() / n
                };
                let ours = match q {
                    Q::Traffic => m(|p| p.0),
                    Q::Time => m(|p| p.1),
                    Q::Aat => m(|p| p.0) - mk,
                };
                ours / v
            })
            .collect();
        let worst = r.iter().map(|x| (x - 1.0).abs()).fold(0.0, f64::max);
        (worst, mk, r)
    };
    let mut best: Vec<(f64, f64, Vec<f64>, String)> = Vec::new();
    for a in 0..=20usize {
        for s in [1usize, 2, 5, 10, 20] {
            let mut b = a + 2 * s;
            while b <= kmax {
                let ks: Vec<usize> = (a..=b).step_by(s).collect();
                let (w, mk, r) = score(&ks);
                best.push((w, mk, r, format!("{a}, {}, …, {b}", a + s)));
                b += s;
            }
        }
    }
    best.sort_by(|x, y| x.0.total_cmp(&y.0));
    println!("### {title}: best K sets\n");
    print!("| K set | mean K | worst |");
    for (l, ..) in refs {
        print!(" {l} |");
    }
    println!("\n|---|---|---|{}", "---|".repeat(refs.len()));
    for (w, mk, r, ks) in best.iter().take(5) {
        print!("| {ks} | {mk:.1} | {w:.3} |");
        for x in r {
            print!(" {x:.3} |");
        }
        println!();
    }
    println!();
}

fn fit_k(runs: usize, seed: u64) {
    let t0 = Instant::now();
    let c2 = per_k(&Grid::mesh2(20, 20).unwrap(), runs, seed);
    eprintln!("20×20 curves in {:.1?}", t0.elapsed());
    fit(
        "20×20 mesh, Figs. 4.2.1/4.2.2 (thesis mean K 195)",
        &c2,
        &[
            ("time VH", VH, Q::Time, 35.91),
            ("time DIAG", DIAG, Q::Time, 35.76),
            ("traffic VH", VH, Q::Traffic, 333.69),
            ("traffic DIAG", DIAG, Q::Traffic, 247.28),
            ("AAT VH", VH, Q::Aat, 138.69),
            ("AAT DIAG", DIAG, Q::Aat, 52.28),
        ],
    );
    fit(
        "20×20 mesh, Figs. 4.2.3/4.2.4 (thesis mean K 190)",
        &c2,
        &[
            ("time DIAG", DIAG, Q::Time, 34.89),
            ("time DDS", DDS, Q::Time, 37.88),
            ("time MIN", MIN, Q::Time, 39.86),
            ("traffic DIAG", DIAG, Q::Traffic, 241.41),
            ("traffic DDS", DDS, Q::Traffic, 230.85),
            ("traffic MIN", MIN, Q::Traffic, 227.77),
            ("AAT DDS", DDS, Q::Aat, 40.85),
            ("AAT MIN", MIN, Q::Aat, 37.77),
        ],
    );
    let c3 = per_k(&Grid::mesh3(10, 10, 10).unwrap(), runs.div_ceil(5), seed);
    eprintln!("10×10×10 curves in {:.1?}", t0.elapsed());
    fit(
        "10×10×10 mesh, Figs. 4.2.14/4.2.15",
        &c3,
        &[
            ("AAT VH", VH, Q::Aat, 273.62),
            ("AAT DIAG", DIAG, Q::Aat, 62.75),
            ("time DIAG", DIAG, Q::Time, 25.34),
            ("time DDS", DDS, Q::Time, 28.24),
            ("time MIN", MIN, Q::Time, 32.05),
        ],
    );
}

fn main() {
    let mut runs = 1000;
    let mut seed = 1u64;
    let mut three = false;
    let mut fit_mode = false;
    let mut how = Sampler::Uniform;
    let mut how_name = String::from("uniform");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).expect("--runs N"),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            "--3d" => three = true,
            "--fit-k" => fit_mode = true,
            "--sampler" => {
                how_name = args
                    .next()
                    .expect("--sampler uniform|rounded|random-source");
                how = Sampler::parse(&how_name);
            }
            _ => panic!("unknown argument {a}; use --runs N, --seed S, --3d, --fit-k, --sampler S"),
        }
    }
    if fit_mode {
        println!("Command: `cargo run --release -p wormcast-sim --example meshtree_tables -- --fit-k --runs {runs} --seed {seed}`\n");
        fit_k(runs, seed);
        return;
    }
    println!(
        "Command: `cargo run --release -p wormcast-sim --example meshtree_tables -- --runs {runs} --seed {seed}{}{}`\n",
        if three { " --3d" } else { "" },
        if how == Sampler::Uniform { String::new() } else { format!(" --sampler {how_name}") }
    );
    // 20×20: K = 10..380 (38 points, mean K 195 = Figs. 4.2.1/4.2.2); the
    // other figures' mean K is 190 = the same points plus one K = 0 sample.
    let ks: Vec<usize> = (1..=38).map(|i| 10 * i).collect();
    let zf = 38.0 / 39.0;
    let t0 = Instant::now();
    let mesh = run(
        &Grid::mesh2(20, 20).unwrap(),
        &ks,
        runs,
        seed,
        ZoneLinks::First,
        how,
    );
    report(
        "20×20 mesh",
        &mesh,
        zf,
        &[
            ("time VH", "4.2.1", VH, false, 35.91, false),
            ("time DIAG", "4.2.1", DIAG, false, 35.76, false),
            ("traffic VH", "4.2.2", VH, true, 333.69, false),
            ("traffic DIAG", "4.2.2", DIAG, true, 247.28, false),
            ("time DIAG", "4.2.3", DIAG, false, 34.89, true),
            ("time DDS", "4.2.3", DDS, false, 37.88, true),
            ("time MIN", "4.2.3", MIN, false, 39.86, true),
            ("traffic DIAG", "4.2.4", DIAG, true, 241.41, true),
            ("traffic DDS", "4.2.4", DDS, true, 230.85, true),
            ("traffic MIN", "4.2.4", MIN, true, 227.77, true),
            ("traffic DIAG", "4.2.10", DIAG, true, 241.38, true),
        ],
    );
    eprintln!("mesh done in {:.1?}", t0.elapsed());
    let torus_refs: &[Ref] = &[
        ("traffic VH", "4.2.6", VH, true, 313.84, true),
        ("traffic DIAG", "4.2.6", DIAG, true, 255.63, true),
        ("time DIAG", "4.2.7", DIAG, false, 22.25, true),
        ("time DDS", "4.2.7", DDS, false, 23.70, true),
        ("time MIN", "4.2.7", MIN, false, 23.69, true),
        ("traffic DIAG", "4.2.8", DIAG, true, 255.39, true),
        ("traffic DDS", "4.2.8", DDS, true, 237.30, true),
        ("traffic MIN", "4.2.8", MIN, true, 235.29, true),
        ("time DIAG", "4.2.9", DIAG, false, 22.27, true),
        ("traffic DIAG", "4.2.10", DIAG, true, 255.99, true),
    ];
    for (zl, label) in [
        (ZoneLinks::Last, "20×20 torus, wraps served last"),
        (ZoneLinks::First, "20×20 torus, wraps served first"),
    ] {
        let torus = run(&Grid::torus2(20, 20).unwrap(), &ks, runs, seed, zl, how);
        report(label, &torus, zf, torus_refs);
    }
    eprintln!("torus done in {:.1?}", t0.elapsed());
    if three {
        // 10×10×10: K = 10..980 by analogy (the thesis gives only AAT and
        // time means here, so the K range cannot be checked).
        let ks: Vec<usize> = (1..=98).map(|i| 10 * i).collect();
        let m3 = run(
            &Grid::mesh3(10, 10, 10).unwrap(),
            &ks,
            runs,
            seed,
            ZoneLinks::First,
            how,
        );
        report(
            "10×10×10 mesh",
            &m3,
            98.0 / 99.0,
            &[
                ("time DIAG", "4.2.15", DIAG, false, 25.34, false),
                ("time DDS", "4.2.15", DDS, false, 28.24, false),
                ("time MIN", "4.2.15", MIN, false, 32.05, false),
            ],
        );
        let s = m3.samples as f64;
        let k = m3.k_sum as f64 / s;
        println!("| AAT (traffic − K) | thesis (Fig. 4.2.14) | ours |\n|---|---|---|");
        println!("| VH | 273.62 | {:.2} |", m3.sums[VH].0 / s - k);
        println!("| DIAG | 62.75 | {:.2} |\n", m3.sums[DIAG].0 / s - k);
        println!("(no thesis traffic means for 3-D; the AAT above assumes K = 10..980)\n");
        eprintln!("3-D mesh done in {:.1?}", t0.elapsed());
        let t3 = run(
            &Grid::torus3(10, 10, 10).unwrap(),
            &ks,
            runs,
            seed,
            ZoneLinks::Last,
            how,
        );
        report("10×10×10 torus, wraps served last", &t3, 98.0 / 99.0, &[]);
        eprintln!("3-D torus done in {:.1?}", t0.elapsed());
    }
}
