//! Tree-based multicast on 2-D and 3-D meshes and tori: VH, DIAG, DDS and the
//! MIN baseline of the \[THESIS\] §3.1–3.2
//! (docs/references.md §C), as pure functions returning a [`MulticastTree`] with the
//! thesis's analytic **traffic** (links) and one-port **time** (hops).
//!
//! Each algorithm runs on a mesh with the source at the origin of a zone
//! ([`connect`], [`vh`], [`diag`], [`dds`], [`min`]). [`build`] reduces every
//! other case to that (§3.1.1, §3.1.3):
//!
//! * **mesh, source anywhere:** the mesh is split at the source's coordinates
//!   into 2^n disjoint submeshes: on each axis the positive side
//!   `s_a..k` (zone origin `s_a`, counting up) and the negative side `0..s_a`
//!   (origin `s_a − 1`, counting down). The zone origins ("corners") are
//!   joined to the source exactly like the torus corners below, by one link
//!   per axis, so every node keeps its distance. (Letting all submeshes share
//!   the source as origin, as the thesis's Figure 3.1.1 suggests, makes 3-D
//!   submeshes overlap on whole planes where their subtrees disagree; see
//!   `docs/decisions.md`.)
//! * **torus:** coordinates are taken relative to the source (a torus is
//!   symmetric); each axis of side `k` is split at the middle into
//!   `0..⌈k/2⌉` (zone origin `0`, counting up) and `⌈k/2⌉..k` (origin
//!   `k − 1`, counting down), giving 2^n zones each run as a mesh from its
//!   corner (Alg. 3.2.1.3, 3.2.1.6). The corners are joined by wraparound links (2-D: `(0,0)→(m−1,0)`,
//!   `(0,0)→(0,n−1)`, `(m−1,0)→(m−1,n−1)`; 3-D as the thesis's Example
//!   3.2.1.2: a corner's parent clears its Y bit, else its Z bit, else its X
//!   bit). A zone link is used only if it leads to a zone with destinations,
//!   and zone links are served before any other link (thesis: "we assume the
//!   wraparound links have a higher transmission priority").

// Axis-indexed loops over several parallel arrays read best as index loops.
#![allow(clippy::needless_range_loop)]

pub mod connect;
pub mod dds;
pub mod diag;
pub mod experiment;
pub mod grid;
mod local;
pub mod min;
pub mod tree;
pub mod vh;

pub use grid::{Grid, Link, Point};
pub use tree::{MulticastTree, Service};

use crate::error::{InputError, InputResult};
use local::{LocalTree, Lp};
use std::fmt;
use std::str::FromStr;
use tree::RawEdge;

/// The four tree algorithms of thesis §3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Algorithm {
    /// Dimension-ordered paths (Liu), §3.2.1.1.
    Vh,
    /// Diagonal path + CONNECT, §3.2.1.
    Diag,
    /// Dimensional-distance sorted CONNECT, §3.2.2.
    Dds,
    /// Pro-traffic baseline, §3.2.2.1 (our reading, see [`min`]).
    Min,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Vh,
        Algorithm::Diag,
        Algorithm::Dds,
        Algorithm::Min,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Vh => "VH",
            Algorithm::Diag => "DIAG",
            Algorithm::Dds => "DDS",
            Algorithm::Min => "MIN",
        }
    }
    fn local_tree(self, shape: [usize; 3], dims: usize, dests: &[Lp]) -> LocalTree {
        match self {
            Algorithm::Vh => vh::local_tree(shape, dims, dests),
            Algorithm::Diag => diag::local_tree(shape, dims, dests),
            Algorithm::Dds => dds::local_tree(shape, dims, dests),
            Algorithm::Min => min::local_tree(shape, dims, dests),
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<Algorithm> {
        match s.to_ascii_lowercase().as_str() {
            "vh" => Ok(Algorithm::Vh),
            "diag" => Ok(Algorithm::Diag),
            "dds" => Ok(Algorithm::Dds),
            "min" => Ok(Algorithm::Min),
            _ => Err(InputError::new("algorithm", s, "one of vh, diag, dds, min")),
        }
    }
}

/// A zone: local point `l` is global `(base + sign·l) mod k` (no wrap ever
/// happens inside a zone of a mesh).
#[derive(Clone, Copy, Debug)]
struct Zone {
    base: Point,
    negative: [bool; 3],
}

impl Zone {
    fn global(&self, grid: &Grid, l: Lp) -> Point {
        let mut p = [0u16; 3];
        for a in 0..grid.dims() {
            let k = grid.side(a) as isize;
            let off = if self.negative[a] {
                -(l[a] as isize)
            } else {
                l[a] as isize
            };
            p[a] = (self.base.get(a) as isize + off).rem_euclid(k) as u16;
        }
        Point(p)
    }
    /// The link of the local step `from → from ± e_axis` (`up`: local
    /// coordinate increases; MIN also steps down).
    fn link(&self, axis: usize, up: bool, grid: &Grid, from: Point) -> Link {
        let positive = up != self.negative[axis];
        grid.step(from, axis, positive)
            .expect("zone step is a link")
            .1
    }
}

/// Checks the inputs: source and destinations are nodes, destinations are
/// distinct and differ from the source.
fn validate(grid: &Grid, source: Point, dests: &[Point]) -> InputResult<()> {
    grid.check(source, "source")?;
    let mut seen = vec![false; grid.nodes()];
    seen[grid.id(source)] = true;
    for &d in dests {
        grid.check(d, "destination")?;
        let i = grid.id(d);
        if seen[i] {
            return Err(InputError::new(
                "destination",
                d,
                "distinct nodes other than the source (a multicast set)",
            ));
        }
        seen[i] = true;
    }
    Ok(())
}

/// One-port service order of the links joining zone origins (torus wraps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ZoneLinks {
    /// Before every other link: the thesis's stated assumption for its torus
    /// examples (docs/references.md §C). The default.
    #[default]
    First,
    /// After every other link of the node (a variant, to test how the
    /// thesis's averaged torus times were counted).
    Last,
}

/// Builds the multicast tree of `alg` from `source` to `dests` on `grid`,
/// zone links served first.
pub fn build(
    alg: Algorithm,
    grid: &Grid,
    source: Point,
    dests: &[Point],
) -> InputResult<MulticastTree> {
    build_with(alg, grid, source, dests, ZoneLinks::First)
}

/// [`build`] with a chosen service order for the zone links.
pub fn build_with(
    alg: Algorithm,
    grid: &Grid,
    source: Point,
    dests: &[Point],
    zone_links: ZoneLinks,
) -> InputResult<MulticastTree> {
    validate(grid, source, dests)?;
    let n = grid.dims();
    let zones = 1usize << n;
    // Zone index bit a set = negative side of axis a.
    let zone_of = |d: Point| -> (usize, Lp) {
        let mut z = 0;
        let mut l = [0usize; 3];
        for a in 0..n {
            let (s, c, k) = (source.get(a), d.get(a), grid.side(a));
            if grid.is_torus() {
                let t = (c + k - s) % k;
                if t >= k.div_ceil(2) {
                    z |= 1 << a;
                    l[a] = k - 1 - t;
                } else {
                    l[a] = t;
                }
            } else if c < s {
                z |= 1 << a;
                l[a] = s - 1 - c;
            } else {
                l[a] = c - s;
            }
        }
        (z, l)
    };
    let mut per_zone: Vec<Vec<Lp>> = vec![Vec::new(); zones];
    for &d in dests {
        let (z, l) = zone_of(d);
        per_zone[z].push(l);
    }
    let mut edges: Vec<RawEdge> = Vec::new();
    for (z, local_dests) in per_zone.iter().enumerate() {
        if local_dests.is_empty() {
            continue;
        }
        let mut base = source;
        let mut negative = [false; 3];
        let mut shape = [1usize; 3];
        for a in 0..n {
            let (s, k) = (source.get(a), grid.side(a));
            let neg = z & (1 << a) != 0;
            negative[a] = neg;
            shape[a] = match (grid.is_torus(), neg) {
                (true, true) => k / 2,
                (true, false) => k.div_ceil(2),
                (false, true) => s,
                (false, false) => k - s,
            };
            if neg {
                base.0[a] = ((s + k - 1) % k) as u16;
            }
        }
        let zone = Zone { base, negative };
        let t = alg.local_tree(shape, n, local_dests);
        for (lp, lc, diagonal) in t.edges() {
            let axis = (0..3).find(|&a| lp[a] != lc[a]).unwrap();
            let (p, c) = (zone.global(grid, lp), zone.global(grid, lc));
            edges.push(RawEdge {
                parent: p,
                child: c,
                link: zone.link(axis, lc[axis] > lp[axis], grid, p),
                service: if diagonal {
                    Service::Diagonal
                } else {
                    Service::Plain
                },
            });
        }
    }
    add_zone_links(grid, source, &per_zone, &mut edges);
    Ok(MulticastTree::assemble(
        *grid,
        source,
        dests.to_vec(),
        &edges,
        zone_links == ZoneLinks::Last,
    ))
}

/// Order in which corners are reached by wraps: 2-D X, Y; 3-D X, Z, Y (the
/// thesis's Alg. 3.2.1.6 step 11 and Example 3.2.1.2).
fn wrap_order(dims: usize) -> &'static [usize] {
    if dims == 2 {
        &[0, 1]
    } else {
        &[0, 2, 1]
    }
}

/// Parent zone of corner `z` in the wrap tree: clear its last set bit in wrap
/// order. Returns the parent and the axis of the wrap.
fn wrap_parent(z: usize, dims: usize) -> (usize, usize) {
    let order = wrap_order(dims);
    let axis = *order.iter().rev().find(|&&a| z & (1 << a) != 0).unwrap();
    (z & !(1 << axis), axis)
}

/// The corner (origin) of zone `z`.
fn corner(grid: &Grid, source: Point, z: usize) -> Point {
    let mut p = source;
    for a in 0..grid.dims() {
        if z & (1 << a) != 0 {
            let k = grid.side(a);
            p.0[a] = ((source.get(a) + k - 1) % k) as u16;
        }
    }
    p
}

fn add_zone_links(grid: &Grid, source: Point, per_zone: &[Vec<Lp>], edges: &mut Vec<RawEdge>) {
    let n = grid.dims();
    let mut used = vec![false; per_zone.len()];
    for z in 1..per_zone.len() {
        if per_zone[z].is_empty() {
            continue;
        }
        let mut y = z;
        while y != 0 && !used[y] {
            used[y] = true;
            y = wrap_parent(y, n).0;
        }
    }
    let order = wrap_order(n);
    for z in 1..per_zone.len() {
        if !used[z] {
            continue;
        }
        let (p, axis) = wrap_parent(z, n);
        let from = corner(grid, source, p);
        let (to, link) = grid.step(from, axis, false).unwrap();
        debug_assert_eq!(to, corner(grid, source, z));
        let pos = order.iter().position(|&a| a == axis).unwrap() as u8;
        edges.push(RawEdge {
            parent: from,
            child: to,
            link,
            service: Service::ZoneLink(pos),
        });
    }
}
