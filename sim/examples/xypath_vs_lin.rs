//! \[THESIS\] §4.3.2 (Figs. 4.3.1–4.3.2): XY-path versus LIN on a 20×20 mesh,
//! source (0,0), message length L = 20 flits, 1000 random destination sets
//! per destination count K, K in steps of 10.
//!
//! Time = longest worm + L (eq. 4.3.1), traffic = total links (eq. 4.3.2).
//! The thesis reports the *mean* over all sample points (Definition 4.1.1):
//! XY-path time 185.83, LIN 356.39; traffic 317.59 vs 336.39; AAT 127.59 vs
//! 146.39. Traffic − AAT = 190 = the mean K, which fixes the K range to
//! 10, 20, …, 370 (the default; `--kmax 390` runs the full range).
//!
//! Usage: `cargo run --release -p wormcast-sim --example xypath_vs_lin
//! [-- --runs 1000 --kmax 370 --seed 1 --per-k]`

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wormcast_sim::pathbased::hamiltonian::lin;
use wormcast_sim::pathbased::xypath::XyPartition;
use wormcast_sim::topology::{NodeId, Topology};

fn main() {
    let mut runs = 1000usize;
    let mut kmax = 370u32;
    let mut seed = 1u64;
    let mut side = 20u32;
    let mut per_k = false;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = || {
            args.get(i + 1)
                .expect("missing value")
                .parse::<u64>()
                .expect("integer")
        };
        match args[i].as_str() {
            "--runs" => runs = val() as usize,
            "--kmax" => kmax = val() as u32,
            "--seed" => seed = val(),
            "--side" => side = val() as u32,
            "--per-k" => {
                per_k = true;
                i += 1;
                continue;
            }
            a => panic!("unknown argument {a}"),
        }
        i += 2;
    }
    const L: u32 = 20;
    let t = Topology::mesh(side, side).expect("mesh side");
    let part = XyPartition::new(&t).expect("partition");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let others: Vec<NodeId> = (1..t.nodes()).collect();
    // Sums over all samples: (xy time, lin time, xy traffic, lin traffic, K).
    let mut tot = [0f64; 5];
    let mut samples = 0f64;
    if per_k {
        println!("| K | XY-path time | LIN time | XY-path traffic | LIN traffic |");
        println!("|---|---|---|---|---|");
    }
    let mut k = 10;
    while k <= kmax.min(t.nodes() - 1) {
        let mut s = [0f64; 4];
        for _ in 0..runs {
            let d: Vec<NodeId> = others
                .choose_multiple(&mut rng, k as usize)
                .copied()
                .collect();
            let xy = part.multicast(&d).expect("xy");
            let ln = lin(&t, 0, &d).expect("lin");
            s[0] += xy.time_with_message(L) as f64;
            s[1] += ln.time_with_message(L) as f64;
            s[2] += xy.traffic() as f64;
            s[3] += ln.traffic() as f64;
        }
        for j in 0..4 {
            tot[j] += s[j];
        }
        tot[4] += (k as usize * runs) as f64;
        samples += runs as f64;
        if per_k {
            let r = runs as f64;
            println!(
                "| {k} | {:.2} | {:.2} | {:.2} | {:.2} |",
                s[0] / r,
                s[1] / r,
                s[2] / r,
                s[3] / r
            );
        }
        k += 10;
    }
    let m: Vec<f64> = tot.iter().map(|v| v / samples).collect();
    println!();
    println!(
        "mesh {t}, source 0,0, L = {L}, {runs} sets per K, K = 10..={kmax} step 10, seed {seed}"
    );
    println!("mean K                  {:.2}", m[4]);
    println!(
        "time    XY-path {:8.2}  LIN {:8.2}  ratio {:.4}",
        m[0],
        m[1],
        m[0] / m[1]
    );
    println!(
        "traffic XY-path {:8.2}  LIN {:8.2}  ratio {:.4}",
        m[2],
        m[3],
        m[2] / m[3]
    );
    println!(
        "AAT     XY-path {:8.2}  LIN {:8.2}  ratio {:.4}",
        m[2] - m[4],
        m[3] - m[4],
        (m[2] - m[4]) / (m[3] - m[4])
    );
}
