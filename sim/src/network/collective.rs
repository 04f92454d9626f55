//! Collectives with a completion time (`traffic.collective`): one
//! collective operation started at the beginning of the measurement window
//! (`run.warmup`), on top of whatever the pattern generates (none with
//! `pattern = "none"`); the run stops when its last message is delivered.
//!
//! * **`broadcast`**: the root multicasts one message to every other node.
//! * **`allgather`**: every node multicasts its block to every other node
//!   (all-to-all broadcast), all N messages created at the start.
//! * **`scatter`**: the root sends a distinct unicast to each other node,
//!   queued farthest first (ties by node number), so the long trips start
//!   early.
//!
//! Every message has `traffic.length` data flits. The report gives the
//! completion time (start to the last TAIL delivered), a lower bound
//! derived from the network and the router contract ([`LowerBound`];
//! derivation in docs/decisions.md, "Collective lower bounds"), and their
//! ratio. This file holds the definitions and the bound; running a
//! collective is `network::collective_run`, the report's figures
//! `network::stats::CollectiveStats`.

use crate::error::{InputError, InputResult};
use crate::ftmesh::FaultyMesh;
use crate::topology::{Dir, NodeId, Topology};
use serde::Serialize;

/// `traffic.root` unless given.
pub const DEFAULT_ROOT: &str = "0,0";

named_enum! {
    /// `traffic.collective`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum CollectiveKind("collective") {
        #[default]
        Off = "none",
        Broadcast = "broadcast",
        AllGather = "allgather",
        Scatter = "scatter",
    }
}

/// The traffic keys a collective is checked with.
#[derive(Debug, Clone, Copy)]
pub struct CollectiveKeys<'a> {
    pub kind: CollectiveKind,
    pub root: &'a str,
    pub length_max: u32,
    pub batch: u64,
}

/// The checks of `traffic.collective` and `traffic.root` with the keys
/// they depend on; the collective and its root, `None` without one.
/// `origin_only` names a mesh scheme whose multicasts start at 0,0.
pub fn validate(
    t: CollectiveKeys,
    topo: &Topology,
    fm: Option<&FaultyMesh>,
    origin_only: Option<&str>,
) -> InputResult<Option<(CollectiveKind, NodeId)>> {
    let kind = t.kind;
    let rooted = matches!(kind, CollectiveKind::Broadcast | CollectiveKind::Scatter);
    if !rooted && t.root != DEFAULT_ROOT {
        return Err(InputError::new(
            "traffic.root",
            t.root,
            format!(
                "its default ({DEFAULT_ROOT}) unless collective = \"broadcast\" or \"scatter\""
            ),
        ));
    }
    if kind == CollectiveKind::Off {
        return Ok(None);
    }
    let root = topo.parse_node(t.root, "traffic.root")?;
    if fm.is_some_and(|fm| !fm.blocks.is_empty()) {
        return Err(InputError::new(
            "traffic.collective",
            kind,
            "none on a mesh with faulty nodes or links (every node takes part)",
        ));
    }
    if t.length_max != 0 {
        return Err(InputError::new(
            "traffic.length_max",
            t.length_max,
            "0 with a collective (every message of it has traffic.length data flits)",
        ));
    }
    if t.batch != 0 {
        return Err(InputError::new(
            "traffic.batch",
            t.batch,
            "0 with a collective (the run ends when the collective completes)",
        ));
    }
    if let Some(name) = origin_only {
        if kind == CollectiveKind::AllGather || (kind == CollectiveKind::Broadcast && root != 0) {
            return Err(InputError::new(
                "traffic.collective",
                kind,
                format!(
                    "scatter, or broadcast from 0,0, with {name}, whose multicasts start at 0,0"
                ),
            ));
        }
    }
    Ok(Some((kind, root)))
}

/// What the lower bound needs of the network and the timing, so that it
/// can be computed (and hand-checked) without a simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundParams {
    pub topo: Topology,
    /// Start-up cycles per message (`timing.startup_cycles`).
    pub startup: u64,
    /// One start-up engine per node (`timing.startup_serial`).
    pub serial: bool,
    /// Header setup delay per router (`network.header_setup_cycles`).
    pub setup: u64,
    pub depth: usize,
    pub injection: usize,
    pub consumption: usize,
    /// Data flits per message.
    pub length: u64,
}

impl BoundParams {
    /// Cycles per data flit on a free path: 1, or 2 with one-flit
    /// buffers (docs/architecture.md §3).
    fn flit_interval(&self) -> u64 {
        if self.depth >= 2 {
            1
        } else {
            2
        }
    }

    /// The cycles before the data of a worm created at 0, with one HEAD,
    /// can first be consumed `h` hops away: start-up, 4 cycles from the NI
    /// to the source router's output register, `3 + setup` per hop and
    /// `setup` at the target; the TAIL is delivered `flit_interval ·
    /// length` cycles later. Exact for a unicast on a free minimal path
    /// (`sim/tests/collectives.rs` checks it against the cycle model).
    pub fn head_time(&self, h: u64) -> u64 {
        self.startup + (3 + self.setup) * h + self.setup + 4
    }

    /// A one-HEAD worm's delivery time `h` hops away on a free path.
    pub fn unicast_time(&self, h: u64) -> u64 {
        self.head_time(h) + self.flit_interval() * self.length
    }
}

/// The lower bound of a collective's completion time and its terms, each
/// a bound on its own (0 where it does not apply); `cycles` is the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LowerBound {
    /// The farthest destination a message must reach: the root's
    /// eccentricity (broadcast) or the diameter (all-gather), as a
    /// contention-free one-HEAD worm.
    pub latency: u64,
    /// Scatter: the root's injection channels send the N − 1 messages one
    /// after another, each paying its start-up, farthest first.
    pub injection: u64,
    /// All-gather: every node consumes N − 1 messages of `length` data
    /// flits on its consumption channels, one flit per channel per cycle.
    pub consumption: u64,
    /// All-gather: every block of one side of a straight cut between two
    /// columns or rows (the bisection among them) crosses the cut's links
    /// into the other side, one flit per link per cycle; the tightest
    /// such cut.
    pub cut: u64,
    pub cycles: u64,
}

/// The lower bound of `kind` from `root` (docs/decisions.md).
pub fn lower_bound(kind: CollectiveKind, root: NodeId, p: &BoundParams) -> LowerBound {
    let t = &p.topo;
    let n = t.nodes() as u64;
    let ecc = |u: NodeId| (0..t.nodes()).map(|v| t.distance(u, v)).max().unwrap_or(0) as u64;
    let mut b = LowerBound::default();
    match kind {
        CollectiveKind::Off => {}
        CollectiveKind::Broadcast => b.latency = p.unicast_time(ecc(root)),
        CollectiveKind::AllGather => {
            let diameter = (0..t.nodes()).map(ecc).max().unwrap_or(0);
            b.latency = p.unicast_time(diameter);
            // The first data flit a node can consume comes from a
            // neighbour; from then on at most `consumption` flits a cycle.
            let flits = (n - 1) * p.length;
            b.consumption = p.head_time(1) + flits.div_ceil(p.consumption as u64);
            b.cut = p.startup + cut_bound(t, p.length);
        }
        CollectiveKind::Scatter => {
            let mut h: Vec<u64> = (0..t.nodes())
                .filter(|&v| v != root)
                .map(|v| t.distance(root, v) as u64)
                .collect();
            h.sort_unstable_by(|a, b| b.cmp(a));
            // A channel's next message starts its start-up when the last
            // flit of the previous one (at least one HEAD + length) has
            // been handed over.
            let gap = p.startup + 1 + p.length;
            let per_channel = (0..h.len())
                .map(|j| (j / p.injection) as u64 * gap + p.unicast_time(h[j]))
                .max()
                .unwrap_or(0);
            // With one start-up engine, the j-th start-up ends at (j+1)·S.
            let serial = if p.serial {
                (0..h.len())
                    .map(|j| j as u64 * p.startup + p.unicast_time(h[j]))
                    .max()
                    .unwrap_or(0)
            } else {
                0
            };
            b.injection = per_channel.max(serial);
        }
    }
    b.cycles = b.latency.max(b.injection).max(b.consumption).max(b.cut);
    b
}

/// The largest `ceil(side · length / links)` over straight cuts between
/// two columns or two rows, for the links leaving that side.
fn cut_bound(t: &Topology, length: u64) -> u64 {
    let mut best = 0;
    let cuts = (1..t.k)
        .map(|c| (c, true))
        .chain((1..t.m).map(|c| (c, false)));
    for (c, vertical) in cuts {
        let side = |u: NodeId| {
            let (x, y) = t.coord(u);
            if vertical {
                x < c
            } else {
                y < c
            }
        };
        for a_side in [true, false] {
            let nodes = (0..t.nodes()).filter(|&u| side(u) == a_side).count() as u64;
            let links = (0..t.nodes())
                .filter(|&u| side(u) == a_side)
                .flat_map(|u| Dir::ALL.iter().filter_map(move |&d| t.neighbor(u, d)))
                .filter(|&v| side(v) != a_side)
                .count() as u64;
            if links > 0 {
                best = best.max((nodes * length).div_ceil(links));
            }
        }
    }
    best
}

/// The collective of a run: its messages and when it finished.
#[derive(Debug, Clone)]
pub struct Collective {
    pub kind: CollectiveKind,
    pub root: NodeId,
    pub length: u32,
    /// Cycle its messages are created (`run.warmup`).
    pub start: u64,
    /// Its messages, once created.
    pub msgs: Vec<u32>,
    /// Messages not yet delivered to every destination.
    pub remaining: u32,
    pub started: bool,
    /// Cycle its last TAIL was delivered.
    pub completed: Option<u64>,
    pub bound: LowerBound,
}

impl Collective {
    pub fn new(kind: CollectiveKind, root: NodeId, start: u64, p: &BoundParams) -> Collective {
        Collective {
            kind,
            root,
            length: p.length as u32,
            start,
            msgs: Vec::new(),
            remaining: 0,
            started: false,
            completed: None,
            bound: lower_bound(kind, root, p),
        }
    }

    /// The messages as (source, destinations), in creation order.
    pub fn messages(&self, t: &Topology) -> Vec<(NodeId, Vec<NodeId>)> {
        let n = t.nodes();
        let others = |u: NodeId| (0..n).filter(|&v| v != u).collect::<Vec<_>>();
        match self.kind {
            CollectiveKind::Off => Vec::new(),
            CollectiveKind::Broadcast => vec![(self.root, others(self.root))],
            CollectiveKind::AllGather => (0..n).map(|u| (u, others(u))).collect(),
            CollectiveKind::Scatter => {
                let mut d = others(self.root);
                d.sort_by_key(|&v| (std::cmp::Reverse(t.distance(self.root, v)), v));
                d.into_iter().map(|v| (self.root, vec![v])).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologyKind;

    fn params(kind: TopologyKind, k: u32, m: u32) -> BoundParams {
        BoundParams {
            topo: Topology { kind, k, m },
            startup: 10,
            serial: false,
            setup: 0,
            depth: 2,
            injection: 1,
            consumption: 2,
            length: 16,
        }
    }

    /// A 4×4 torus by hand: diameter 4, eccentricity 4 everywhere;
    /// one-HEAD worm time S + 3h + 4 + L = 10 + 12 + 4 + 16 = 42 at 4
    /// hops, head time at 1 hop 10 + 3 + 4 = 17.
    #[test]
    fn hand_checked_bounds_on_a_4x4_torus() {
        let p = params(TopologyKind::Torus, 4, 4);
        let b = lower_bound(CollectiveKind::Broadcast, 0, &p);
        assert_eq!(b.latency, 42);
        assert_eq!(b.cycles, 42);
        let g = lower_bound(CollectiveKind::AllGather, 5, &p);
        assert_eq!(g.latency, 42);
        // 15 messages · 16 flits on 2 channels = 120 cycles after 17.
        assert_eq!(g.consumption, 17 + 120);
        // The bisection (between columns 1 and 2): 8 nodes, 8 links
        // leaving (4 direct, 4 wrap), 8·16/8 = 16. Between columns 0 and
        // 1: the 12 nodes of x ≥ 1 reach column 0 over 8 links, 12·16/8 =
        // 24, the tightest; after the start-up.
        assert_eq!(g.cut, 10 + 24);
        assert_eq!(g.cycles, 137);
        // Scatter from 0: distances 1,1,1,1,2,...: 1 at 4 hops, 4 at 3,
        // 6 at 2, 4 at 1. Gap 10 + 1 + 16 = 27 per message on one channel;
        // the last (position 14, 1 hop) ends at 14·27 + 10+3+4+16 = 411.
        let s = lower_bound(CollectiveKind::Scatter, 0, &p);
        assert_eq!(s.injection, 14 * 27 + 33);
        assert_eq!(s.cycles, 411);
        // Two channels: position 7 for the last two, 7·27 + 33.
        let p2 = BoundParams { injection: 2, ..p };
        assert_eq!(
            lower_bound(CollectiveKind::Scatter, 0, &p2).cycles,
            7 * 27 + 33
        );
    }

    /// A 4×3 mesh: the corner's eccentricity is 5, the centre-ish node
    /// (1,1)'s is 3; the tightest cut is column 0 (or 3) against the 9
    /// other nodes over 3 links (the bisection, columns 1|2, gives 6·16/3
    /// = 32, rows 0|1 8·16/4 = 32).
    #[test]
    fn hand_checked_bounds_on_a_4x3_mesh() {
        let p = params(TopologyKind::Mesh, 4, 3);
        let t = p.topo;
        assert_eq!(
            lower_bound(CollectiveKind::Broadcast, 0, &p).latency,
            10 + 15 + 4 + 16
        );
        assert_eq!(
            lower_bound(CollectiveKind::Broadcast, t.id(1, 1), &p).latency,
            10 + 9 + 4 + 16
        );
        let g = lower_bound(CollectiveKind::AllGather, 0, &p);
        assert_eq!(g.cut, 10 + 9 * 16 / 3);
        assert_eq!(g.consumption, 17 + 11 * 16 / 2);
        // Depth 1 doubles the data term of the latency only.
        let d1 = BoundParams { depth: 1, ..p };
        assert_eq!(
            lower_bound(CollectiveKind::Broadcast, 0, &d1).latency,
            10 + 15 + 4 + 32
        );
        // Header setup 2: 5 per hop and 2 at the target.
        let s2 = BoundParams { setup: 2, ..p };
        assert_eq!(
            lower_bound(CollectiveKind::Broadcast, 0, &s2).latency,
            10 + 25 + 2 + 4 + 16
        );
    }

    #[test]
    fn scatter_queues_farthest_first() {
        let p = params(TopologyKind::Mesh, 3, 3);
        let c = Collective::new(CollectiveKind::Scatter, 0, 0, &p);
        let m = c.messages(&p.topo);
        let d: Vec<u32> = m.iter().map(|(_, d)| p.topo.distance(0, d[0])).collect();
        assert_eq!(d, vec![4, 3, 3, 2, 2, 2, 1, 1]);
        assert!(m.iter().all(|(s, d)| *s == 0 && d.len() == 1));
    }
}
