//! K×M tori and meshes: node numbering, coordinates, link ports and edge ids.
//!
//! Convention (one place for the whole project, see `docs/conventions.md`):
//! * `K` columns and `M` rows; a node is `(x, y)` with `0 ≤ x < K`, `0 ≤ y < M`
//!   (x along a row, as in \[DSTM\] §4 and docs/references.md).
//! * Node id = `y·K + x`.
//! * Link ports O1..O4 = +X, −X, +Y, −Y (docs/architecture.md §3), index 0..3.
//! * Edges follow \[DSTM\] §4: `H(i,j)` joins (i,j)–(i+1 mod K, j) and has id
//!   `j·K + i`; `V(i,j)` joins (i,j)–(i, j+1 mod M) and has id `N + j·K + i`.
//!   On a torus of width 2 the two horizontal edges of a row are distinct
//!   parallel links, so a link is identified by its edge, never by the pair of
//!   nodes it joins.

use crate::error::{InputError, InputResult};
use std::fmt;

/// Node identifier: `y·K + x`.
pub type NodeId = u32;
/// Edge identifier, see the module documentation.
pub type EdgeId = u32;

/// The four link directions; the discriminant is the port index O1..O4 − 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    XPlus = 0,
    XMinus = 1,
    YPlus = 2,
    YMinus = 3,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::XPlus, Dir::XMinus, Dir::YPlus, Dir::YMinus];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: usize) -> Dir {
        Dir::ALL[i]
    }

    /// The port on the neighbour through which a flit sent out of `self` arrives.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::XPlus => Dir::XMinus,
            Dir::XMinus => Dir::XPlus,
            Dir::YPlus => Dir::YMinus,
            Dir::YMinus => Dir::YPlus,
        }
    }

    /// Paper notation O1..O4.
    pub fn name(self) -> &'static str {
        ["+x", "-x", "+y", "-y"][self.index()]
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopologyKind {
    Torus,
    Mesh,
}

/// A K×M torus or mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Topology {
    pub kind: TopologyKind,
    /// Columns.
    pub k: u32,
    /// Rows.
    pub m: u32,
}

/// Largest number of nodes a network may have: 2^16.
///
/// Two bounds meet here.
/// * Data structure: hop counts along a spanning tree are 16-bit in
///   `trees::dist` (the all-pairs table of the fault trials and the
///   distance rows of the Roskind–Tarjan comparison). A tree of N nodes has
///   paths of up to N − 1 hops, so N − 1 must fit in a `u16`.
/// * Memory: the tree- and mesh-routed fabric is linear in N, about
///   2.4–2.9 KiB per router measured as peak RSS (`docs/performance.md`,
///   "Scaling to 128×128"). That is 46 MiB at 128×128 and 159 MiB at
///   256×256; `tests/cli_scale.rs` checks the 128×128 figure.
///
/// The flit format is not what binds. The `Node` field of a HEAD flit is
/// W − 10 bits, 22 at the default 32-bit flit (2^22 addresses,
/// 2048×2048), and a narrower flit is checked per scenario by
/// `FlitFormat::check_nodes`, whose error names `flit_width`. Node and edge
/// ids are `u32` (edge ids go up to 2N). The structures that grow with N²
/// have their own, smaller bounds:
/// `config::spam_table::SPAM_MAX_NODES` (the per-router SPAM tables) and
/// `trees::dist::ALL_PAIRS_MAX_SIDE` (the all-pairs analyses). Tree-worm
/// schemes on a mesh go through `meshtree::grid`, which allows sides up to
/// 255.
pub const MAX_NODES: u32 = u16::MAX as u32 + 1;

/// Largest side of a network. It is the side of a square of
/// [`MAX_NODES`] nodes, so every K×M with both sides in range has at most
/// `MAX_NODES` nodes. Test: `tests/cli_scale.rs` runs 128×128 and rejects 257.
pub const MAX_SIDE: u32 = MAX_NODES.isqrt();
const _: () = assert!(MAX_SIDE * MAX_SIDE == MAX_NODES);

impl Topology {
    pub fn new(kind: TopologyKind, k: u32, m: u32) -> InputResult<Topology> {
        for (name, v) in [("columns (K)", k), ("rows (M)", m)] {
            if !(2..=MAX_SIDE).contains(&v) {
                return Err(InputError::new(
                    format!("topology {name}"),
                    v,
                    format!(
                        "{name} must be an integer from 2 to {MAX_SIDE}, as must the other side (at most {MAX_NODES} nodes: tree hop counts are 16-bit)"
                    ),
                ));
            }
        }
        Ok(Topology { kind, k, m })
    }

    pub fn torus(k: u32, m: u32) -> InputResult<Topology> {
        Topology::new(TopologyKind::Torus, k, m)
    }

    pub fn mesh(k: u32, m: u32) -> InputResult<Topology> {
        Topology::new(TopologyKind::Mesh, k, m)
    }

    /// Parses `torus:KxM` or `mesh:KxM`.
    pub fn parse(s: &str) -> InputResult<Topology> {
        let err = || {
            InputError::new(
                "topology",
                s,
                "expected `torus:KxM` or `mesh:KxM`, e.g. `torus:8x8`",
            )
        };
        let (kind, dims) = s.split_once(':').ok_or_else(err)?;
        let kind = match kind.trim() {
            "torus" => TopologyKind::Torus,
            "mesh" => TopologyKind::Mesh,
            _ => return Err(err()),
        };
        let (k, m) = dims.split_once(['x', 'X']).ok_or_else(err)?;
        let k: u32 = k.trim().parse().map_err(|_| err())?;
        let m: u32 = m.trim().parse().map_err(|_| err())?;
        // The error quotes the whole value as typed, then names the side
        // that is out of range: a lone `1` does not say where it came from.
        Topology::new(kind, k, m).map_err(|e| {
            let side = e.field.strip_prefix("topology ").unwrap_or(&e.field);
            InputError::new(
                "topology",
                s,
                format!("{side} is `{}`; {}", e.value, e.allowed),
            )
        })
    }

    pub fn is_torus(&self) -> bool {
        self.kind == TopologyKind::Torus
    }

    pub fn nodes(&self) -> u32 {
        self.k * self.m
    }

    /// Number of edge ids (some are absent on a mesh, see [`Topology::edge_exists`]).
    pub fn edge_slots(&self) -> u32 {
        2 * self.nodes()
    }

    pub fn id(&self, x: u32, y: u32) -> NodeId {
        y * self.k + x
    }

    pub fn coord(&self, n: NodeId) -> (u32, u32) {
        (n % self.k, n / self.k)
    }

    /// Checked construction from user coordinates.
    pub fn node_at(&self, x: i64, y: i64, field: &str) -> InputResult<NodeId> {
        if x < 0 || y < 0 || x >= self.k as i64 || y >= self.m as i64 {
            return Err(InputError::new(
                field,
                format!("{x},{y}"),
                format!(
                    "coordinates must satisfy 0 <= x < {} and 0 <= y < {}",
                    self.k, self.m
                ),
            ));
        }
        Ok(self.id(x as u32, y as u32))
    }

    /// Parses `X,Y` into a node.
    pub fn parse_node(&self, s: &str, field: &str) -> InputResult<NodeId> {
        let err = || InputError::new(field, s, "expected a node as `X,Y`, e.g. `3,4`");
        let (x, y) = s.split_once(',').ok_or_else(err)?;
        let x: i64 = x.trim().parse().map_err(|_| err())?;
        let y: i64 = y.trim().parse().map_err(|_| err())?;
        self.node_at(x, y, field)
    }

    pub fn h_edge(&self, i: u32, j: u32) -> EdgeId {
        j * self.k + i
    }

    pub fn v_edge(&self, i: u32, j: u32) -> EdgeId {
        self.nodes() + j * self.k + i
    }

    /// `H(i,j)` / `V(i,j)` name of an edge (\[DSTM\] §4): one spelling for
    /// every report that names links.
    pub fn edge_name(&self, e: EdgeId) -> String {
        let n = self.nodes();
        if e < n {
            format!("H({},{})", e % self.k, e / self.k)
        } else {
            format!("V({},{})", (e - n) % self.k, (e - n) / self.k)
        }
    }

    /// Whether an edge id is a real link (a mesh has no wrap-around links).
    pub fn edge_exists(&self, e: EdgeId) -> bool {
        if e >= self.edge_slots() {
            return false;
        }
        if self.is_torus() {
            return true;
        }
        let n = self.nodes();
        if e < n {
            e % self.k != self.k - 1
        } else {
            (e - n) / self.k != self.m - 1
        }
    }

    /// The two end nodes of an edge, in the order (i,j), (i+1,j) or (i,j+1).
    pub fn edge_ends(&self, e: EdgeId) -> (NodeId, NodeId) {
        let n = self.nodes();
        if e < n {
            let (i, j) = (e % self.k, e / self.k);
            (self.id(i, j), self.id((i + 1) % self.k, j))
        } else {
            let e = e - n;
            let (i, j) = (e % self.k, e / self.k);
            (self.id(i, j), self.id(i, (j + 1) % self.m))
        }
    }

    /// The edge behind port `d` of node `n`, if the link exists.
    pub fn edge(&self, n: NodeId, d: Dir) -> Option<EdgeId> {
        let (x, y) = self.coord(n);
        let (k, m) = (self.k, self.m);
        let e = match d {
            Dir::XPlus => self.h_edge(x, y),
            Dir::XMinus => self.h_edge((x + k - 1) % k, y),
            Dir::YPlus => self.v_edge(x, y),
            Dir::YMinus => self.v_edge(x, (y + m - 1) % m),
        };
        self.edge_exists(e).then_some(e)
    }

    /// The neighbour through port `d`, if the link exists.
    pub fn neighbor(&self, n: NodeId, d: Dir) -> Option<NodeId> {
        self.edge(n, d)?;
        let (x, y) = self.coord(n);
        let (k, m) = (self.k, self.m);
        Some(match d {
            Dir::XPlus => self.id((x + 1) % k, y),
            Dir::XMinus => self.id((x + k - 1) % k, y),
            Dir::YPlus => self.id(x, (y + 1) % m),
            Dir::YMinus => self.id(x, (y + m - 1) % m),
        })
    }

    /// Which port of `n` an edge leaves by. On a 2-wide torus both X ports lead
    /// to the same neighbour, so the edge, not the neighbour, decides.
    pub fn port_of_edge(&self, n: NodeId, e: EdgeId) -> Option<Dir> {
        Dir::ALL.into_iter().find(|&d| self.edge(n, d) == Some(e))
    }

    /// Shortest-path hop distance in the network itself (not in a tree).
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        let (ax, ay) = self.coord(a);
        let (bx, by) = self.coord(b);
        let dx = ax.abs_diff(bx);
        let dy = ay.abs_diff(by);
        if self.is_torus() {
            dx.min(self.k - dx) + dy.min(self.m - dy)
        } else {
            dx + dy
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_torus() { "torus" } else { "mesh" };
        write!(f, "{kind}:{}x{}", self.k, self.m)
    }
}

/// `torus:KxM` or `mesh:KxM` ([`Topology::parse`]).
impl std::str::FromStr for Topology {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<Topology> {
        Topology::parse(s)
    }
}

/// A link named by one of its ends and the direction it leaves in, `X,Y,DIR`
/// (DIR one of +x, -x, +y, -y): how scenarios and the command line name a
/// faulty link. Parsing checks the form; [`LinkName::edge`] checks it
/// against a topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkName {
    pub x: i64,
    pub y: i64,
    pub dir: Dir,
}

impl LinkName {
    /// The node and direction on `topo`; `field` names the input in the
    /// error when the node is off the network.
    pub fn node_dir(&self, topo: &Topology, field: &str) -> InputResult<(NodeId, Dir)> {
        Ok((topo.node_at(self.x, self.y, field)?, self.dir))
    }

    /// The edge on `topo`, if the link exists there.
    pub fn edge(&self, topo: &Topology, field: &str) -> InputResult<EdgeId> {
        let (node, dir) = self.node_dir(topo, field)?;
        topo.edge(node, dir)
            .ok_or_else(|| InputError::new(field, self, "a link that exists"))
    }

    /// The two nodes the link joins on `topo` (this end first).
    pub fn ends(&self, topo: &Topology, field: &str) -> InputResult<(NodeId, NodeId)> {
        let (node, dir) = self.node_dir(topo, field)?;
        let other = topo
            .neighbor(node, dir)
            .ok_or_else(|| InputError::new(field, self, "a link that exists"))?;
        Ok((node, other))
    }
}

impl std::str::FromStr for LinkName {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<LinkName> {
        let err = || InputError::new("link", s, "`X,Y,DIR` with DIR one of +x, -x, +y, -y");
        let mut it = s.split(',');
        let (x, y, d) = (
            it.next().ok_or_else(err)?,
            it.next().ok_or_else(err)?,
            it.next().ok_or_else(err)?,
        );
        if it.next().is_some() {
            return Err(err());
        }
        Ok(LinkName {
            x: x.trim().parse().map_err(|_| err())?,
            y: y.trim().parse().map_err(|_| err())?,
            dir: Dir::ALL
                .into_iter()
                .find(|dd| dd.name() == d.trim())
                .ok_or_else(err)?,
        })
    }
}

impl fmt::Display for LinkName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.x, self.y, self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_and_ports_agree() {
        for t in [
            Topology::torus(2, 3).unwrap(),
            Topology::torus(5, 4).unwrap(),
            Topology::mesh(4, 3).unwrap(),
        ] {
            let mut seen = vec![0u32; t.edge_slots() as usize];
            for n in 0..t.nodes() {
                for d in Dir::ALL {
                    if let Some(e) = t.edge(n, d) {
                        seen[e as usize] += 1;
                        let nb = t.neighbor(n, d).unwrap();
                        assert_eq!(t.edge(nb, d.opposite()), Some(e));
                        let (a, b) = t.edge_ends(e);
                        assert!((a == n && b == nb) || (a == nb && b == n));
                    }
                }
            }
            for e in 0..t.edge_slots() {
                assert_eq!(
                    seen[e as usize],
                    if t.edge_exists(e) { 2 } else { 0 },
                    "{t} edge {e}"
                );
            }
        }
    }

    #[test]
    fn parse_rejects_bad_sizes() {
        assert!(Topology::parse("torus:8x8").is_ok());
        let e = Topology::parse("torus:1x8").unwrap_err();
        assert!(e.to_string().contains("columns"), "{e}");
        assert!(Topology::parse("ring:8x8").is_err());
        assert!(Topology::parse("torus:256x256").is_ok());
        let e = Topology::parse("torus:257x8").unwrap_err();
        assert!(e.to_string().contains("from 2 to 256"), "{e}");
        // The whole value is quoted, and the side that is wrong is named.
        let e = Topology::parse("torus:2x1").unwrap_err();
        assert_eq!(e.value, "torus:2x1");
        assert!(e.allowed.starts_with("rows (M) is `1`; "), "{e}");
        assert!(Topology::parse("torus:8").is_err());
    }
}
