//! A spanning tree of a torus or mesh, numbered in post-order, and the
//! per-router routing table derived from it (\[DSTM\] §3.2.2).
//!
//! This is the one definition of the tree table that both the native router
//! and the RTL consume: each router stores, per tree, its own post-order
//! number, its parent port and, for each child port, the `[low, high]` range of
//! that child's subtree (`high` is the child's own number, since post-order
//! numbers a node after its whole subtree). Routing toward `Node` is then a
//! range test: inside a child's range → down that port, otherwise up.

use crate::error::{InputError, InputResult};
use crate::topology::{Dir, EdgeId, NodeId, Topology};

/// A rooted spanning tree with post-order numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanningTree {
    pub topo: Topology,
    pub root: NodeId,
    /// Tree edges (sorted).
    pub edges: Vec<EdgeId>,
    /// Per node: the port toward the parent (`None` at the root).
    pub parent_port: Vec<Option<Dir>>,
    /// Per node: parent node.
    pub parent: Vec<Option<NodeId>>,
    /// Per node and port: `true` if that port leads to a child.
    pub child_ports: Vec<[bool; 4]>,
    /// Per node: post-order number.
    pub number: Vec<u32>,
    /// Inverse of `number`.
    pub node_of: Vec<NodeId>,
    /// Per node: lowest post-order number in its subtree.
    pub low: Vec<u32>,
    /// Per node: hops from the root.
    pub depth: Vec<u32>,
}

/// What a router stores about one tree (\[DSTM\] §3.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TreeTable {
    /// This router's post-order number.
    pub own: u32,
    /// Port toward the parent; `None` at the root.
    pub parent: Option<Dir>,
    /// For each port O1..O4 that leads to a child, `[low, high]` of its subtree.
    pub child: [Option<(u32, u32)>; 4],
}

impl TreeTable {
    /// The tree routing function: the port a header for `node` leaves by, or
    /// `None` when `node` is this router. A target below a child goes down to
    /// it; anything else goes up (the root has nowhere up: `None` is returned
    /// only for `own`, the caller checks the range of `node` first).
    pub fn route(&self, node: u32) -> Option<Dir> {
        if node == self.own {
            return None;
        }
        for d in Dir::ALL {
            if let Some((lo, hi)) = self.child[d.index()] {
                if lo <= node && node <= hi {
                    return Some(d);
                }
            }
        }
        self.parent
    }

    /// Whether `node` lies below the child on port `d`.
    pub fn below(&self, d: Dir, node: u32) -> bool {
        matches!(self.child[d.index()], Some((lo, hi)) if lo <= node && node <= hi)
    }
}

impl SpanningTree {
    /// Builds a rooted tree from a set of edges. Fails (naming `what`) if the
    /// edges are not exactly a spanning tree of `topo`.
    pub fn from_edges(
        topo: Topology,
        root: NodeId,
        edges: &[EdgeId],
        what: &str,
    ) -> InputResult<SpanningTree> {
        let n = topo.nodes() as usize;
        if root as usize >= n {
            return Err(InputError::new(
                format!("{what} root"),
                root,
                format!("a node id below {n}"),
            ));
        }
        let mut edges = edges.to_vec();
        edges.sort_unstable();
        edges.dedup();
        if edges.len() != n - 1 {
            return Err(InputError::new(
                format!("{what} edges"),
                edges.len(),
                format!("a spanning tree of {topo} has exactly {} edges", n - 1),
            ));
        }
        let mut in_tree = vec![false; topo.edge_slots() as usize];
        for &e in &edges {
            if !topo.edge_exists(e) {
                return Err(InputError::new(
                    format!("{what} edge"),
                    e,
                    format!("an existing link of {topo}"),
                ));
            }
            in_tree[e as usize] = true;
        }
        let mut parent_port = vec![None; n];
        let mut parent = vec![None; n];
        let mut child_ports = vec![[false; 4]; n];
        let mut depth = vec![u32::MAX; n];
        let mut order = Vec::with_capacity(n);
        depth[root as usize] = 0;
        order.push(root);
        let mut i = 0;
        while i < order.len() {
            let u = order[i];
            i += 1;
            for d in Dir::ALL {
                let Some(e) = topo.edge(u, d) else { continue };
                if !in_tree[e as usize] || parent_port[u as usize] == Some(d) {
                    continue;
                }
                let v = topo.neighbor(u, d).expect("edge exists");
                if depth[v as usize] != u32::MAX {
                    return Err(InputError::new(
                        format!("{what} edges"),
                        "a cycle",
                        "a spanning tree has no cycle",
                    ));
                }
                depth[v as usize] = depth[u as usize] + 1;
                parent[v as usize] = Some(u);
                parent_port[v as usize] = Some(d.opposite());
                child_ports[u as usize][d.index()] = true;
                order.push(v);
            }
        }
        if order.len() != n {
            return Err(InputError::new(
                format!("{what} edges"),
                format!("{} of {n} nodes reached", order.len()),
                "a spanning tree reaches every node",
            ));
        }
        // Post-order: children in port order O1..O4, then the node. Iterative,
        // so deep trees (a 64×64 tree can be 127 levels deep) cannot overflow.
        let mut number = vec![0u32; n];
        let mut low = vec![0u32; n];
        let mut node_of = Vec::with_capacity(n);
        let mut stack: Vec<(NodeId, usize)> = vec![(root, 0)];
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if *next == 0 {
                low[u as usize] = node_of.len() as u32;
            }
            if *next < 4 {
                let d = Dir::from_index(*next);
                *next += 1;
                if child_ports[u as usize][d.index()] {
                    let v = topo.neighbor(u, d).expect("child link exists");
                    stack.push((v, 0));
                }
                continue;
            }
            number[u as usize] = node_of.len() as u32;
            node_of.push(u);
            stack.pop();
        }
        Ok(SpanningTree {
            topo,
            root,
            edges,
            parent_port,
            parent,
            child_ports,
            number,
            node_of,
            low,
            depth,
        })
    }

    pub fn contains_edge(&self, e: EdgeId) -> bool {
        self.edges.binary_search(&e).is_ok()
    }

    pub fn children(&self, u: NodeId) -> impl Iterator<Item = (Dir, NodeId)> + '_ {
        Dir::ALL
            .into_iter()
            .filter(move |d| self.child_ports[u as usize][d.index()])
            .map(move |d| (d, self.topo.neighbor(u, d).expect("child link exists")))
    }

    pub fn child_count(&self, u: NodeId) -> usize {
        self.child_ports[u as usize].iter().filter(|&&c| c).count()
    }

    /// The router table of node `u` for this tree.
    pub fn table(&self, u: NodeId) -> TreeTable {
        let mut child = [None; 4];
        for (d, v) in self.children(u) {
            child[d.index()] = Some((self.low[v as usize], self.number[v as usize]));
        }
        TreeTable {
            own: self.number[u as usize],
            parent: self.parent_port[u as usize],
            child,
        }
    }

    /// Whether `a` is an ancestor of (or equal to) `b`, by post-order range.
    pub fn is_ancestor(&self, a: NodeId, b: NodeId) -> bool {
        let nb = self.number[b as usize];
        self.low[a as usize] <= nb && nb <= self.number[a as usize]
    }

    /// Lowest common ancestor of two nodes.
    pub fn lca(&self, mut a: NodeId, b: NodeId) -> NodeId {
        while !self.is_ancestor(a, b) {
            a = self.parent[a as usize].expect("the root is an ancestor of every node");
        }
        a
    }

    /// Hops between two nodes along the tree.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        let l = self.lca(a, b);
        self.depth[a as usize] + self.depth[b as usize] - 2 * self.depth[l as usize]
    }

    /// Largest number of children of any node.
    pub fn max_children(&self) -> usize {
        (0..self.topo.nodes())
            .map(|u| self.child_count(u))
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3×3 mesh "comb": row 0 plus every column.
    fn comb() -> SpanningTree {
        let t = Topology::mesh(3, 3).unwrap();
        let mut e = vec![t.h_edge(0, 0), t.h_edge(1, 0)];
        for x in 0..3 {
            e.push(t.v_edge(x, 0));
            e.push(t.v_edge(x, 1));
        }
        SpanningTree::from_edges(t, t.id(1, 0), &e, "test tree").unwrap()
    }

    #[test]
    fn post_order_ranges_route_every_pair() {
        let tr = comb();
        let t = tr.topo;
        assert_eq!(tr.number[tr.root as usize], t.nodes() - 1);
        for a in 0..t.nodes() {
            for b in 0..t.nodes() {
                // Follow the tables from a to b; must arrive in tree-distance hops.
                let mut u = a;
                let mut hops = 0;
                while let Some(d) = tr.table(u).route(tr.number[b as usize]) {
                    u = t.neighbor(u, d).unwrap();
                    hops += 1;
                    assert!(hops <= t.nodes());
                }
                assert_eq!(u, b);
                assert_eq!(hops, tr.distance(a, b));
            }
        }
    }

    #[test]
    fn rejects_non_trees() {
        let t = Topology::mesh(3, 3).unwrap();
        let err = SpanningTree::from_edges(t, 0, &[t.h_edge(0, 0)], "T1").unwrap_err();
        assert!(err.to_string().contains("T1 edges"), "{err}");
        // A cycle of 4 plus 4 more edges: 8 edges but not spanning.
        let mut e = vec![
            t.h_edge(0, 0),
            t.v_edge(1, 0),
            t.h_edge(0, 1),
            t.v_edge(0, 0),
        ];
        e.extend([
            t.h_edge(1, 2),
            t.v_edge(2, 1),
            t.h_edge(0, 2),
            t.h_edge(1, 1),
        ]);
        assert!(SpanningTree::from_edges(t, 0, &e, "T1").is_err());
    }
}
