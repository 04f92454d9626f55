//! Mesh routing functions for path-based multidestination worms
//! (docs/references.md §B): `hamiltonian`, `dor` and `negative_first`, plus the one
//! node ↔ header-address mapping every encoder, router and check uses.
//!
//! Each function is a pure function of per-router constants ([`MeshConsts`]),
//! the header's `Node` field and (for the checks in `routing.rs`) the input
//! port and class, so the RTL can mirror it with comparators and no divider
//! (docs/router.md "Mesh routing functions"):
//!
//! * `dor` (dimension-ordered XY, the e-cube routing of column-path, paper
//!   004 §4): X until the column matches, then Y.
//! * `negative_first` (\[BRCP\] §3.1,
//!   Definition 3): all −X then −Y hops (negative subnetwork), then +X then
//!   +Y. The paper's routing is partially adaptive; this router takes the one
//!   deterministic choice that `pathbased::brcp::nf_segment` also takes, so
//!   the BRCP worms are carried on exactly the paths the algorithms assume.
//! * `hamiltonian` (\[PATHOPT\] §2.1, function R):
//!   toward a larger label, the neighbour with the largest label ≤ L(v);
//!   toward a smaller one, the neighbour with the smallest label ≥ L(v).
//!   Label-increasing channels are class HIGH (0), decreasing ones LOW (1).
//!
//! Addresses (the `Node` field): `dor`/`negative_first` pack coordinates as
//! `(y << xb) | x` with `xb` = bits of K−1 (at least 1), so a router splits
//! the field with wires; `hamiltonian` carries the snake label L(v), which is
//! all R compares. An address that decodes to no node is `NodeOutOfRange`.

use super::RouterError;
use crate::config::RoutingKind;
use crate::topology::{Dir, NodeId, Topology};

// The constants and the address mapping sit below the routing functions, in
// the router contract; re-exported here so existing paths keep working.
pub use crate::config::mesh_table::{
    address, address_space, cons_groups, node_of_address, x_bits, MeshConsts,
};

impl MeshConsts {
    /// The routing function: the output port toward address `a`, `None` if
    /// `a` is this router, `NodeOutOfRange` if `a` names no node.
    pub fn route(&self, kind: RoutingKind, a: u32) -> Result<Option<Dir>, RouterError> {
        match kind {
            RoutingKind::Hamiltonian => self.hamiltonian(a),
            RoutingKind::Dor => self.packed(a).map(|t| dor(self.xy(), t)),
            RoutingKind::NegativeFirst => self.packed(a).map(|t| negative_first(self.xy(), t)),
            RoutingKind::Tree | RoutingKind::Spam => Err(RouterError::BadLink),
        }
    }

    fn xy(&self) -> (u32, u32) {
        (self.own & ((1 << self.xb) - 1), self.own >> self.xb)
    }

    /// Splits a packed address (wires) and range-checks it (comparators).
    fn packed(&self, a: u32) -> Result<(u32, u32), RouterError> {
        let (x, y) = (a & ((1 << self.xb) - 1), a >> self.xb);
        if x > self.kmax || y > self.mmax {
            return Err(RouterError::NodeOutOfRange);
        }
        Ok((x, y))
    }

    /// R of \[PATHOPT\] §2.1 over the four neighbour-label constants.
    fn hamiltonian(&self, lv: u32) -> Result<Option<Dir>, RouterError> {
        if lv >= self.n {
            return Err(RouterError::NodeOutOfRange);
        }
        let lu = self.own;
        if lv == lu {
            return Ok(None);
        }
        let mut best: Option<(u32, Dir)> = None;
        for d in Dir::ALL {
            let Some(l) = self.nbr[d.index()] else {
                continue;
            };
            let better = match best {
                None => true,
                Some((b, _)) if lu < lv => l > b,
                Some((b, _)) => l < b,
            };
            let fits = if lu < lv { l <= lv } else { l >= lv };
            if fits && better {
                best = Some((l, d));
            }
        }
        // The snake neighbour (label lu ± 1) always fits, so `best` is set.
        Ok(best.map(|(_, d)| d))
    }
}

/// Dimension-ordered XY routing from `(x, y)` toward `t`.
pub fn dor((x, y): (u32, u32), t: (u32, u32)) -> Option<Dir> {
    if t.0 > x {
        Some(Dir::XPlus)
    } else if t.0 < x {
        Some(Dir::XMinus)
    } else if t.1 > y {
        Some(Dir::YPlus)
    } else if t.1 < y {
        Some(Dir::YMinus)
    } else {
        None
    }
}

/// Deterministic negative-first routing from `(x, y)` toward `t`: −X, −Y,
/// then +X, +Y (\[BRCP\] §3.1).
pub fn negative_first((x, y): (u32, u32), t: (u32, u32)) -> Option<Dir> {
    if t.0 < x {
        Some(Dir::XMinus)
    } else if t.1 < y {
        Some(Dir::YMinus)
    } else if t.0 > x {
        Some(Dir::XPlus)
    } else if t.1 > y {
        Some(Dir::YPlus)
    } else {
        None
    }
}

/// The next node from `u` toward `v` under `kind` on `topo`, by the router's
/// own function (what the encoders check their worms against).
pub fn next_node(kind: RoutingKind, topo: &Topology, u: NodeId, v: NodeId) -> Option<NodeId> {
    let c = MeshConsts::for_routing(kind, topo, u);
    let d = c.route(kind, address(kind, topo, v)).ok()??;
    topo.neighbor(u, d)
}

/// First HEAD at a mesh router (dispatched from `routing::first_head` after
/// the class check): at its target it is stripped and reserves a channel of
/// its arrival group's consumption pool (C=1, [`cons_groups`]) and the O ports, which must be links
/// of the worm's class; elsewhere it requests the port of the routing
/// function, which must not be its arrival port and must be of its class.
pub fn first_head(
    cfg: &crate::config::RouterConfig,
    p: &crate::config::RouterParams,
    input: usize,
    h: crate::flit::Head,
    owned: u8,
) -> Result<(u8, bool, u8), RouterError> {
    let c = cfg.mesh.as_ref().ok_or(RouterError::BadLink)?;
    let link_ok = |d: usize| cfg.out_class[d] == Some(h.class);
    match c.route(p.routing, h.node)? {
        None => {
            let cons = || {
                super::consumption::pool_choice(
                    super::consumption::input_pool(cfg, p, input, h.class),
                    owned,
                )
            };
            let mask = super::consumption::own_header(&h, cons, link_ok)?;
            Ok((mask, true, h.class))
        }
        Some(d) => {
            if input < 4 && d.index() == input {
                return Err(RouterError::BackToArrival);
            }
            if !link_ok(d.index()) {
                return Err(RouterError::BadLink);
            }
            Ok((1 << d.index(), false, h.class))
        }
    }
}

/// A trailing HEAD at an active mesh input (class already checked). At a
/// split point (more than one reserved output) it gets S=1 and goes to:
/// * the one reserved link, if exactly one is reserved (the path-worm case
///   `{C=1, one O bit}`): a trailing HEAD for d_j, j > i+1, passes d_i
///   toward d_{i+1}, which is not in general the routing function's way to
///   d_j (docs/decisions.md), so the function is not consulted;
/// * the reserved link the routing function gives for its Node, if several
///   are (several O bits); a port not reserved is `BelowNoBranch`;
/// * nowhere if no link is reserved (`TrailingAtConsumer`).
///
/// Elsewhere it follows the single reserved output, even when its Node is
/// this router. Headers are never replicated.
pub fn trailing_head(
    cfg: &crate::config::RouterConfig,
    p: &crate::config::RouterParams,
    reserved: u8,
    f: crate::flit::Flit,
) -> Result<(usize, crate::flit::Flit), RouterError> {
    let h = crate::flit::decode_head(f);
    let c = cfg.mesh.as_ref().ok_or(RouterError::BadLink)?;
    // A trailing HEAD for this node is legal: a route may pass a node before
    // it returns to it as a destination (pure BRCP's reversal(L1)∘L2 turns
    // back through nodes it passed), so `HeadForMeAfterSplit` does not apply.
    let route = c.route(p.routing, h.node)?;
    let links = reserved & 0xF;
    if links == 0 {
        return Err(RouterError::TrailingAtConsumer);
    }
    if reserved.count_ones() > 1 {
        if links.count_ones() == 1 {
            return Ok((links.trailing_zeros() as usize, crate::flit::set_s(f)));
        }
        return match route {
            Some(d) if links >> d.index() & 1 == 1 => Ok((d.index(), crate::flit::set_s(f))),
            _ => Err(RouterError::BelowNoBranch),
        };
    }
    Ok((links.trailing_zeros() as usize, f))
}
