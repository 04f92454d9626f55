//! Unicast destination patterns (`traffic.unicast`): where a generated
//! unicast goes.
//!
//! The synthetic patterns of NoC evaluation, as Dally and Towles define
//! them (W. J. Dally, B. Towles, *Principles and Practices of
//! Interconnection Networks*, Morgan Kaufmann, 2004, §3.2) and BookSim2
//! implements them (`src/traffic.cpp`), so that a curve run here compares
//! with one run there. Node numbers are BookSim's as well: `x + K·y` on a
//! K×M network.
//!
//! * **Bit permutations** act on the node number's bits and need a
//!   power-of-two node count: `bitcomp` (every bit complemented), `bitrev`
//!   (bits reversed), `shuffle` (rotated left by one).
//! * **`transpose`** sends (x, y) to (y, x) and needs a square network; on
//!   a 2^k × 2^k network it is BookSim's bit transpose (the two halves of the
//!   node number swapped).
//! * **Digit permutations** act on each coordinate with its own side K:
//!   `tornado` adds ⌈K/2⌉ − 1, `neighbor` adds 1, both modulo K (BookSim's
//!   formulas; it needs K = M, these do not).
//! * **`randperm`**: a random permutation of the nodes drawn once from the
//!   traffic seed, without fixed points (a derangement), so every node
//!   sends.
//! * **`hotspot`**: a hot node drawn per message with the given integer
//!   weights, as BookSim's `hotspot({nodes},{rates})`.
//!
//! Where a permutation maps a node to itself (transpose on the diagonal,
//! bitrev and shuffle on their palindromes and fixed words, tornado and
//! neighbor on a side of 1 or 2), that node sends no unicasts: wormcast has
//! no self-addressed messages. BookSim2 sends such a packet through its own
//! router; docs/decisions.md ("Unicast patterns") has the choice.

use crate::error::{InputError, InputResult};
use crate::topology::{NodeId, Topology};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

named_enum! {
    /// `traffic.unicast` (BookSim2's names).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum UnicastPattern("unicast") {
        /// Any other node, uniformly (the default; the traffic of before).
        #[default]
        Uniform = "uniform",
        Transpose = "transpose",
        Bitcomp = "bitcomp",
        Bitrev = "bitrev",
        Shuffle = "shuffle",
        Tornado = "tornado",
        Neighbor = "neighbor",
        Randperm = "randperm",
        Hotspot = "hotspot",
    }
}

/// A pattern made concrete on one network: the destination of every
/// source for a permutation, the hot nodes and weights for `hotspot`.
#[derive(Debug, Clone)]
pub enum UnicastDests {
    Uniform,
    /// `dest[u]`; `None` where the permutation fixes `u`.
    Permutation(Vec<Option<NodeId>>),
    /// Hot nodes with their weights, in scenario order.
    Hotspot(Vec<(NodeId, u32)>),
}

impl UnicastDests {
    /// `pattern` on `topo`. `hot` and `weights` serve `hotspot` only
    /// (validated by the scenario); `seed` draws `randperm`'s permutation
    /// on a random stream of its own, so the per-node streams are the same
    /// whatever the pattern.
    pub fn new(
        pattern: UnicastPattern,
        topo: &Topology,
        hot: &[NodeId],
        weights: &[u32],
        seed: u64,
    ) -> InputResult<UnicastDests> {
        use UnicastPattern as P;
        let n = topo.nodes();
        let field = "traffic.unicast";
        let pow2 = |what: &str| -> InputResult<u32> {
            if n.is_power_of_two() {
                Ok(n.trailing_zeros())
            } else {
                Err(InputError::new(
                    field,
                    pattern,
                    format!("{what} needs a power-of-two node count, and {topo} has {n} nodes; use a 2^a × 2^b network, or tornado, neighbor, randperm, hotspot or uniform"),
                ))
            }
        };
        let perm = |f: &dyn Fn(NodeId) -> NodeId| {
            UnicastDests::Permutation(
                (0..n)
                    .map(|u| {
                        let d = f(u);
                        (d != u).then_some(d)
                    })
                    .collect(),
            )
        };
        let (k, m) = (topo.k, topo.m);
        Ok(match pattern {
            P::Uniform => UnicastDests::Uniform,
            P::Transpose => {
                if k != m {
                    return Err(InputError::new(
                        field,
                        pattern,
                        format!("transpose needs a square network (K = M), and this one is {topo}"),
                    ));
                }
                perm(&|u| {
                    let (x, y) = topo.coord(u);
                    topo.id(y, x)
                })
            }
            P::Bitcomp => {
                pow2("bitcomp")?;
                perm(&|u| !u & (n - 1))
            }
            P::Bitrev => {
                let bits = pow2("bitrev")?;
                perm(&|u| u.reverse_bits().checked_shr(32 - bits).unwrap_or(0))
            }
            P::Shuffle => {
                let bits = pow2("shuffle")?;
                perm(&|u| ((u << 1) & (n - 1)) | ((u >> (bits - 1).min(31)) & 1))
            }
            P::Tornado => perm(&|u| {
                let (x, y) = topo.coord(u);
                topo.id((x + k.div_ceil(2) - 1) % k, (y + m.div_ceil(2) - 1) % m)
            }),
            P::Neighbor => perm(&|u| {
                let (x, y) = topo.coord(u);
                topo.id((x + 1) % k, (y + 1) % m)
            }),
            P::Randperm => UnicastDests::Permutation(derangement(n, seed)),
            P::Hotspot => {
                UnicastDests::Hotspot(hot.iter().zip(weights).map(|(&h, &w)| (h, w)).collect())
            }
        })
    }

    /// The destination of a unicast from `u`, drawing from `rng` for
    /// `hotspot` only; `None` when `u` sends no unicast (a fixed point, or
    /// the only hot node). `Uniform` is drawn by the caller.
    pub fn pick(&self, u: NodeId, rng: &mut ChaCha8Rng) -> Option<NodeId> {
        match self {
            UnicastDests::Uniform => unreachable!("uniform is drawn by the generator"),
            UnicastDests::Permutation(d) => d[u as usize],
            UnicastDests::Hotspot(hot) => {
                let total: u64 = hot
                    .iter()
                    .filter(|&&(h, _)| h != u)
                    .map(|&(_, w)| w as u64)
                    .sum();
                if total == 0 {
                    return None;
                }
                let mut x = rng.gen_range(0..total);
                for &(h, w) in hot.iter().filter(|&&(h, _)| h != u) {
                    if x < w as u64 {
                        return Some(h);
                    }
                    x -= w as u64;
                }
                unreachable!("x < total")
            }
        }
    }
}

/// A uniformly random permutation of `0..n` without fixed points
/// (rejection: a random permutation is a derangement with probability
/// about 1/e, so a few draws on average). Stream 0 of the traffic seed:
/// the nodes use streams 1..=n.
fn derangement(n: u32, seed: u64) -> Vec<Option<NodeId>> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(0);
    let mut p: Vec<NodeId> = (0..n).collect();
    loop {
        p.shuffle(&mut rng);
        if p.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return p.into_iter().map(Some).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologyKind;
    use rand::SeedableRng;

    fn topo(kind: TopologyKind, k: u32, m: u32) -> Topology {
        Topology { kind, k, m }
    }

    fn dests(p: UnicastPattern, t: &Topology) -> Vec<Option<NodeId>> {
        match UnicastDests::new(p, t, &[], &[], 7).unwrap() {
            UnicastDests::Permutation(d) => d,
            other => panic!("not a permutation: {other:?}"),
        }
    }

    #[test]
    fn bit_patterns_match_hand_computed_cases() {
        let t = topo(TopologyKind::Mesh, 4, 4);
        let id = |x, y| t.id(x, y);
        // 16 nodes, 4 bits. bitcomp 0b0001 -> 0b1110.
        assert_eq!(dests(UnicastPattern::Bitcomp, &t)[1], Some(14));
        // bitrev 0b0001 -> 0b1000, 0b0110 is a palindrome: fixed, no sends.
        assert_eq!(dests(UnicastPattern::Bitrev, &t)[1], Some(8));
        assert_eq!(dests(UnicastPattern::Bitrev, &t)[6], None);
        assert_eq!(dests(UnicastPattern::Bitrev, &t)[0b1011], Some(0b1101));
        // shuffle: rotate left, 0b1001 -> 0b0011; 0 and 15 are fixed.
        assert_eq!(dests(UnicastPattern::Shuffle, &t)[0b1001], Some(0b0011));
        assert_eq!(dests(UnicastPattern::Shuffle, &t)[0], None);
        assert_eq!(dests(UnicastPattern::Shuffle, &t)[15], None);
        // transpose (1,3) -> (3,1); the diagonal is fixed.
        let tr = dests(UnicastPattern::Transpose, &t);
        assert_eq!(tr[id(1, 3) as usize], Some(id(3, 1)));
        assert_eq!(tr[id(2, 2) as usize], None);
        // On 2^k x 2^k, transpose is BookSim's bit transpose.
        for u in 0..16u32 {
            let booksim = ((u >> 2) & 3) | ((u << 2) & 12);
            assert_eq!(tr[u as usize].unwrap_or(u), booksim);
        }
    }

    #[test]
    fn digit_patterns_match_hand_computed_cases() {
        let t = topo(TopologyKind::Mesh, 16, 16);
        let tor = dests(UnicastPattern::Tornado, &t);
        // K = 16: x + 7 mod 16.
        assert_eq!(tor[t.id(0, 0) as usize], Some(t.id(7, 7)));
        assert_eq!(tor[t.id(12, 3) as usize], Some(t.id(3, 10)));
        let nb = dests(UnicastPattern::Neighbor, &t);
        assert_eq!(nb[t.id(15, 4) as usize], Some(t.id(0, 5)));
        // Non-square: each side its own offset (5x3: +2 and +1).
        let r = topo(TopologyKind::Torus, 5, 3);
        let tor = dests(UnicastPattern::Tornado, &r);
        assert_eq!(tor[r.id(4, 2) as usize], Some(r.id(1, 0)));
    }

    #[test]
    fn permutations_are_bijections() {
        let t = topo(TopologyKind::Torus, 8, 8);
        for p in [
            UnicastPattern::Transpose,
            UnicastPattern::Bitcomp,
            UnicastPattern::Bitrev,
            UnicastPattern::Shuffle,
            UnicastPattern::Tornado,
            UnicastPattern::Neighbor,
            UnicastPattern::Randperm,
        ] {
            let d = dests(p, &t);
            let mut seen: Vec<u32> = d
                .iter()
                .enumerate()
                .map(|(u, x)| x.unwrap_or(u as u32))
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..64).collect::<Vec<_>>(), "{p}");
        }
        // randperm: no fixed points, and the seed decides it.
        let a = dests(UnicastPattern::Randperm, &t);
        assert!(a.iter().all(Option::is_some));
        let b = match UnicastDests::new(UnicastPattern::Randperm, &t, &[], &[], 8).unwrap() {
            UnicastDests::Permutation(d) => d,
            _ => unreachable!(),
        };
        assert_ne!(a, b);
        assert_eq!(a, dests(UnicastPattern::Randperm, &t));
    }

    #[test]
    fn shapes_a_pattern_cannot_use_are_refused() {
        let t = topo(TopologyKind::Mesh, 6, 6);
        for p in [
            UnicastPattern::Bitcomp,
            UnicastPattern::Bitrev,
            UnicastPattern::Shuffle,
        ] {
            let e = UnicastDests::new(p, &t, &[], &[], 1).unwrap_err();
            assert!(e.to_string().contains("power-of-two node count"), "{e}");
            assert!(e.to_string().contains("36 nodes"), "{e}");
        }
        let e = UnicastDests::new(
            UnicastPattern::Transpose,
            &topo(TopologyKind::Mesh, 8, 4),
            &[],
            &[],
            1,
        )
        .unwrap_err();
        assert!(e.to_string().contains("square"), "{e}");
        // 8x4 has 32 nodes: the bit patterns are fine there.
        assert!(UnicastDests::new(
            UnicastPattern::Bitrev,
            &topo(TopologyKind::Mesh, 8, 4),
            &[],
            &[],
            1
        )
        .is_ok());
    }

    #[test]
    fn hotspot_draws_follow_the_weights() {
        let t = topo(TopologyKind::Mesh, 4, 4);
        let d = UnicastDests::new(UnicastPattern::Hotspot, &t, &[3, 5, 9], &[1, 2, 5], 1).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut count = [0u32; 16];
        let draws = 80_000;
        for _ in 0..draws {
            count[d.pick(0, &mut rng).unwrap() as usize] += 1;
        }
        for (h, w) in [(3, 1.0), (5, 2.0), (9, 5.0)] {
            let share = count[h] as f64 / draws as f64;
            assert!((share - w / 8.0).abs() < 0.01, "node {h}: {share}");
        }
        // A hot source never sends to itself: from 9 only 3 and 5, 1:2.
        let mut c9 = [0u32; 16];
        for _ in 0..30_000 {
            c9[d.pick(9, &mut rng).unwrap() as usize] += 1;
        }
        assert_eq!(c9[9], 0);
        assert!((c9[5] as f64 / 30_000.0 - 2.0 / 3.0).abs() < 0.02);
        // The only hot node sends nothing.
        let one = UnicastDests::new(UnicastPattern::Hotspot, &t, &[4], &[1], 1).unwrap();
        assert_eq!(one.pick(4, &mut rng), None);
        assert_eq!(one.pick(2, &mut rng), Some(4));
    }
}
