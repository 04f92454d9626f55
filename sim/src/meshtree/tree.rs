//! The multicast tree shared by every algorithm of \[THESIS\] §3.2, with the
//! thesis's analytic cost model (§4.2.1):
//!
//! * **traffic** = |E(MT)|, the number of links of the tree;
//! * **time** = max over destinations of `l_i + w_i`: hops plus delay hops in a
//!   one-port store-and-forward node, where a node that received the message
//!   at step `t` sends it to its children one per step, in the algorithm's
//!   priority order, the `j`-th child (from 1) receiving it at `t + j`.
//!
//! The priority order is carried by each edge as a [`Service`] rank; the
//! algorithm modules document theirs (DIAG: diagonal-path child first, then
//! X, Y, Z; VH/DDS/MIN: X, Y, Z; zone links (torus wraps) before all others).

use super::grid::{Grid, Link, Point};
use std::collections::VecDeque;

/// Service class of an edge, lowest first at a branching node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Service {
    /// Link joining a zone's origin to its parent zone's origin (a
    /// wraparound link on a torus); the `u8` is its axis's position in the
    /// zone-link order (2-D X, Y; 3-D X, Z, Y).
    ZoneLink(u8),
    /// Edge of DIAG's diagonal path.
    Diagonal,
    /// Any other edge.
    Plain,
}

/// An edge as produced by a construction, before ordering.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawEdge {
    pub parent: Point,
    pub child: Point,
    pub link: Link,
    pub service: Service,
}

/// A multicast tree rooted at the source, with the one-port delivery times.
#[derive(Clone, Debug)]
pub struct MulticastTree {
    grid: Grid,
    destinations: Vec<Point>,
    /// Nodes in breadth-first order, children in service order; `nodes[0]` is
    /// the source.
    nodes: Vec<Point>,
    parent: Vec<Option<usize>>,
    link: Vec<Option<Link>>,
    service: Vec<Service>,
    children: Vec<Vec<usize>>,
    arrival: Vec<u32>,
    /// Node index by grid id.
    index: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl MulticastTree {
    /// Assembles the tree from its edges. Panics (a bug, not bad input) if an
    /// edge list gives a node two different parents or leaves a node
    /// unreachable from the source.
    pub(crate) fn assemble(
        grid: Grid,
        source: Point,
        destinations: Vec<Point>,
        edges: &[RawEdge],
        zone_links_last: bool,
    ) -> MulticastTree {
        let n = grid.nodes();
        let mut par: Vec<Option<(usize, Link, Service)>> = vec![None; n];
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in edges {
            let (p, c) = (grid.id(e.parent), grid.id(e.child));
            assert!(c != grid.id(source), "edge into the source {:?}", e);
            match &mut par[c] {
                Some((q, _, s)) => {
                    assert_eq!(*q, p, "node {:?} given two parents", e.child);
                    // The same edge from two overlapping submeshes: keep the
                    // better service class.
                    *s = (*s).min(e.service);
                }
                slot @ None => {
                    *slot = Some((p, e.link, e.service));
                    kids[p].push(c);
                }
            }
        }
        let rank = |c: usize| {
            let (_, l, s) = par[c].unwrap();
            let late = zone_links_last && matches!(s, Service::ZoneLink(_));
            (late, s, l.axis, !l.positive)
        };
        for k in kids.iter_mut() {
            k.sort_by_key(|&c| rank(c));
        }
        let mut index = vec![ABSENT; n];
        let mut nodes = vec![source];
        let mut parent = vec![None];
        let mut link = vec![None];
        let mut service = vec![Service::Plain];
        let mut arrival = vec![0u32];
        let mut children = vec![Vec::new()];
        index[grid.id(source)] = 0;
        let mut queue = VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            let g = grid.id(nodes[i]);
            for (j, &c) in kids[g].iter().enumerate() {
                let k = nodes.len();
                index[c] = k as u32;
                let (_, l, s) = par[c].unwrap();
                nodes.push(grid.point(c));
                parent.push(Some(i));
                link.push(Some(l));
                service.push(s);
                arrival.push(arrival[i] + j as u32 + 1);
                children.push(Vec::new());
                children[i].push(k);
                queue.push_back(k);
            }
        }
        let reached = par.iter().filter(|p| p.is_some()).count() + 1;
        assert_eq!(reached, nodes.len(), "tree not connected to the source");
        MulticastTree {
            grid,
            destinations,
            nodes,
            parent,
            link,
            service,
            children,
            arrival,
            index,
        }
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    pub fn source(&self) -> Point {
        self.nodes[0]
    }
    /// The destination set, as given.
    pub fn destinations(&self) -> &[Point] {
        &self.destinations
    }
    /// Tree nodes, breadth first, the source first.
    pub fn nodes(&self) -> &[Point] {
        &self.nodes
    }
    pub fn contains(&self, p: Point) -> bool {
        self.grid.contains(p) && self.index[self.grid.id(p)] != ABSENT
    }
    fn idx(&self, p: Point) -> Option<usize> {
        if !self.grid.contains(p) {
            return None;
        }
        match self.index[self.grid.id(p)] {
            ABSENT => None,
            i => Some(i as usize),
        }
    }
    /// Parent of a tree node (`None` for the source and non-members).
    pub fn parent(&self, p: Point) -> Option<Point> {
        self.idx(p)
            .and_then(|i| self.parent[i])
            .map(|j| self.nodes[j])
    }
    /// The link from the parent to `p`.
    pub fn link_to(&self, p: Point) -> Option<Link> {
        self.idx(p).and_then(|i| self.link[i])
    }
    /// Service class of the edge into `p`.
    pub fn service_of(&self, p: Point) -> Option<Service> {
        self.idx(p).filter(|&i| i > 0).map(|i| self.service[i])
    }
    /// Children of `p` in the order it serves them.
    pub fn children(&self, p: Point) -> Vec<Point> {
        self.idx(p)
            .map(|i| self.children[i].iter().map(|&c| self.nodes[c]).collect())
            .unwrap_or_default()
    }
    /// Hops from the source along the tree.
    pub fn depth(&self, p: Point) -> Option<usize> {
        let mut i = self.idx(p)?;
        let mut d = 0;
        while let Some(j) = self.parent[i] {
            i = j;
            d += 1;
        }
        Some(d)
    }
    /// One-port step at which `p` receives the message.
    pub fn arrival(&self, p: Point) -> Option<u32> {
        self.idx(p).map(|i| self.arrival[i])
    }
    /// Multicast traffic: links of the tree.
    pub fn traffic(&self) -> usize {
        self.nodes.len() - 1
    }
    /// Multicast time: latest one-port arrival at a destination.
    pub fn time(&self) -> u32 {
        self.destinations
            .iter()
            .map(|&d| self.arrival(d).expect("destination in tree"))
            .max()
            .unwrap_or(0)
    }
    /// Additional traffic (thesis AAT): links minus destinations.
    pub fn additional_traffic(&self) -> isize {
        self.traffic() as isize - self.destinations.len() as isize
    }
    /// The tree as `(parent, child)` edges, breadth first, each node's
    /// children in service order — the order a header encoder needs.
    pub fn edges(&self) -> Vec<(Point, Point)> {
        (1..self.nodes.len())
            .map(|i| (self.nodes[self.parent[i].unwrap()], self.nodes[i]))
            .collect()
    }
    /// As [`MulticastTree::edges`], with the link each edge uses.
    pub fn edge_links(&self) -> Vec<(Point, Point, Link)> {
        (1..self.nodes.len())
            .map(|i| {
                (
                    self.nodes[self.parent[i].unwrap()],
                    self.nodes[i],
                    self.link[i].unwrap(),
                )
            })
            .collect()
    }
}
