//! Any multicast tree of a mesh as one worm of header flits for the router
//! (issue 7, "on the cycle model"; ARCHITECTURE §3 router contract).
//!
//! Thesis `003_64015fd7991abd7b.txt` §3.2 (VH, DIAG, DDS, MIN) and paper
//! `002_897996e9973876c0.txt` (fault-tolerant trees) describe trees whose
//! branches do not follow any one routing function: DIAG climbs a staircase,
//! a fault-tolerant tree detours around blocks. The router, though, only
//! replicates where a header asks it to and otherwise routes each header
//! with its fixed routing function. So a tree becomes a worm with:
//! * a header for every node that replicates (≥ 2 children) or is a
//!   destination (`C` = destination, `O` = the ports of its children);
//! * a header at every **turn point**: a node where the routing function,
//!   heading for the next header's node, would leave the tree. It carries
//!   `C=0` and the one `O` bit of the tree's next hop.
//!
//! Headers appear in depth-first pre-order, which is the partial order the
//! router needs (paper `000` §3.1.1): a header is always behind the headers
//! of the nodes above it.
//!
//! A header node that reserves more than one output (a split point) sends
//! each trailing header to the port its routing function gives for that
//! header's `Node` (ARCHITECTURE §3). A branch whose deeper headers the
//! routing function would steer into a sibling branch (DIAG's staircases
//! under XY, for instance) therefore cannot ride behind that split: such a
//! branch is **detached** into a worm of its own, sent by the source along
//! the tree path to the split node and down the branch. [`encode_worms`]
//! returns the fewest worms this greedy detachment gives; a VH tree under
//! XY routing is always one worm. The extra links are real traffic and are
//! counted as such (see [`worm_links`]).
//!
//! Turn points are chosen greedily: from the last header node, the next
//! header is the farthest node down the branch that the routing function
//! reaches by following the branch exactly. Every hop of a minimal routing
//! function to a neighbour is that neighbour, so the greedy step always
//! advances, and the worm never needs more headers than the branch has nodes.

mod walk;

pub use walk::{walk, Delivery, WalkError};

use crate::error::{InputError, InputResult};
use crate::flit::Head;
use crate::topology::{Dir, NodeId, Topology};

/// A routing function as the encoder sees it: the output port a header for
/// `target` takes at `at` (`None`: no route). Input ports and classes do not
/// matter to the mesh functions that carry tree worms (`dor`,
/// `negative_first`).
pub type RouteFn<'a> = &'a dyn Fn(NodeId, NodeId) -> Option<Dir>;

/// A multicast tree over the nodes of a topology, rooted at the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTree {
    pub root: NodeId,
    /// Children of each node, by node id (empty for nodes outside the tree).
    pub children: Vec<Vec<NodeId>>,
    /// Whether each node is a destination.
    pub dest: Vec<bool>,
}

impl NodeTree {
    /// A tree from `(parent, child)` edges between neighbours. Errors name
    /// the edge that is not a link of `topo`, a second parent, or a
    /// destination the edges do not reach.
    pub fn from_edges(
        topo: &Topology,
        root: NodeId,
        edges: &[(NodeId, NodeId)],
        dests: &[NodeId],
    ) -> InputResult<NodeTree> {
        let n = topo.nodes() as usize;
        let mut children = vec![Vec::new(); n];
        let mut has_parent = vec![false; n];
        for &(p, c) in edges {
            if p as usize >= n || c as usize >= n || port_to(topo, p, c).is_none() {
                return Err(InputError::new(
                    "tree.edge",
                    format!("{p}->{c}"),
                    "a link between neighbouring nodes of the topology",
                ));
            }
            if has_parent[c as usize] || c == root {
                return Err(InputError::new(
                    "tree.edge",
                    format!("{p}->{c}"),
                    "at most one parent per node, none for the root",
                ));
            }
            has_parent[c as usize] = true;
            children[p as usize].push(c);
        }
        let mut dest = vec![false; n];
        for &d in dests {
            if d as usize >= n || (d != root && !has_parent[d as usize]) {
                return Err(InputError::new(
                    "tree.destination",
                    d,
                    "a node the tree reaches",
                ));
            }
            dest[d as usize] = true;
        }
        Ok(NodeTree {
            root,
            children,
            dest,
        })
    }

    /// A 2-D thesis tree (`meshtree`, any of VH/DIAG/DDS/MIN) over the same
    /// mesh or torus as `topo`.
    pub fn from_meshtree(
        topo: &Topology,
        t: &crate::meshtree::MulticastTree,
    ) -> InputResult<NodeTree> {
        let g = t.grid();
        let (k, m) = (topo.k as usize, topo.m as usize);
        if g.dims() != 2 || g.side(0) != k || g.side(1) != m || g.is_torus() != topo.is_torus() {
            return Err(InputError::new(
                "tree.grid",
                format!("{:?}", (0..g.dims()).map(|a| g.side(a)).collect::<Vec<_>>()),
                format!("the 2-D {topo} the worm runs on"),
            ));
        }
        let id = |p: crate::meshtree::Point| topo.id(p.get(0) as u32, p.get(1) as u32);
        let edges: Vec<(NodeId, NodeId)> = t
            .nodes()
            .iter()
            .filter_map(|&p| t.parent(p).map(|q| (id(q), id(p))))
            .collect();
        let dests: Vec<NodeId> = t.destinations().iter().map(|&p| id(p)).collect();
        NodeTree::from_edges(topo, id(t.source()), &edges, &dests)
    }

    /// Directed links of the tree.
    pub fn links(&self) -> Vec<(NodeId, NodeId)> {
        let mut out = Vec::new();
        for (p, cs) in self.children.iter().enumerate() {
            for &c in cs {
                out.push((p as NodeId, c));
            }
        }
        out.sort_unstable();
        out
    }

    /// Splits the tree at the link `a`→`c`: the tree without `c`'s subtree
    /// (leaves left without a destination pruned), and the tree of the path
    /// root→`a`, that link and `c`'s subtree (only its destinations).
    fn detach(&self, a: NodeId, c: NodeId) -> (NodeTree, NodeTree) {
        let n = self.children.len();
        let mut parent = vec![None; n];
        for (p, cs) in self.children.iter().enumerate() {
            for &x in cs {
                parent[x as usize] = Some(p as NodeId);
            }
        }
        // The branch: the path to `a`, then `c`'s subtree.
        let mut branch = NodeTree {
            root: self.root,
            children: vec![Vec::new(); n],
            dest: vec![false; n],
        };
        let mut v = a;
        while let Some(p) = parent[v as usize] {
            branch.children[p as usize].push(v);
            v = p;
        }
        branch.children[a as usize].push(c);
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            branch.dest[x as usize] = self.dest[x as usize];
            branch.children[x as usize] = self.children[x as usize].clone();
            stack.extend(&self.children[x as usize]);
        }
        // The rest: drop the subtree, then prune bare leaves upwards.
        let mut rest = self.clone();
        rest.children[a as usize].retain(|&x| x != c);
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            rest.dest[x as usize] = false;
            stack.extend(std::mem::take(&mut rest.children[x as usize]));
        }
        let mut v = a;
        while v != rest.root && rest.children[v as usize].is_empty() && !rest.dest[v as usize] {
            let p = parent[v as usize].expect("non-root has a parent");
            rest.children[p as usize].retain(|&x| x != v);
            v = p;
        }
        (rest, branch)
    }

    /// Destinations, ascending.
    pub fn destinations(&self) -> Vec<NodeId> {
        (0..self.dest.len() as NodeId)
            .filter(|&v| self.dest[v as usize])
            .collect()
    }
}

/// The port of `from` whose link leads to neighbour `to`.
pub fn port_to(topo: &Topology, from: NodeId, to: NodeId) -> Option<Dir> {
    Dir::ALL
        .into_iter()
        .find(|&d| topo.neighbor(from, d) == Some(to))
}

/// Encodes `tree` as the header flits of worms of `class` injected at its
/// root, detaching branches that cannot follow their split (module docs).
/// Each worm comes with the sub-tree it covers; every destination is in
/// exactly one of them.
pub fn encode_worms(
    topo: &Topology,
    tree: &NodeTree,
    route: RouteFn,
    class: u8,
) -> InputResult<Vec<(NodeTree, Vec<Head>)>> {
    let mut out = Vec::new();
    let mut work = vec![tree.clone()];
    while let Some(t) = work.pop() {
        match encode(topo, &t, route, class) {
            Ok(heads) => out.push((t, heads)),
            Err(Encoding::Bad(e)) => return Err(e),
            Err(Encoding::Conflict(a, c)) => {
                let (rest, branch) = t.detach(a, c);
                work.push(branch);
                if !rest.destinations().is_empty() {
                    work.push(rest);
                }
            }
        }
    }
    out.reverse();
    Ok(out)
}

/// Links a set of worms uses, counted per worm (a link two worms share
/// counts twice): the traffic a detached branch really costs.
pub fn worm_links(worms: &[(NodeTree, Vec<Head>)]) -> usize {
    worms.iter().map(|(t, _)| t.links().len()).sum()
}

/// Why a tree is not one worm.
#[derive(Debug)]
pub enum Encoding {
    /// Bad input (see [`InputError`]).
    Bad(InputError),
    /// At split node `.0`, a header of the branch through child `.1` would
    /// be routed into another branch.
    Conflict(NodeId, NodeId),
}

impl From<InputError> for Encoding {
    fn from(e: InputError) -> Self {
        Encoding::Bad(e)
    }
}

/// Encodes `tree` as the header flits of ONE worm of `class` injected at
/// its root. The root itself is not a destination (a source does not send
/// to itself). Errors: a leaf that is not a destination (its header would
/// ask for nothing), a root marked as destination, a branch the routing
/// function cannot follow even one hop, or a branch that cannot ride behind
/// its split ([`Encoding::Conflict`]; see [`encode_worms`]).
pub fn encode(
    topo: &Topology,
    tree: &NodeTree,
    route: RouteFn,
    class: u8,
) -> Result<Vec<Head>, Encoding> {
    if tree.dest[tree.root as usize] {
        return Err(InputError::new(
            "tree.destination",
            tree.root,
            "a node other than the source",
        )
        .into());
    }
    let mut heads = Vec::new();
    let enc = Encoder {
        topo,
        tree,
        route,
        class,
    };
    let root = tree.root;
    if tree.children[root as usize].len() >= 2 {
        heads.push(enc.header(root)?);
        enc.below(root, &mut heads)?;
    } else if let Some(&c) = tree.children[root as usize].first() {
        enc.chain(root, c, &mut heads)?;
    }
    Ok(heads)
}

struct Encoder<'a> {
    topo: &'a Topology,
    tree: &'a NodeTree,
    route: RouteFn<'a>,
    class: u8,
}

impl Encoder<'_> {
    /// The header of a node that replicates or is a destination.
    fn header(&self, v: NodeId) -> Result<Head, Encoding> {
        let mut o = 0u8;
        for &c in &self.tree.children[v as usize] {
            o |= 1
                << port_to(self.topo, v, c)
                    .expect("tree edge is a link")
                    .index();
        }
        let c = self.tree.dest[v as usize];
        if !c && o == 0 {
            return Err(InputError::new(
                "tree.leaf",
                v,
                "every leaf of a multicast tree is a destination",
            )
            .into());
        }
        Ok(Head {
            node: v,
            c,
            o,
            s: false,
            class: self.class,
        })
    }

    /// Headers of every branch below header node `v`. If `v` is a split
    /// point (it reserves more than one output), each branch's headers must
    /// be routed into that branch from `v`.
    fn below(&self, v: NodeId, heads: &mut Vec<Head>) -> Result<(), Encoding> {
        let kids = &self.tree.children[v as usize];
        let split = kids.len() + self.tree.dest[v as usize] as usize > 1;
        for &c in kids {
            let start = heads.len();
            self.chain(v, c, heads)?;
            let port = port_to(self.topo, v, c);
            if split
                && heads[start..]
                    .iter()
                    .any(|h| (self.route)(v, h.node) != port)
            {
                return Err(Encoding::Conflict(v, c));
            }
        }
        Ok(())
    }

    /// Headers for the branch that leaves `from` (which has a header, or is
    /// the root) towards its child `first`: turn points along the chain of
    /// single-child non-destination nodes, then the header node ending it.
    fn chain(&self, from: NodeId, first: NodeId, heads: &mut Vec<Head>) -> Result<(), Encoding> {
        // The chain: from, first, … up to the node that needs a header.
        let mut path = vec![from, first];
        loop {
            let w = *path.last().unwrap();
            let kids = &self.tree.children[w as usize];
            if self.tree.dest[w as usize] || kids.len() != 1 {
                break;
            }
            path.push(kids[0]);
        }
        let end = path.len() - 1;
        let mut cur = 0;
        while cur < end {
            let t = (cur + 1..=end)
                .rev()
                .find(|&t| self.follows(&path[cur..=t]))
                .ok_or_else(|| {
                    Encoding::Bad(InputError::new(
                        "tree.edge",
                        format!("{}->{}", path[cur], path[cur + 1]),
                        "a hop the routing function takes towards that neighbour",
                    ))
                })?;
            if t == end {
                heads.push(self.header(path[t])?);
            } else {
                let o = port_to(self.topo, path[t], path[t + 1]).expect("tree edge");
                heads.push(Head {
                    node: path[t],
                    c: false,
                    o: 1 << o.index(),
                    s: false,
                    class: self.class,
                });
            }
            cur = t;
        }
        self.below(path[end], heads)
    }

    /// Whether a header for the last node of `seg`, leaving its first node,
    /// is routed along `seg` exactly.
    fn follows(&self, seg: &[NodeId]) -> bool {
        let target = *seg.last().unwrap();
        seg.windows(2)
            .all(|w| (self.route)(w[0], target) == port_to(self.topo, w[0], w[1]))
    }
}
