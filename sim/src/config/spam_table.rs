//! SPAM baseline routing (\[DSTM\] §2 and its ref. \[11\]; docs/references.md §A):
//! one BFS spanning tree, every other link a cross link, all links one class.
//!
//! A link traversal u→v is *up* when v ranks below u by (tree depth, node
//! id), else *down*; a down traversal of a tree link is *down-tree*, of a
//! cross link *down-cross*. Legal paths are up* down-cross* down-tree*. The
//! phase of a worm is a static property of the port it arrived on (the type
//! of that link traversal; injection counts as "up"), so a router needs per
//! target and per phase the output of a shortest legal path: a table of
//! N×3 entries of 2 bits (a port O1..O4; the own-node entry is unused).
//! Channels ordered up (rank decreasing) < down-cross (rank increasing) <
//! down-tree (depth increasing) give an acyclic channel-dependency graph.

use super::MAX_INPUTS;
use crate::error::InputResult;
use crate::topology::{Dir, EdgeId, NodeId, Topology};
use crate::trees::SpanningTree;
use std::collections::VecDeque;

/// Phase of a worm: the type of the last link it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Phase {
    Up = 0,
    DownCross = 1,
    DownTree = 2,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Up, Phase::DownCross, Phase::DownTree];
}

/// Largest network SPAM routing is built for: 4096 nodes (64×64).
///
/// A memory bound. Every router keeps one 3-byte entry per target (module
/// docs), so the tables of a fabric take 3·N² bytes, 48 MiB at 64×64 but
/// 768 MiB at 128×128, and building them costs one BFS per target (O(N²)).
/// Tree and mesh routing keep O(1) per router and go up to
/// `topology::MAX_NODES`.
pub const SPAM_MAX_NODES: u32 = 4096;

/// Entry value for "no entry" (the own node).
pub const NO_PORT: u8 = 0xFF;

/// Per-router SPAM constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpamTable {
    /// Indexed by the target's post-order number: per phase, the output port
    /// (0..3) of a shortest legal path, [`NO_PORT`] for the own node.
    pub next: Vec<[u8; 3]>,
    /// Phase of a worm arriving on each input (injection inputs: Up).
    pub in_phase: [Phase; MAX_INPUTS],
}

impl SpamTable {
    /// The output for target number `node` of a worm that arrived on `input`.
    pub fn route(&self, input: usize, node: u32) -> Option<Dir> {
        let p = self.in_phase[input.min(MAX_INPUTS - 1)];
        let o = self.next.get(node as usize)?[p as usize];
        (o != NO_PORT).then(|| Dir::from_index(o as usize))
    }
}

/// The SPAM tree: BFS from `root`, neighbours in port order O1..O4, so ties
/// go to the lower port of the node discovered first.
pub fn bfs_tree(topo: &Topology, root: NodeId, faulty: &[EdgeId]) -> InputResult<SpanningTree> {
    let n = topo.nodes() as usize;
    let mut seen = vec![false; n];
    let mut edges = Vec::with_capacity(n.saturating_sub(1));
    let mut q = VecDeque::from([root]);
    seen[root as usize] = true;
    while let Some(u) = q.pop_front() {
        for d in Dir::ALL {
            let (Some(e), Some(v)) = (topo.edge(u, d), topo.neighbor(u, d)) else {
                continue;
            };
            if faulty.contains(&e) || seen[v as usize] {
                continue;
            }
            seen[v as usize] = true;
            edges.push(e);
            q.push_back(v);
        }
    }
    SpanningTree::from_edges(*topo, root, &edges, "SPAM BFS tree")
}

/// Rank of a node for up/down: (depth, id); lower is "more up".
fn rank(t: &SpanningTree, u: NodeId) -> (u32, NodeId) {
    (t.depth[u as usize], u)
}

/// Type of the traversal u→v over port `d` of `u`, or `None` if the link is
/// missing or faulty.
pub fn link_phase(t: &SpanningTree, u: NodeId, d: Dir, faulty: &[EdgeId]) -> Option<Phase> {
    let e = t.topo.edge(u, d)?;
    if faulty.contains(&e) {
        return None;
    }
    let v = t.topo.neighbor(u, d)?;
    Some(if rank(t, v) < rank(t, u) {
        Phase::Up
    } else if t.contains_edge(e) {
        Phase::DownTree
    } else {
        Phase::DownCross
    })
}

/// Legal-path distances to `target` from every (node, phase) state:
/// `dist[u*3 + p]`, `u32::MAX` if unreachable.
pub fn distances(t: &SpanningTree, target: NodeId, faulty: &[EdgeId]) -> Vec<u32> {
    let n = t.topo.nodes() as usize;
    let mut dist = vec![u32::MAX; n * 3];
    let mut q = VecDeque::new();
    for p in 0..3 {
        dist[target as usize * 3 + p] = 0;
        q.push_back((target, p));
    }
    // Backward BFS: (u, p) precedes (w, q) if u→w has type q ≥ p.
    while let Some((w, qp)) = q.pop_front() {
        let dw = dist[w as usize * 3 + qp];
        for d in Dir::ALL {
            let Some(u) = t.topo.neighbor(w, d) else {
                continue;
            };
            let back = d.opposite();
            if t.topo.neighbor(u, back) != Some(w) {
                continue;
            }
            if link_phase(t, u, back, faulty) != Some(Phase::ALL[qp]) {
                continue;
            }
            for p in 0..=qp {
                let s = u as usize * 3 + p;
                if dist[s] == u32::MAX {
                    dist[s] = dw + 1;
                    q.push_back((u, p));
                }
            }
        }
    }
    dist
}

/// The SPAM tables of every router.
pub fn tables(t: &SpanningTree, faulty: &[EdgeId]) -> Vec<SpamTable> {
    let topo = &t.topo;
    let n = topo.nodes() as usize;
    let mut next = vec![vec![[NO_PORT; 3]; n]; n];
    for target in 0..n as NodeId {
        let dist = distances(t, target, faulty);
        let num = t.number[target as usize] as usize;
        for u in 0..n as NodeId {
            if u == target {
                continue;
            }
            for p in Phase::ALL {
                let mut best = (u32::MAX, NO_PORT);
                for d in Dir::ALL {
                    let Some(lp) = link_phase(t, u, d, faulty) else {
                        continue;
                    };
                    if lp < p {
                        continue;
                    }
                    let v = topo.neighbor(u, d).expect("link exists");
                    let dv = dist[v as usize * 3 + lp as usize];
                    if dv != u32::MAX && dv + 1 < best.0 {
                        best = (dv + 1, d.index() as u8);
                    }
                }
                next[u as usize][num][p as usize] = best.1;
            }
        }
    }
    (0..n as NodeId)
        .map(|u| {
            let mut in_phase = [Phase::Up; MAX_INPUTS];
            for d in Dir::ALL {
                // Arrival on port d: the neighbour sent over its port d.opposite().
                if let Some(v) = topo.neighbor(u, d) {
                    if let Some(p) = link_phase(t, v, d.opposite(), faulty) {
                        in_phase[d.index()] = p;
                    }
                }
            }
            SpamTable {
                next: std::mem::take(&mut next[u as usize]),
                in_phase,
            }
        })
        .collect()
}
