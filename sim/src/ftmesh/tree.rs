//! The multicast tree a set-up phase reserves, in a form a router header
//! encoder can consume: per visited node its children, and which visits
//! deliver to a destination.
//!
//! A tree node is a *visit* (a node reached by one header), not a mesh node:
//! under Strategies 1 and 2 two branches can cross the same mesh node, and the
//! quadrant subnetworks of \[FTTREE\] §7.2 may even use
//! the same link from the source, each in its own virtual network. In visit
//! space the result is always a tree rooted at the source.

use super::Coord;
use crate::topology::Dir;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Visit {
    pub at: Coord,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// The header delivers a copy to this node's processor here.
    pub destination: bool,
}

/// Visit 0 is the source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FtTree {
    pub visits: Vec<Visit>,
}

/// A node of the compressed tree: the source, every destination, every
/// split and every turn; `children` are the next such nodes along straight
/// runs of links.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BranchNode {
    pub at: Coord,
    pub destination: bool,
    /// Visit index in [`FtTree::visits`].
    pub visit: usize,
    /// (indices into the returned list, their coordinates).
    pub children: Vec<usize>,
    pub child_coords: Vec<Coord>,
}

impl FtTree {
    pub fn new(source: Coord) -> FtTree {
        FtTree {
            visits: vec![Visit {
                at: source,
                parent: None,
                children: Vec::new(),
                destination: false,
            }],
        }
    }

    pub fn source(&self) -> Coord {
        self.visits[0].at
    }

    pub(crate) fn add(&mut self, parent: usize, at: Coord) -> usize {
        let id = self.visits.len();
        self.visits.push(Visit {
            at,
            parent: Some(parent),
            children: Vec::new(),
            destination: false,
        });
        self.visits[parent].children.push(id);
        id
    }

    /// The paper's metric: links reserved (one per visit but the source).
    pub fn traffic(&self) -> u32 {
        self.visits.len() as u32 - 1
    }

    /// Hops from the source to a visit.
    pub fn depth(&self, mut v: usize) -> u32 {
        let mut d = 0;
        while let Some(p) = self.visits[v].parent {
            d += 1;
            v = p;
        }
        d
    }

    /// Direction of the link that enters visit `v` (`None` for the source).
    pub fn entry_dir(&self, v: usize) -> Option<Dir> {
        let p = self.visits[v].parent?;
        let (a, b) = (self.visits[p].at, self.visits[v].at);
        Some(if b.0 > a.0 {
            Dir::XPlus
        } else if b.0 < a.0 {
            Dir::XMinus
        } else if b.1 > a.1 {
            Dir::YPlus
        } else {
            Dir::YMinus
        })
    }

    /// Physical links as (from, to) pairs in visit order.
    pub fn links(&self) -> Vec<(Coord, Coord)> {
        self.visits
            .iter()
            .skip(1)
            .map(|v| (self.visits[v.parent.unwrap_or(0)].at, v.at))
            .collect()
    }

    /// The compressed tree (source, destinations, splits, turns).
    pub fn branch_nodes(&self) -> Vec<BranchNode> {
        let key = |v: usize| -> bool {
            let vis = &self.visits[v];
            if v == 0 || vis.destination || vis.children.len() != 1 {
                return true;
            }
            self.entry_dir(vis.children[0]) != self.entry_dir(v)
        };
        let mut out: Vec<BranchNode> = Vec::new();
        let mut index = vec![usize::MAX; self.visits.len()];
        let mut stack = vec![0usize];
        while let Some(v) = stack.pop() {
            index[v] = out.len();
            out.push(BranchNode {
                at: self.visits[v].at,
                destination: self.visits[v].destination,
                visit: v,
                children: Vec::new(),
                child_coords: Vec::new(),
            });
            for &c in self.visits[v].children.iter().rev() {
                let mut w = c;
                while !key(w) {
                    w = self.visits[w].children[0];
                }
                stack.push(w);
            }
        }
        for node in out.iter_mut() {
            for &c in &self.visits[node.visit].children {
                let mut w = c;
                while !key(w) {
                    w = self.visits[w].children[0];
                }
                node.children.push(index[w]);
                node.child_coords.push(self.visits[w].at);
            }
        }
        out
    }
}
