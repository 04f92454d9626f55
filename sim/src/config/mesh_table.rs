//! The per-router constants of the mesh routing functions and the one node
//! ↔ header-address mapping every encoder, router and check uses (the
//! functions themselves are in `router::mesh`). Part of the router
//! contract (`config`), below the routing functions that read it.

use super::RoutingKind;
use crate::pathbased::hamiltonian;
use crate::pathbased::worm::{CLASS_HIGH, CLASS_LOW};
use crate::topology::{Dir, NodeId, Topology};

/// Bits of the x part of a packed address: enough for K−1, at least 1.
pub fn x_bits(k: u32) -> u32 {
    (u32::BITS - (k - 1).leading_zeros()).max(1)
}

/// Header address of node `n` under mesh routing `kind`. Tree and SPAM
/// routing use their own numbering (`dstm::encode`), so they map to the id.
pub fn address(kind: RoutingKind, topo: &Topology, n: NodeId) -> u32 {
    let (x, y) = topo.coord(n);
    match kind {
        RoutingKind::Hamiltonian => hamiltonian::label(topo, n),
        RoutingKind::Dor | RoutingKind::NegativeFirst => (y << x_bits(topo.k)) | x,
        RoutingKind::Tree | RoutingKind::Spam => n,
    }
}

/// The node carrying address `a`, or `None` if `a` names no node.
pub fn node_of_address(kind: RoutingKind, topo: &Topology, a: u32) -> Option<NodeId> {
    match kind {
        RoutingKind::Hamiltonian => (a < topo.nodes()).then(|| hamiltonian::node_of_label(topo, a)),
        RoutingKind::Dor | RoutingKind::NegativeFirst => {
            let xb = x_bits(topo.k);
            let (x, y) = (a & ((1 << xb) - 1), a >> xb);
            (x < topo.k && y < topo.m).then(|| topo.id(x, y))
        }
        RoutingKind::Tree | RoutingKind::Spam => (a < topo.nodes()).then_some(a),
    }
}

/// Largest address plus one: what the `Node` field must hold.
pub fn address_space(kind: RoutingKind, topo: &Topology) -> u32 {
    match kind {
        RoutingKind::Dor | RoutingKind::NegativeFirst => ((topo.m - 1) << x_bits(topo.k)) + topo.k,
        _ => topo.nodes(),
    }
}

/// Per-router constants of a mesh routing function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshConsts {
    /// This router's own address.
    pub own: u32,
    /// Packed addresses: x field width, K−1 and M−1 (range check).
    pub xb: u32,
    pub kmax: u32,
    pub mmax: u32,
    /// Hamiltonian: number of nodes (labels are below it).
    pub n: u32,
    /// Hamiltonian: the label of the neighbour on each port, `None` at the
    /// mesh edge.
    pub nbr: [Option<u32>; 4],
    /// Consumption group of a worm absorbed here, by the input port it
    /// arrived on (injection inputs: group 0), and the number of groups.
    /// Worms of one group share a pool; see [`cons_groups`].
    pub cons_group: [u8; 4],
    pub groups: u8,
}

/// Consumption groups by arrival port, chosen so that a worm waiting for a
/// consumption channel only ever waits for worms whose next channel comes
/// later in the routing function's channel order (no consumption-channel
/// deadlock, docs/decisions.md "Mesh routing functions"):
/// * `hamiltonian`: the class of the arriving channel (HIGH worms continue
///   to larger labels, LOW to smaller): 2 groups;
/// * `negative_first`: the phase of the arriving channel, negative (from the
///   +X/+Y neighbour) or positive: 2 groups;
/// * `dor`: the arrival port itself (a +Y and a −Y worm would otherwise wait
///   on each other's column): 4 groups.
///
/// Returns (group per port O1..O4, groups).
pub fn cons_groups(kind: RoutingKind, in_class: [Option<u8>; 4]) -> ([u8; 4], u8) {
    match kind {
        RoutingKind::Hamiltonian => (in_class.map(|c| c.unwrap_or(0)), 2),
        RoutingKind::NegativeFirst => ([0, 1, 0, 1], 2),
        _ => ([0, 1, 2, 3], 4),
    }
}

impl MeshConsts {
    /// The constants of node `u`.
    pub fn new(kind: RoutingKind, topo: &Topology, u: NodeId) -> MeshConsts {
        let mut c = MeshConsts::coordinates(kind, topo, u);
        for d in Dir::ALL {
            c.nbr[d.index()] = topo.neighbor(u, d).map(|v| address(kind, topo, v));
        }
        let in_class = Dir::ALL.map(|d| c.in_class(kind, d));
        (c.cons_group, c.groups) = cons_groups(kind, in_class);
        c
    }

    /// The constants `route` reads at node `u`, for the encoders that ask
    /// the routing function for every hop of every message: XY and
    /// negative-first compare coordinates only, so the neighbour labels and
    /// the consumption groups (what `new` spends its time on) are left at
    /// their defaults for them. Not for a router's configuration.
    pub fn for_routing(kind: RoutingKind, topo: &Topology, u: NodeId) -> MeshConsts {
        if kind == RoutingKind::Hamiltonian {
            MeshConsts::new(kind, topo, u)
        } else {
            MeshConsts::coordinates(kind, topo, u)
        }
    }

    /// The address and grid constants of node `u`; no neighbours, one
    /// consumption group.
    fn coordinates(kind: RoutingKind, topo: &Topology, u: NodeId) -> MeshConsts {
        MeshConsts {
            own: address(kind, topo, u),
            xb: x_bits(topo.k),
            kmax: topo.k - 1,
            mmax: topo.m - 1,
            n: topo.nodes(),
            nbr: [None; 4],
            cons_group: [0; 4],
            groups: 1,
        }
    }

    /// Class of the channel leaving through port `d` (`None`: no link).
    /// Hamiltonian: HIGH toward a larger label, else LOW; others: class 0.
    pub fn out_class(&self, kind: RoutingKind, d: Dir) -> Option<u8> {
        let l = self.nbr[d.index()]?;
        Some(match kind {
            RoutingKind::Hamiltonian if l > self.own => CLASS_HIGH,
            RoutingKind::Hamiltonian => CLASS_LOW,
            _ => 0,
        })
    }

    /// Class of the channel arriving on input port `d`: the neighbour's
    /// output class toward us (HIGH when our label is the larger).
    pub fn in_class(&self, kind: RoutingKind, d: Dir) -> Option<u8> {
        let l = self.nbr[d.index()]?;
        Some(match kind {
            RoutingKind::Hamiltonian if self.own > l => CLASS_HIGH,
            RoutingKind::Hamiltonian => CLASS_LOW,
            _ => 0,
        })
    }
}
