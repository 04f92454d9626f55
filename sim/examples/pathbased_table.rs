//! Analytic traffic and time of the path-based schemes on a 16×16 mesh
//! (our table; [PATHOPT] and [BRCP] give no such numbers): mean over random
//! multicasts of `traffic` (links summed over worms) and `time` (longest worm
//! in hops), plus the mean number of worms.
//!
//! Usage: `cargo run --release -p wormcast-sim --example pathbased_table
//! [-- --runs 1000 --seed 1]`

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wormcast_sim::pathbased::brcp::{column_path, minimal_brcp, pure_brcp};
use wormcast_sim::pathbased::hamiltonian::{dual_path, multi_path};
use wormcast_sim::pathbased::ocms::ocms;
use wormcast_sim::pathbased::otms::otms;
use wormcast_sim::pathbased::PathMulticast;
use wormcast_sim::topology::{NodeId, Topology};
use wormcast_sim::InputResult;

type Scheme = fn(&Topology, NodeId, &[NodeId]) -> InputResult<PathMulticast>;

fn main() {
    let mut runs = 1000usize;
    let mut seed = 1u64;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for w in args.chunks(2) {
        let v: u64 = w.get(1).expect("value").parse().expect("integer");
        match w[0].as_str() {
            "--runs" => runs = v as usize,
            "--seed" => seed = v,
            a => panic!("unknown argument {a}"),
        }
    }
    let schemes: [(&str, Scheme); 7] = [
        ("dual-path", dual_path),
        ("multi-path", multi_path),
        ("OCMS", ocms),
        ("OTMS", otms),
        ("pure NF BRCP", pure_brcp),
        ("minimal NF BRCP", minimal_brcp),
        ("column-path", column_path),
    ];
    let t = Topology::mesh(16, 16).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    println!("mesh {t}, uniform random source, {runs} destination sets per K, seed {seed}");
    println!();
    println!("| K | scheme | traffic | time | worms |");
    println!("|---|---|---|---|---|");
    for k in [4usize, 8, 16, 32, 64, 128] {
        let mut sums = vec![[0f64; 3]; schemes.len()];
        for _ in 0..runs {
            let s = rng.gen_range(0..t.nodes());
            let others: Vec<NodeId> = (0..t.nodes()).filter(|&n| n != s).collect();
            let d: Vec<NodeId> = others.choose_multiple(&mut rng, k).copied().collect();
            for (i, (_, f)) in schemes.iter().enumerate() {
                let mc = f(&t, s, &d).expect("valid multicast");
                sums[i][0] += mc.traffic() as f64;
                sums[i][1] += mc.time() as f64;
                sums[i][2] += mc.worms.len() as f64;
            }
        }
        for (i, (name, _)) in schemes.iter().enumerate() {
            let r = runs as f64;
            println!(
                "| {k} | {name} | {:.2} | {:.2} | {:.2} |",
                sums[i][0] / r,
                sums[i][1] / r,
                sums[i][2] / r
            );
        }
    }
}
