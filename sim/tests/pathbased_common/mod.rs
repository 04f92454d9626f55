//! Shared checks for the path-based scheme tests: every worm is a valid mesh
//! path that follows its scheme's routing rule, visits its destinations in
//! order, carries exactly the headers of the common format, and the worms
//! together cover exactly the destination set.
#![allow(dead_code)]

use std::collections::BTreeSet;
use wormcast_sim::pathbased::hamiltonian::{label, r_next};
use wormcast_sim::pathbased::worm::dir_between;
use wormcast_sim::pathbased::xypath::XyPartition;
use wormcast_sim::pathbased::{PathMulticast, CLASS_HIGH, CLASS_LOW};
use wormcast_sim::topology::{Dir, NodeId, Topology};

/// The routing rule a scheme's worms must follow.
pub enum Rule<'a> {
    /// R within the worm's class; `forced_first` allows the first hop to be
    /// any neighbour of the class (multi-path).
    Hamiltonian { forced_first: bool },
    /// R on the worm's guiding path (class = path).
    XyPath(&'a XyPartition),
    /// All negative hops before any positive hop.
    NegativeFirst,
    /// Dimension-ordered: no X hop after a Y hop.
    Xy,
}

fn is_negative(d: Dir) -> bool {
    matches!(d, Dir::XMinus | Dir::YMinus)
}

pub fn check(topo: &Topology, mc: &PathMulticast, dests: &[NodeId], rule: &Rule) {
    let s = mc.source;
    let mut covered = BTreeSet::new();
    for w in &mc.worms {
        assert_eq!(w.route[0], s, "route starts at the source");
        assert!(w.route.len() >= 2);
        let dirs: Vec<Dir> = w
            .route
            .windows(2)
            .map(|p| dir_between(topo, p[0], p[1]).expect("consecutive nodes adjacent"))
            .collect();
        assert_eq!(w.port, dirs[0], "injection port = first hop");
        assert_eq!(w.dests.len(), w.dest_pos.len());
        assert_eq!(
            *w.dest_pos.last().unwrap(),
            w.route.len() - 1,
            "ends at last dest"
        );
        for i in 0..w.dests.len() {
            assert_eq!(w.route[w.dest_pos[i]], w.dests[i], "destination in order");
            if i > 0 {
                assert!(w.dest_pos[i] > w.dest_pos[i - 1]);
            }
            assert!(covered.insert(w.dests[i]), "destination in two worms");
        }
        // Headers.
        assert_eq!(w.heads.len(), w.dests.len());
        for (i, h) in w.heads.iter().enumerate() {
            assert_eq!(h.node, w.dests[i]);
            assert!(h.c, "C=1 at every destination");
            assert!(!h.s);
            assert_eq!(h.class, w.class);
            if i + 1 < w.heads.len() {
                assert_eq!(h.o, 1 << dirs[w.dest_pos[i]].index(), "O = next hop port");
            } else {
                assert_eq!(h.o, 0, "last header has no O bit");
            }
        }
        // Routing rule.
        match rule {
            Rule::Hamiltonian { forced_first } => {
                let up = match w.class {
                    CLASS_HIGH => true,
                    CLASS_LOW => false,
                    c => panic!("class {c}"),
                };
                let mut seg = 0;
                for t in 0..w.route.len() - 1 {
                    let (a, b) = (w.route[t], w.route[t + 1]);
                    assert_eq!(
                        label(topo, b) > label(topo, a),
                        up,
                        "hop stays in its class"
                    );
                    while w.dest_pos[seg] <= t {
                        seg += 1;
                    }
                    if !(t == 0 && *forced_first) {
                        assert_eq!(b, r_next(topo, a, w.dests[seg]), "hop follows R");
                    }
                }
            }
            Rule::XyPath(part) => {
                let p = w.class;
                let mut seg = 0;
                for t in 0..w.route.len() - 1 {
                    let (a, b) = (w.route[t], w.route[t + 1]);
                    assert_eq!(part.owner[b as usize], p, "stays on its guiding path");
                    while w.dest_pos[seg] <= t {
                        seg += 1;
                    }
                    assert_eq!(b, part.r_next(p, a, w.dests[seg]), "hop follows eq. 3.3.1");
                }
            }
            Rule::NegativeFirst => {
                let first_pos = dirs.iter().position(|&d| !is_negative(d));
                if let Some(f) = first_pos {
                    assert!(dirs[f..].iter().all(|&d| !is_negative(d)), "negative-first");
                }
            }
            Rule::Xy => {
                let first_y = dirs
                    .iter()
                    .position(|&d| matches!(d, Dir::YPlus | Dir::YMinus));
                if let Some(f) = first_y {
                    assert!(
                        dirs[f..]
                            .iter()
                            .all(|&d| matches!(d, Dir::YPlus | Dir::YMinus)),
                        "XY: no X hop after a Y hop"
                    );
                }
            }
        }
    }
    let want: BTreeSet<NodeId> = dests.iter().copied().collect();
    assert_eq!(covered, want, "worms cover exactly the destination set");
    assert_eq!(
        mc.traffic(),
        mc.worms
            .iter()
            .map(|w| w.route.len() as u32 - 1)
            .sum::<u32>()
    );
}
