//! Two edge-disjoint spanning trees of a 2-D torus: Theorem 4.1 of \[DSTM\]
//! (\[DSTM\] §4) for all 16
//! `(±x,±y)` / `(±y,±x)` methods and any pair of starting nodes, and the named
//! constructions DSTM-1 and DSTM-2 of §5.1.
//!
//! The proof assumes `x1 ≠ x2` and `y1 ≠ y2`, but the six steps stay valid for
//! any starting nodes (each step adds either a path hanging off a node already
//! in the tree, or one edge to a node not yet in it), so equal rows or columns
//! are accepted. DSTM-2 needs that: its starting nodes share a column.
//! Every result is re-checked by [`SpanningTree::from_edges`].

use crate::error::{InputError, InputResult};
use crate::topology::{Dir, EdgeId, NodeId, Topology};
use crate::trees::spanning::SpanningTree;
use std::fmt;

/// The walking direction along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sign {
    Plus,
    Minus,
}

impl Sign {
    fn ch(self) -> char {
        match self {
            Sign::Plus => '+',
            Sign::Minus => '-',
        }
    }
}

/// One of the 16 methods: T1 walks x first (`t1_x`) then y (`t1_y`); T2 walks
/// y first (`t2_y`) then x (`t2_x`). `(+x,−y)` / `(−y,+x)` is the proof's case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Method {
    pub t1_x: Sign,
    pub t1_y: Sign,
    pub t2_y: Sign,
    pub t2_x: Sign,
}

impl Method {
    /// All 16 methods, in a fixed order.
    pub fn all() -> Vec<Method> {
        let s = [Sign::Plus, Sign::Minus];
        let mut v = Vec::with_capacity(16);
        for t1_x in s {
            for t1_y in s {
                for t2_y in s {
                    for t2_x in s {
                        v.push(Method {
                            t1_x,
                            t1_y,
                            t2_y,
                            t2_x,
                        });
                    }
                }
            }
        }
        v
    }

    /// Parses `+x-y/-y+x` (T1 method / T2 method).
    pub fn parse(s: &str) -> InputResult<Method> {
        let err = || {
            InputError::new(
                "construction",
                s,
                "dstm1, dstm2, or a method `(±x)(±y)/(±y)(±x)` such as `+x-y/-y+x`",
            )
        };
        let b = s.as_bytes();
        if b.len() != 9 || b[4] != b'/' {
            return Err(err());
        }
        let sign = |c: u8| match c {
            b'+' => Some(Sign::Plus),
            b'-' => Some(Sign::Minus),
            _ => None,
        };
        let axes = [b[1], b[3], b[6], b[8]];
        if axes != [b'x', b'y', b'y', b'x'] {
            return Err(err());
        }
        Ok(Method {
            t1_x: sign(b[0]).ok_or_else(err)?,
            t1_y: sign(b[2]).ok_or_else(err)?,
            t2_y: sign(b[5]).ok_or_else(err)?,
            t2_x: sign(b[7]).ok_or_else(err)?,
        })
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}x{}y/{}y{}x",
            self.t1_x.ch(),
            self.t1_y.ch(),
            self.t2_y.ch(),
            self.t2_x.ch()
        )
    }
}

/// Where the roots go (\[DSTM\] §4, Figs. 4–5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RootChoice {
    /// Roots at the starting nodes R1, R2. If a root then has a single branch
    /// (the starting nodes share a row or column), half of its first line is
    /// moved to the other side through the unused wrap link (Fig. 5).
    Start,
    /// Both roots at P = Q = (x2, y1), the intersection of R1's row and R2's
    /// column (Fig. 4), which keeps both trees binary with two branches.
    Intersection,
}

/// A complete construction request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Construction {
    pub method: Method,
    pub r1: NodeId,
    pub r2: NodeId,
    pub roots: RootChoice,
}

/// The named constructions of §5.1 plus the general family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Named {
    Dstm1,
    Dstm2,
    Method(Method),
}

impl Named {
    pub fn parse(s: &str) -> InputResult<Named> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dstm1" | "dstm-1" => Ok(Named::Dstm1),
            "dstm2" | "dstm-2" => Ok(Named::Dstm2),
            _ => Method::parse(s.trim()).map(Named::Method),
        }
    }

    /// The construction for `topo` with R1 at `r1`. For non-square tori the
    /// offsets √N/2 and √N/4 of §5.1 become (K/2, M/2) and (0, M/4), rounded
    /// down. A bare method uses R2 = R1 + (K/2, M/2), like DSTM-1, unless the
    /// caller overrides `r2`.
    pub fn construction(&self, topo: &Topology, r1: NodeId, r2: Option<NodeId>) -> Construction {
        let (x1, y1) = topo.coord(r1);
        let off = |dx: u32, dy: u32| topo.id((x1 + dx) % topo.k, (y1 + dy) % topo.m);
        match self {
            Named::Dstm1 => Construction {
                method: Method::parse("+x-y/-y+x").expect("literal"),
                r1,
                r2: r2.unwrap_or(off(topo.k / 2, topo.m / 2)),
                roots: RootChoice::Intersection,
            },
            Named::Dstm2 => Construction {
                method: Method::parse("-x+y/+y-x").expect("literal"),
                r1,
                r2: r2.unwrap_or(off(0, topo.m / 4)),
                roots: RootChoice::Start,
            },
            Named::Method(m) => Construction {
                method: *m,
                r1,
                r2: r2.unwrap_or(off(topo.k / 2, topo.m / 2)),
                roots: RootChoice::Start,
            },
        }
    }
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Named::Dstm1 => f.write_str("dstm1"),
            Named::Dstm2 => f.write_str("dstm2"),
            Named::Method(m) => write!(f, "{m}"),
        }
    }
}

/// The pair of trees plus the two edges neither uses.
#[derive(Debug, Clone)]
pub struct TreePair {
    pub trees: [SpanningTree; 2],
    pub unused: Vec<EdgeId>,
    pub construction: Construction,
}

/// Column of the horizontal edge a walk along a row in direction `s` from
/// column `c` never takes (the edge closing the row's cycle behind it).
fn h_miss(k: u32, c: u32, s: Sign) -> u32 {
    match s {
        Sign::Plus => (c + k - 1) % k,
        Sign::Minus => c,
    }
}

fn v_miss(m: u32, r: u32, s: Sign) -> u32 {
    match s {
        Sign::Plus => (r + m - 1) % m,
        Sign::Minus => r,
    }
}

/// How the Fig. 5 adjustment splits a root's single line of `L` nodes (the
/// root included, so `L − 1` nodes hang off the root on the walking side).
///
/// \[DSTM\] §4 says only that the change "is limited to the nodes on the
/// part of the branch to be moved, i.e. a total of ⌈K/2⌉ nodes on a branch of
/// K nodes", and Fig. 5 is lost in the OCR. The readings differ only in where
/// the odd node goes, but that changes the combined diameter of DSTM-2 on
/// even tori by one hop (see `docs/results/dstm-trees.md`), so the choice is
/// explicit here. [`construct`] uses [`Fig5Split::MoveHalfUp`]: for even `L`
/// it moves exactly ⌈K/2⌉ nodes as the sentence says, it is as balanced as
/// any reading can be, and it is the reading under which Theorem 5.2 holds,
/// which we take as evidence of what the authors built (docs/decisions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fig5Split {
    /// Keep `⌊L/2⌋` nodes on the walking side and move the other `⌈L/2⌉ − 1`
    /// (root plus moved nodes = `⌈L/2⌉` changed nodes). DSTM-2 then has
    /// CD = 2√N − 1 on even tori.
    KeepHalf,
    /// Move `⌈(L−1)/2⌉` nodes: as balanced as `KeepHalf`, but for even `L`
    /// the extra node goes to the moved (wrap-around) side. The default.
    #[default]
    MoveHalfUp,
    /// The most literal reading: move `⌈L/2⌉` nodes (for odd `L` this leaves
    /// the two sides two nodes apart).
    MoveCeilL,
}

/// Builds the two trees of Theorem 4.1.
pub fn construct(topo: &Topology, c: &Construction) -> InputResult<TreePair> {
    construct_with(topo, c, Fig5Split::MoveHalfUp)
}

/// [`construct`] with an explicit reading of the Fig. 5 adjustment (only used
/// with [`RootChoice::Start`] when a root has a single branch).
pub fn construct_with(
    topo: &Topology,
    c: &Construction,
    split: Fig5Split,
) -> InputResult<TreePair> {
    if !topo.is_torus() {
        return Err(InputError::new(
            "topology",
            topo,
            "edge-disjoint spanning trees need a torus: a K×M mesh has fewer than 2(N−1) links (paper 000 §8)",
        ));
    }
    let n = topo.nodes();
    for (name, r) in [("R1", c.r1), ("R2", c.r2)] {
        if r >= n {
            return Err(InputError::new(name, r, format!("a node id below {n}")));
        }
    }
    let (k, m) = (topo.k, topo.m);
    let (x1, y1) = topo.coord(c.r1);
    let (x2, y2) = topo.coord(c.r2);
    let md = c.method;
    let mut t1 = Vec::with_capacity(n as usize);
    let mut t2 = Vec::with_capacity(n as usize);
    // Step 1: T1 takes row y1 but the edge behind R1.
    let miss1 = h_miss(k, x1, md.t1_x);
    t1.extend((0..k).filter(|&i| i != miss1).map(|i| topo.h_edge(i, y1)));
    // Step 2: T2 takes column x2 but the edge behind R2.
    let miss2 = v_miss(m, y2, md.t2_y);
    t2.extend((0..m).filter(|&j| j != miss2).map(|j| topo.v_edge(x2, j)));
    // Step 3: T1 walks every other column from row y1.
    let col_miss = v_miss(m, y1, md.t1_y);
    for i in (0..k).filter(|&i| i != x2) {
        t1.extend((0..m).filter(|&j| j != col_miss).map(|j| topo.v_edge(i, j)));
    }
    // Step 4: T2 walks every other row from column x2.
    let row_miss = h_miss(k, x2, md.t2_x);
    for j in (0..m).filter(|&j| j != y1) {
        t2.extend((0..k).filter(|&i| i != row_miss).map(|i| topo.h_edge(i, j)));
    }
    // Step 5: T1 reaches column x2 through the row edges T2 left.
    t1.extend(
        (0..m)
            .filter(|&j| j != y1)
            .map(|j| topo.h_edge(row_miss, j)),
    );
    // Step 6: T2 reaches row y1 through the column edges T1 left.
    t2.extend(
        (0..k)
            .filter(|&i| i != x2)
            .map(|i| topo.v_edge(i, col_miss)),
    );
    let mut unused = vec![topo.h_edge(miss1, y1), topo.v_edge(x2, miss2)];

    let (root1, root2) = match c.roots {
        RootChoice::Start => (c.r1, c.r2),
        RootChoice::Intersection => (topo.id(x2, y1), topo.id(x2, y1)),
    };
    let mut tree1 = SpanningTree::from_edges(*topo, root1, &t1, "T1")?;
    let mut tree2 = SpanningTree::from_edges(*topo, root2, &t2, "T2")?;
    let plain = (c.r1 == c.r2).then(|| ([tree1.clone(), tree2.clone()], unused.clone()));
    if c.roots == RootChoice::Start {
        // Fig. 5: a root with one branch gets half of its first line moved
        // to its other side through the unused link that closes the line.
        if let Some((t, freed)) = balance_root(&tree1, unused[0], md.t1_x, true, split)? {
            tree1 = t;
            unused[0] = freed;
        }
        if let Some((t, freed)) = balance_root(&tree2, unused[1], md.t2_y, false, split)? {
            tree2 = t;
            unused[1] = freed;
        }
    }
    // Small tori: DSTM-2's R2 = R1 + (0, ⌊M/4⌋) is R1 itself when M < 4,
    // outside the paper's premise of two starting nodes (§5.1 takes
    // √N ≥ 4). There the Fig. 5 move can lengthen the combined diameter
    // (3×3: 5 instead of 4, over Theorem 5.2's 2√N − 2); keep the plain
    // Theorem 4.1 edges when they are strictly better
    // (docs/history/decisions-log.md, "Hardening",
    // Theorem 5.2 at small sizes). Only small networks
    // (DSTM-2 with M ≤ 3) get here, so the all-pairs metric costs nothing.
    if let Some((trees, plain_unused)) = plain {
        let adjusted = [tree1.clone(), tree2.clone()];
        let cd = |t: &[SpanningTree]| crate::trees::metrics::metrics(t).combined_diameter;
        if adjusted != trees && cd(&trees) < cd(&adjusted) {
            [tree1, tree2] = trees;
            unused = plain_unused;
        }
    }
    unused.sort_unstable();
    Ok(TreePair {
        trees: [tree1, tree2],
        unused,
        construction: *c,
    })
}

/// The Fig. 5 adjustment. `closing` is the unused edge that closes the
/// root's first line (a row for T1, a column for T2); `walk` the direction the
/// line was walked. Returns the new tree and the edge it frees.
fn balance_root(
    tree: &SpanningTree,
    closing: EdgeId,
    walk: Sign,
    horizontal: bool,
    split: Fig5Split,
) -> InputResult<Option<(SpanningTree, EdgeId)>> {
    let topo = tree.topo;
    let r = tree.root;
    let len = if horizontal { topo.k } else { topo.m };
    if tree.child_count(r) != 1 || len < 3 {
        return Ok(None);
    }
    let (a, b) = topo.edge_ends(closing);
    if a != r && b != r {
        return Ok(None);
    }
    let step = match (horizontal, walk) {
        (true, Sign::Plus) => Dir::XPlus,
        (true, Sign::Minus) => Dir::XMinus,
        (false, Sign::Plus) => Dir::YPlus,
        (false, Sign::Minus) => Dir::YMinus,
    };
    // The line r = p0, p1, …, p_{len−1}; keep p1..p_keep on the walking side,
    // hang p_{keep+1}..p_{len−1} off the other side of r through `closing`.
    let keep = match split {
        Fig5Split::KeepHalf => len / 2,
        Fig5Split::MoveHalfUp => (len - 1) / 2,
        Fig5Split::MoveCeilL => len - 1 - len.div_ceil(2),
    };
    let mut u = r;
    for _ in 0..keep {
        u = topo.neighbor(u, step).expect("torus link");
    }
    let cut = topo.edge(u, step).expect("torus link");
    let edges: Vec<EdgeId> = tree
        .edges
        .iter()
        .copied()
        .filter(|&e| e != cut)
        .chain([closing])
        .collect();
    let t = SpanningTree::from_edges(topo, r, &edges, if horizontal { "T1" } else { "T2" })?;
    Ok(Some((t, cut)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_on_small_tori() {
        for (k, m) in [(2, 2), (2, 5), (3, 3), (4, 4), (5, 3), (6, 7)] {
            let topo = Topology::torus(k, m).unwrap();
            for method in Method::all() {
                for r1 in 0..topo.nodes() {
                    for r2 in [0, topo.nodes() - 1, (r1 * 7 + 3) % topo.nodes()] {
                        for roots in [RootChoice::Start, RootChoice::Intersection] {
                            let c = Construction {
                                method,
                                r1,
                                r2,
                                roots,
                            };
                            let p = construct(&topo, &c).unwrap();
                            assert_eq!(p.unused.len(), 2);
                            for e in &p.trees[0].edges {
                                assert!(!p.trees[1].contains_edge(*e));
                            }
                            assert!(
                                p.trees[0].max_children() <= 2 && p.trees[1].max_children() <= 2,
                                "{c:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn method_parse_round_trip() {
        for m in Method::all() {
            assert_eq!(Method::parse(&m.to_string()).unwrap(), m);
        }
        assert!(Method::parse("+y-x/-y+x").is_err());
        assert!(Named::parse("dstm3").is_err());
    }

    #[test]
    fn mesh_is_rejected() {
        let t = Topology::mesh(4, 4).unwrap();
        let c = Named::Dstm1.construction(&t, 0, None);
        let e = construct(&t, &c).unwrap_err();
        assert!(e.to_string().contains("torus"), "{e}");
    }
}
