//! Any multicast tree of a mesh as one worm of header flits for the router
//! ("on the cycle model"; docs/architecture.md §3 router contract).
//!
//! \[THESIS\] §3.2 (VH, DIAG, DDS, MIN) and paper
//! \[FTTREE\] (fault-tolerant trees) describe trees whose
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
//! router needs (\[DSTM\] §3.1.1): a header is always behind the headers
//! of the nodes above it.
//!
//! A header node that replicates onto two or more links sends each trailing
//! header to the port its routing function gives for that header's `Node`
//! (docs/architecture.md §3; behind one link, with or without local delivery, they
//! all take that link). A branch whose deeper headers the
//! routing function would steer into a sibling branch (DIAG's staircases
//! under XY, for instance) therefore cannot ride behind that split: such a
//! branch is **detached** into a worm of its own, sent by the source along
//! the tree path to the split node and down the branch. [`encode_worms`]
//! returns the fewest worms this greedy detachment gives; a VH tree under
//! XY routing is always one worm. The extra links are real traffic and are
//! counted as such (see [`worm_links`]).
//!
//! Trees are kept as *visits* (a node reached by one branch), because a
//! \[FTTREE\] tree under Strategies 1–2 may cross a node twice on different
//! links. Two branches of one worm may share a router but never a link (the
//! second would wait for the first to release it): a branch that reuses a
//! link of its worm is detached too.
//!
//! Turn points are chosen greedily: from the last header node, the next
//! header is the farthest node down the branch that the routing function
//! reaches by following the branch exactly. Every hop of a minimal routing
//! function to a neighbour is that neighbour, so the greedy step always
//! advances, and the worm never needs more headers than the branch has nodes.

pub mod scheme;
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

/// One visit of a tree: a node reached by one branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeVisit {
    pub node: NodeId,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub dest: bool,
}

/// A multicast tree over the nodes of a topology, rooted at the source
/// (visit 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTree {
    pub visits: Vec<TreeVisit>,
}

impl NodeTree {
    /// A tree of just its root.
    pub fn new(root: NodeId) -> NodeTree {
        NodeTree {
            visits: vec![TreeVisit {
                node: root,
                parent: None,
                children: Vec::new(),
                dest: false,
            }],
        }
    }

    /// Adds a visit of `node` below visit `parent`; errors if they are not
    /// neighbours in `topo`.
    pub fn add(&mut self, topo: &Topology, parent: usize, node: NodeId) -> InputResult<usize> {
        let p = self.visits[parent].node;
        if node >= topo.nodes() || port_to(topo, p, node).is_none() {
            return Err(InputError::new(
                "tree.edge",
                format!("{p}->{node}"),
                "a link between neighbouring nodes of the topology",
            ));
        }
        let id = self.visits.len();
        self.visits.push(TreeVisit {
            node,
            parent: Some(parent),
            children: Vec::new(),
            dest: false,
        });
        self.visits[parent].children.push(id);
        Ok(id)
    }

    pub fn root(&self) -> NodeId {
        self.visits[0].node
    }

    /// A tree from `(parent, child)` edges between neighbours, one parent
    /// per node. Errors name the edge that is not a link of `topo`, a second
    /// parent, or a destination the edges do not reach.
    pub fn from_edges(
        topo: &Topology,
        root: NodeId,
        edges: &[(NodeId, NodeId)],
        dests: &[NodeId],
    ) -> InputResult<NodeTree> {
        let n = topo.nodes() as usize;
        let mut kids = vec![Vec::new(); n];
        let mut has_parent = vec![false; n];
        for &(p, c) in edges {
            if p as usize >= n || c as usize >= n {
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
            kids[p as usize].push(c);
        }
        let mut t = NodeTree::new(root);
        let mut at = vec![usize::MAX; n];
        at[root as usize] = 0;
        let mut stack = vec![root];
        while let Some(u) = stack.pop() {
            for &c in &kids[u as usize] {
                at[c as usize] = t.add(topo, at[u as usize], c)?;
                stack.push(c);
            }
        }
        for &d in dests {
            if d as usize >= n || d == root || at[d as usize] == usize::MAX {
                return Err(InputError::new(
                    "tree.destination",
                    d,
                    "a node other than the source that the tree reaches",
                ));
            }
            t.visits[at[d as usize]].dest = true;
        }
        Ok(t)
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

    /// A \[FTTREE\] tree (`ftmesh`), visit for visit.
    pub fn from_ftree(topo: &Topology, t: &crate::ftmesh::FtTree) -> InputResult<NodeTree> {
        let id = |(x, y): crate::ftmesh::Coord| -> InputResult<NodeId> {
            topo.node_at(x as i64, y as i64, "tree.visit")
        };
        let mut out = NodeTree::new(id(t.source())?);
        let mut map = vec![0usize; t.visits.len()];
        // Visits are added after their parents.
        for (i, v) in t.visits.iter().enumerate().skip(1) {
            let p = v.parent.unwrap_or(0);
            map[i] = out.add(topo, map[p], id(v.at)?)?;
            out.visits[map[i]].dest = v.destination;
        }
        Ok(out)
    }

    /// Directed links of the tree, sorted (a link used by two visits twice).
    pub fn links(&self) -> Vec<(NodeId, NodeId)> {
        let mut out: Vec<(NodeId, NodeId)> = self
            .visits
            .iter()
            .filter_map(|v| v.parent.map(|p| (self.visits[p].node, v.node)))
            .collect();
        out.sort_unstable();
        out
    }

    /// Destination nodes, sorted.
    pub fn destinations(&self) -> Vec<NodeId> {
        let mut d: Vec<NodeId> = self
            .visits
            .iter()
            .filter(|v| v.dest)
            .map(|v| v.node)
            .collect();
        d.sort_unstable();
        d
    }

    /// Splits the tree at the link into visit `c`: the tree without `c`'s
    /// subtree (leaves left without a destination pruned), and the tree of
    /// the path root→parent(`c`), that link and `c`'s subtree (only its
    /// destinations).
    fn detach(&self, c: usize) -> (NodeTree, NodeTree) {
        let a = self.visits[c].parent.expect("detach below the root");
        // The branch: the path down to `a`, then `c`'s subtree.
        let mut path = vec![a];
        while let Some(p) = self.visits[*path.last().unwrap()].parent {
            path.push(p);
        }
        path.reverse();
        let mut branch = NodeTree::new(self.root());
        let mut at = 0;
        for &v in &path[1..] {
            at = branch.push(at, self.visits[v].node, false);
        }
        let mut stack = vec![(c, at)];
        while let Some((v, p)) = stack.pop() {
            let b = branch.push(p, self.visits[v].node, self.visits[v].dest);
            for &x in &self.visits[v].children {
                stack.push((x, b));
            }
        }
        // The rest: drop the subtree, then prune bare leaves upwards.
        let mut keep = vec![true; self.visits.len()];
        let mut stack = vec![c];
        while let Some(v) = stack.pop() {
            keep[v] = false;
            stack.extend(&self.visits[v].children);
        }
        let mut v = a;
        loop {
            let live = self.visits[v].children.iter().any(|&x| keep[x]);
            if v == 0 || live || self.visits[v].dest {
                break;
            }
            keep[v] = false;
            v = self.visits[v].parent.expect("non-root");
        }
        let mut rest = NodeTree::new(self.root());
        let mut stack = vec![(0usize, 0usize)];
        while let Some((v, r)) = stack.pop() {
            for &x in self.visits[v].children.iter().rev() {
                if keep[x] {
                    let y = rest.push(r, self.visits[x].node, self.visits[x].dest);
                    stack.push((x, y));
                }
            }
        }
        (rest, branch)
    }

    fn push(&mut self, parent: usize, node: NodeId, dest: bool) -> usize {
        let id = self.visits.len();
        self.visits.push(TreeVisit {
            node,
            parent: Some(parent),
            children: Vec::new(),
            dest,
        });
        self.visits[parent].children.push(id);
        id
    }
}

/// The port of `from` whose link leads to neighbour `to`.
pub fn port_to(topo: &Topology, from: NodeId, to: NodeId) -> Option<Dir> {
    Dir::ALL
        .into_iter()
        .find(|&d| topo.neighbor(from, d) == Some(to))
}

/// Encodes `tree` as the header flits of worms of `class` injected at its
/// root, detaching branches that cannot follow their split or that reuse a
/// link of their worm (module docs). Each worm comes with the sub-tree it
/// covers; every destination visit is in exactly one of them.
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
            Err(Encoding::Conflict(c)) => {
                let (rest, branch) = t.detach(c);
                if rest.destinations().is_empty() && branch.visits.len() == t.visits.len() {
                    // Only possible if one root-to-leaf path uses a link twice.
                    return Err(InputError::new(
                        "tree.path",
                        t.visits[c].node,
                        "a tree whose every root-to-leaf path uses each link once",
                    ));
                }
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
    worms.iter().map(|(t, _)| t.visits.len() - 1).sum()
}

/// Why a tree is not one worm.
#[derive(Debug)]
pub enum Encoding {
    /// Bad input (see [`InputError`]).
    Bad(InputError),
    /// The branch entering this visit cannot ride in the same worm: its
    /// headers would be routed into a sibling branch at the split above, or
    /// it reuses a link of the worm.
    Conflict(usize),
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
/// function cannot follow even one hop, or a branch that cannot ride in the
/// same worm ([`Encoding::Conflict`]; see [`encode_worms`]).
pub fn encode(
    topo: &Topology,
    tree: &NodeTree,
    route: RouteFn,
    class: u8,
) -> Result<Vec<Head>, Encoding> {
    if tree.visits[0].dest {
        return Err(InputError::new(
            "tree.destination",
            tree.root(),
            "a node other than the source",
        )
        .into());
    }
    if let Some(c) = shared_link(tree) {
        return Err(Encoding::Conflict(c));
    }
    let mut heads = Vec::new();
    let enc = Encoder {
        topo,
        tree,
        route,
        class,
    };
    let kids = &tree.visits[0].children;
    if kids.len() >= 2 {
        heads.push(enc.header(0)?);
        enc.below(0, &mut heads)?;
    } else if let Some(&c) = kids.first() {
        enc.chain(0, c, &mut heads)?;
    }
    Ok(heads)
}

/// The later of two visits entered over the same directed link, lifted to
/// the child of their lowest common ancestor on its side (detaching there
/// separates the two uses).
fn shared_link(tree: &NodeTree) -> Option<usize> {
    let mut seen = std::collections::HashMap::new();
    for (i, v) in tree.visits.iter().enumerate() {
        let Some(p) = v.parent else { continue };
        if let Some(&j) = seen.get(&(tree.visits[p].node, v.node)) {
            let anc = |mut x: usize| {
                let mut a = vec![x];
                while let Some(p) = tree.visits[x].parent {
                    a.push(p);
                    x = p;
                }
                a
            };
            let (ai, aj) = (anc(i), anc(j));
            // The highest ancestor of `i` (or `i` itself) not above `j`.
            let mut c = i;
            for &x in &ai {
                if aj.contains(&x) {
                    break;
                }
                c = x;
            }
            return Some(c);
        }
        seen.insert((tree.visits[p].node, v.node), i);
    }
    None
}

struct Encoder<'a> {
    topo: &'a Topology,
    tree: &'a NodeTree,
    route: RouteFn<'a>,
    class: u8,
}

impl Encoder<'_> {
    fn node(&self, v: usize) -> NodeId {
        self.tree.visits[v].node
    }

    fn port(&self, a: usize, b: usize) -> Dir {
        port_to(self.topo, self.node(a), self.node(b)).expect("tree edge is a link")
    }

    /// The header of a visit that replicates or is a destination.
    fn header(&self, v: usize) -> Result<Head, Encoding> {
        let mut o = 0u8;
        for &c in &self.tree.visits[v].children {
            o |= 1 << self.port(v, c).index();
        }
        let c = self.tree.visits[v].dest;
        if !c && o == 0 {
            return Err(InputError::new(
                "tree.leaf",
                self.node(v),
                "every leaf of a multicast tree is a destination",
            )
            .into());
        }
        Ok(Head {
            node: self.node(v),
            c,
            o,
            s: false,
            class: self.class,
        })
    }

    /// Headers of every branch below header visit `v`. If `v` replicates
    /// onto two or more links, each branch's headers must be routed into
    /// that branch from `v`; behind a single link they all follow it.
    fn below(&self, v: usize, heads: &mut Vec<Head>) -> Result<(), Encoding> {
        let kids = &self.tree.visits[v].children;
        let split = kids.len() > 1;
        for &c in kids {
            let start = heads.len();
            self.chain(v, c, heads)?;
            let port = Some(self.port(v, c));
            if split
                && heads[start..]
                    .iter()
                    .any(|h| (self.route)(self.node(v), h.node) != port)
            {
                return Err(Encoding::Conflict(c));
            }
        }
        Ok(())
    }

    /// Headers for the branch that leaves visit `from` (which has a header,
    /// or is the root) towards its child `first`: turn points along the
    /// chain of single-child non-destination visits, then the header visit
    /// ending it.
    fn chain(&self, from: usize, first: usize, heads: &mut Vec<Head>) -> Result<(), Encoding> {
        let mut path = vec![from, first];
        loop {
            let w = &self.tree.visits[*path.last().unwrap()];
            if w.dest || w.children.len() != 1 {
                break;
            }
            path.push(w.children[0]);
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
                        format!("{}->{}", self.node(path[cur]), self.node(path[cur + 1])),
                        "a hop the routing function takes towards that neighbour",
                    ))
                })?;
            if t == end {
                heads.push(self.header(path[t])?);
            } else {
                let o = self.port(path[t], path[t + 1]);
                heads.push(Head {
                    node: self.node(path[t]),
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

    /// Whether a header for the last visit of `seg`, leaving its first
    /// visit, is routed along `seg` exactly and not stripped early by
    /// passing its own node.
    fn follows(&self, seg: &[usize]) -> bool {
        let target = self.node(*seg.last().unwrap());
        seg[1..seg.len() - 1]
            .iter()
            .all(|&w| self.node(w) != target)
            && seg
                .windows(2)
                .all(|w| (self.route)(self.node(w[0]), target) == Some(self.port(w[0], w[1])))
    }
}
