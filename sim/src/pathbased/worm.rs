//! The common output of every path-based scheme: multidestination worms with
//! their full node sequence and the headers of the common header format, and
//! the analytic traffic and time of a whole multicast.
//!
//! Header rule (docs/references.md §B, "absorb-and-forward with the common header
//! format"): a worm to d1..dk in visiting order carries
//! `{d_i, C=1, O = port of the next hop at d_i}` for i < k, then `{d_k, C=1}`.
//!
//! Analytic model, shared by all schemes of this module:
//! * **traffic** = links used, summed over worms (\[PATHOPT\] §2 criterion 1,
//!   \[THESIS\] eq. 4.3.2, \[BRCP\]'s channel count);
//! * **time** = the longest worm in hops (\[PATHOPT\] §2 criterion 2: "minimize
//!   the maximum length of all the multicast-paths"). The \[THESIS\] adds the
//!   message length: `time = max(dx, dy) + L` (eq. 4.3.1), see
//!   [`PathMulticast::time_with_message`].

use crate::error::{InputError, InputResult};
use crate::flit::Head;
use crate::topology::{Dir, NodeId, Topology};

/// Channel class of label-increasing (Hamiltonian "high") worms.
pub const CLASS_HIGH: u8 = 0;
/// Channel class of label-decreasing (Hamiltonian "low") worms.
pub const CLASS_LOW: u8 = 1;

/// One multidestination worm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathWorm {
    /// Channel class (0 = high, 1 = low for Hamiltonian schemes; each scheme
    /// documents its own use).
    pub class: u8,
    /// The source port the worm is injected through (its first hop).
    pub port: Dir,
    /// The full node sequence, starting at the source.
    pub route: Vec<NodeId>,
    /// Destinations in visiting order.
    pub dests: Vec<NodeId>,
    /// Index in `route` at which each destination is absorbed.
    pub dest_pos: Vec<usize>,
    /// Header flits, one per destination (common header format).
    pub heads: Vec<Head>,
}

impl PathWorm {
    /// Builds a worm from the source, its destinations in visiting order and a
    /// segment router: `seg(a, b)` returns the nodes after `a` up to and
    /// including `b`. Panics only on a routing bug (a non-adjacent hop).
    pub fn build(
        topo: &Topology,
        class: u8,
        source: NodeId,
        dests: Vec<NodeId>,
        mut seg: impl FnMut(NodeId, NodeId) -> Vec<NodeId>,
    ) -> PathWorm {
        assert!(!dests.is_empty(), "a worm needs at least one destination");
        let mut route = vec![source];
        let mut dest_pos = Vec::with_capacity(dests.len());
        let mut at = source;
        for &d in &dests {
            let s = seg(at, d);
            debug_assert_eq!(s.last().copied().unwrap_or(at), d);
            route.extend(s);
            dest_pos.push(route.len() - 1);
            at = d;
        }
        let port = dir_between(topo, route[0], route[1]).expect("route hop not adjacent");
        let heads = dests
            .iter()
            .zip(&dest_pos)
            .enumerate()
            .map(|(i, (&d, &p))| {
                let o = if i + 1 < dests.len() {
                    let dir =
                        dir_between(topo, route[p], route[p + 1]).expect("route hop not adjacent");
                    1u8 << dir.index()
                } else {
                    0
                };
                Head {
                    node: d,
                    c: true,
                    o,
                    s: false,
                    class,
                }
            })
            .collect();
        PathWorm {
            class,
            port,
            route,
            dests,
            dest_pos,
            heads,
        }
    }

    /// Links this worm uses.
    pub fn hops(&self) -> u32 {
        (self.route.len() - 1) as u32
    }
}

/// All worms of one multicast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMulticast {
    pub source: NodeId,
    pub worms: Vec<PathWorm>,
}

impl PathMulticast {
    /// Links used, summed over worms.
    pub fn traffic(&self) -> u32 {
        self.worms.iter().map(PathWorm::hops).sum()
    }

    /// The longest worm in hops (0 with no destination).
    pub fn time(&self) -> u32 {
        self.worms.iter().map(PathWorm::hops).max().unwrap_or(0)
    }

    /// \[THESIS\] eq. 4.3.1: `max path length + L` for an `L`-flit message.
    pub fn time_with_message(&self, len: u32) -> u32 {
        self.time() + len
    }
}

/// The port of `a` whose link reaches `b`, if they are adjacent.
pub fn dir_between(topo: &Topology, a: NodeId, b: NodeId) -> Option<Dir> {
    Dir::ALL
        .into_iter()
        .find(|&d| topo.neighbor(a, d) == Some(b))
}

/// Common input checks: a mesh, a source and distinct destinations on it,
/// none of them the source.
pub fn check_request(topo: &Topology, source: NodeId, dests: &[NodeId]) -> InputResult<()> {
    if topo.is_torus() {
        return Err(InputError::new(
            "topology",
            topo,
            "path-based multicast schemes need a mesh (`mesh:KxM`)",
        ));
    }
    let n = topo.nodes();
    if source >= n {
        return Err(InputError::new(
            "source",
            source,
            format!("a node id from 0 to {}", n - 1),
        ));
    }
    // A repeat is found against the earlier entries directly while the list
    // is short (a unicast is one entry), so a message does not allocate and
    // clear a flag per node: 16 KB per message on a 128×128 mesh.
    let mut seen = if dests.len() > 16 {
        vec![false; n as usize]
    } else {
        Vec::new()
    };
    for (k, &d) in dests.iter().enumerate() {
        if d >= n {
            return Err(InputError::new(
                "destinations",
                d,
                format!("node ids from 0 to {}", n - 1),
            ));
        }
        if d == source {
            return Err(InputError::new(
                "destinations",
                d,
                "destinations other than the source",
            ));
        }
        let repeated = if seen.is_empty() {
            dests[..k].contains(&d)
        } else {
            std::mem::replace(&mut seen[d as usize], true)
        };
        if repeated {
            return Err(InputError::new(
                "destinations",
                d,
                "distinct destinations (this one is repeated)",
            ));
        }
    }
    Ok(())
}
