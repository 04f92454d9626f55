//! Fault-tolerant tree multicast on a 2-D mesh with faulty blocks — paper
//! \[FTTREE\] (Wu & Chen), docs/references.md §D.
//!
//! Pure, deterministic functions: given the faulty nodes, a source and a
//! multicast set, [`multicast`] returns the multicast tree the set-up phase
//! reserves (per node its children, which nodes are destinations) and the
//! paper's metric, total traffic steps (links reserved), next to multiple
//! unicast (the sum of the minimal distances). Every destination with a
//! fault-free minimal path is reached on a minimal path; faulty and disabled
//! nodes are never used.
//!
//! One file per concept: [`blocks`] (Definition 1), [`safety`] (extended
//! safety levels), [`regions`] (quadrant frame, L1/L3, R4/R6, Fig. 4
//! transfer), [`route`] (the set-up process, Definitions 3–4), [`strategy`]
//! (Strategies 1–3), [`greedy`] (Definition 6), [`tree`] (the output),
//! [`experiment`] (the random trials of §6).

pub mod blocks;
pub mod experiment;
pub mod greedy;
pub mod regions;
pub mod route;
pub mod safety;
pub mod strategy;
pub mod tree;

pub use blocks::{Block, FaultyMesh};
pub use greedy::VirtualTree;
pub use route::RouteStats;
pub use safety::{extended_safe, safety_vector, SafetyVector};
pub use strategy::{Conflict, Resolver, Strategy};
pub use tree::{BranchNode, FtTree, Visit};

use crate::error::{InputError, InputResult};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use regions::{Frame, P};
use route::Reach;

/// A mesh coordinate `(x, y)`.
pub type Coord = (u32, u32);

/// One multicast: the tree, the paper's metric and the baseline.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FtMulticast {
    pub tree: FtTree,
    /// Total traffic steps: links reserved by the tree.
    pub traffic: u32,
    /// Multiple unicast over the same (routed) destinations: Σ distances.
    pub unicast_traffic: u32,
    pub stats: RouteStats,
    /// Destinations reached (on minimal paths).
    pub routed: Vec<Coord>,
    /// Destinations without any fault-free minimal path (not routed).
    pub unreachable: Vec<Coord>,
    /// Routed destinations to which the source is not extended safe (outside
    /// the paper's assumption; reached, possibly with guard overrides).
    pub not_extended_safe: Vec<Coord>,
}

/// The quadrant of `d` seen from `s` (§7.2, Fig. 12): destinations on the
/// source's row or column belong to the + side of that axis.
fn quadrant(s: Coord, d: Coord) -> (i32, i32) {
    let sx = if d.0 >= s.0 { 1 } else { -1 };
    let sy = if d.1 >= s.1 { 1 } else { -1 };
    (sx, sy)
}

fn check_inputs(mesh: &FaultyMesh, src: Coord, dests: &[Coord]) -> InputResult<()> {
    mesh.healthy_node(src, "source")?;
    let mut seen = std::collections::HashSet::new();
    for &d in dests {
        mesh.healthy_node(d, "destination")?;
        if d == src {
            return Err(InputError::new(
                "destination",
                format!("{},{}", d.0, d.1),
                "a node other than the source",
            ));
        }
        if !seen.insert(d) {
            return Err(InputError::new(
                "destination",
                format!("{},{}", d.0, d.1),
                "each destination once",
            ));
        }
    }
    Ok(())
}

/// Whether a fault-free minimal path joins `src` to `d`: the destinations
/// [`multicast`] routes (the others are `unreachable`).
pub fn reachable(mesh: &FaultyMesh, src: Coord, d: Coord) -> bool {
    let (sx, sy) = quadrant(src, d);
    let frame = Frame::new(mesh, src, sx, sy);
    Reach::new(&frame, frame.to_frame(d)).from((0, 0))
}

/// Builds the multicast tree with one of the paper's strategies; `seed` drives
/// the random choices (2d-free moves, Strategy 1).
pub fn multicast(
    mesh: &FaultyMesh,
    src: Coord,
    dests: &[Coord],
    strategy: Strategy,
    seed: u64,
) -> InputResult<FtMulticast> {
    multicast_with(mesh, src, dests, seed, &mut |c, rng| {
        strategy::resolve(strategy, c, rng)
    })
}

/// [`multicast`] with a caller-supplied conflict resolver (tests use it to
/// force every undetermined destination into one group, as in Fig. 7(a)).
pub fn multicast_with(
    mesh: &FaultyMesh,
    src: Coord,
    dests: &[Coord],
    seed: u64,
    resolver: &mut Resolver,
) -> InputResult<FtMulticast> {
    check_inputs(mesh, src, dests)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tree = FtTree::new(src);
    let mut stats = RouteStats::default();
    let (mut routed, mut unreachable, mut not_safe) = (Vec::new(), Vec::new(), Vec::new());
    let mut unicast = 0;
    for (sx, sy) in [(1, 1), (-1, 1), (-1, -1), (1, -1)] {
        let mine: Vec<Coord> = dests
            .iter()
            .copied()
            .filter(|&d| quadrant(src, d) == (sx, sy))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let frame = Frame::new(mesh, src, sx, sy);
        let mut pts: Vec<P> = Vec::new();
        for d in mine {
            let p = frame.to_frame(d);
            if !Reach::new(&frame, p).from((0, 0)) {
                unreachable.push(d);
                continue;
            }
            if !extended_safe(mesh, src, d) {
                not_safe.push(d);
            }
            unicast += (p.0 + p.1) as u32;
            routed.push(d);
            pts.push(p);
        }
        if !pts.is_empty() {
            route::route_frame(&frame, &pts, &mut tree, 0, resolver, &mut rng, &mut stats);
        }
    }
    Ok(FtMulticast {
        traffic: tree.traffic(),
        tree,
        unicast_traffic: unicast,
        stats,
        routed,
        unreachable,
        not_extended_safe: not_safe,
    })
}

/// The greedy multicast tree of Definition 6 (Lin–Ni, time-step optimal),
/// with fault eligibility: every destination must lie in the +X+Y quadrant
/// of `root` and have a fault-free minimal path from it. Returns the virtual
/// edges in mesh coordinates, in construction order.
pub fn greedy_tree(
    mesh: &FaultyMesh,
    root: Coord,
    dests: &[Coord],
) -> InputResult<Vec<(Coord, Coord)>> {
    check_inputs(mesh, root, dests)?;
    let frame = Frame::new(mesh, root, 1, 1);
    let mut pts = Vec::new();
    for &d in dests {
        if d.0 < root.0 || d.1 < root.1 {
            return Err(InputError::new(
                "destination",
                format!("{},{}", d.0, d.1),
                format!(
                    "a node with x >= {} and y >= {} (the +X+Y quadrant of the root)",
                    root.0, root.1
                ),
            ));
        }
        let p = frame.to_frame(d);
        let r = Reach::new(&frame, p);
        if !r.from((0, 0)) {
            return Err(InputError::new(
                "destination",
                format!("{},{}", d.0, d.1),
                "a node with a fault-free minimal path from the root",
            ));
        }
        pts.push((p, r));
    }
    pts.sort_by_key(|(p, _)| p.0 + p.1);
    let mut t = VirtualTree::new((0, 0));
    let cache = std::cell::RefCell::new(std::collections::HashMap::<P, Reach>::new());
    let reaches = |a: P, b: P| -> bool {
        let mut c = cache.borrow_mut();
        c.entry(b).or_insert_with(|| Reach::new(&frame, b)).from(a)
    };
    let on_edge = |a: P, w: P, b: P| reaches(a, w) && reaches(w, b);
    for (p, r) in &pts {
        let el = |w: P| r.from(w);
        if t.insert_checked(*p, None, &el, Some(&on_edge)).is_none() {
            // No split point keeps every edge fault-free: hang d from the root.
            t.edges.push(greedy::VEdge {
                from: (0, 0),
                to: *p,
                branch: 0,
            });
        }
    }
    let back = |p: P| frame.to_mesh(p).unwrap_or(root);
    Ok(t.edges.iter().map(|e| (back(e.from), back(e.to))).collect())
}
