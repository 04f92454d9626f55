//! A reference walk of a worm's headers through mesh routers: the router
//! contract's header rules (docs/architecture.md §3 "Input port") applied hop by
//! hop, without flow control. It is the oracle the encoder and the path
//! schemes are checked against before the cycle model runs them.

use super::RouteFn;
use crate::flit::Head;
use crate::topology::{Dir, NodeId, Topology};

/// Where a worm went: directed links used (sorted) and the nodes that
/// consumed it (sorted; a node consuming twice appears twice).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delivery {
    pub links: Vec<(NodeId, NodeId)>,
    pub consumed: Vec<NodeId>,
}

/// A header sequence the router would flag as malformed (or could not
/// route), with the node where it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkError {
    /// A header for this node with C=0 and no O bit.
    NoOutput(NodeId),
    /// An O bit or a routed hop onto a link that does not exist.
    NoLink(NodeId, Dir),
    /// The routing function has no output for the header.
    NoRoute(NodeId, u32),
    /// A first header routed back out of its arrival port.
    BackToArrival(NodeId),
    /// A trailing header at a split point (two or more reserved links)
    /// routed to an unreserved port.
    NotReserved(NodeId, u32),
    /// A trailing header behind a header whose only output is consumption.
    TrailingAtConsumer(NodeId),
    /// A reserved link that no header follows (its router would see a BODY
    /// at an idle input).
    BranchWithoutHeader(NodeId, Dir),
    /// More hops than any minimal route could take.
    TooLong,
}

/// Walks `heads`, injected at `source`, through the routers of `topo`
/// that route with `route`.
pub fn walk(
    topo: &Topology,
    source: NodeId,
    heads: &[Head],
    route: RouteFn,
) -> Result<Delivery, WalkError> {
    let mut out = Delivery::default();
    let mut budget = (topo.nodes() as usize + 1) * (heads.len() + 1) * 4;
    let mut stack: Vec<(NodeId, Option<Dir>, Vec<Head>)> = vec![(source, None, heads.to_vec())];
    while let Some((at, input, hs)) = stack.pop() {
        budget = budget.checked_sub(1).ok_or(WalkError::TooLong)?;
        let Some(h0) = hs.first().copied() else {
            continue;
        };
        if h0.node != at {
            let d = route(at, h0.node).ok_or(WalkError::NoRoute(at, h0.node))?;
            if input == Some(d) {
                return Err(WalkError::BackToArrival(at));
            }
            let v = topo.neighbor(at, d).ok_or(WalkError::NoLink(at, d))?;
            out.links.push((at, v));
            stack.push((v, Some(d.opposite()), hs));
            continue;
        }
        // Stripped here.
        if !h0.c && h0.o == 0 {
            return Err(WalkError::NoOutput(at));
        }
        if h0.c {
            out.consumed.push(at);
        }
        let rest = &hs[1..];
        let links: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|d| h0.o >> d.index() & 1 == 1)
            .collect();
        // Only a header node with two or more link outputs routes its
        // trailing headers; with one link (a path worm's destination, a turn
        // point) they all take it (`router::mesh::trailing_head`).
        let mut groups: Vec<Vec<Head>> = vec![Vec::new(); 4];
        if links.len() > 1 {
            for &h in rest {
                let d = route(at, h.node).ok_or(WalkError::NotReserved(at, h.node))?;
                if !links.contains(&d) {
                    return Err(WalkError::NotReserved(at, h.node));
                }
                groups[d.index()].push(Head { s: true, ..h });
            }
        } else if let Some(&d) = links.first() {
            groups[d.index()] = rest.to_vec();
        } else if !rest.is_empty() {
            return Err(WalkError::TrailingAtConsumer(at));
        }
        for d in links {
            let v = topo.neighbor(at, d).ok_or(WalkError::NoLink(at, d))?;
            let group = std::mem::take(&mut groups[d.index()]);
            if group.is_empty() {
                return Err(WalkError::BranchWithoutHeader(at, d));
            }
            out.links.push((at, v));
            stack.push((v, Some(d.opposite()), group));
        }
    }
    out.links.sort_unstable();
    out.consumed.sort_unstable();
    Ok(out)
}
