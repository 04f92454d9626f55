//! Small n-dimensional (2-D and 3-D) meshes and tori for the thesis tree
//! algorithms (\[THESIS\] §3.1.2, Definitions 2.1.1/2.1.2).
//!
//! [`crate::topology::Topology`] only knows 2-D K×M networks; the thesis also
//! works on 3-D ones, so this module keeps its own coordinate type. Axis 0 is
//! X (along a row, `K` columns), axis 1 is Y (`M` rows), axis 2 is Z, as in
//! `docs/conventions.md`; a 2-D point has `z = 0`. The node id is
//! `x + K·(y + M·z)`, which for 2-D is the project's `y·K + x`.

use crate::error::{InputError, InputResult};
use std::fmt;

/// Largest number of dimensions handled.
pub const MAX_DIMS: usize = 3;
/// Largest size of one dimension.
pub const MAX_SIDE: usize = 255;

/// A node `(x, y[, z])`; unused axes are 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point(pub [u16; MAX_DIMS]);

impl Point {
    /// A 2-D point `(x, y)`.
    pub const fn xy(x: u16, y: u16) -> Point {
        Point([x, y, 0])
    }
    /// A 3-D point `(x, y, z)`.
    pub const fn xyz(x: u16, y: u16, z: u16) -> Point {
        Point([x, y, z])
    }
    /// Coordinate on `axis`.
    pub fn get(self, axis: usize) -> usize {
        self.0[axis] as usize
    }
    /// Tie key of the thesis examples: highest dimension first, `(z, y, x)`.
    pub fn zyx(self) -> (u16, u16, u16) {
        (self.0[2], self.0[1], self.0[0])
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0[2] == 0 {
            write!(f, "({},{})", self.0[0], self.0[1])
        } else {
            write!(f, "({},{},{})", self.0[0], self.0[1], self.0[2])
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl Point {
    /// Parses `x,y` or `x,y,z` as a node of `grid`; `field` names it in the
    /// error.
    pub fn parse(grid: &Grid, s: &str, field: &str) -> InputResult<Point> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let bad = || {
            InputError::new(
                field,
                s,
                format!(
                    "{} comma-separated coordinates, e.g. `{}`",
                    grid.dims(),
                    if grid.dims() == 2 { "3,4" } else { "3,4,1" }
                ),
            )
        };
        if parts.len() != grid.dims() {
            return Err(bad());
        }
        let mut p = Point::default();
        for (a, v) in parts.iter().enumerate() {
            p.0[a] = v.parse().map_err(|_| bad())?;
        }
        grid.check(p, field)?;
        Ok(p)
    }
}

/// One link of a tree, seen from the parent: axis, direction, and whether it
/// is a torus wraparound link (joins coordinate 0 and `k − 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    pub axis: usize,
    pub positive: bool,
    pub wraparound: bool,
}

/// A 2-D or 3-D mesh or torus, every side in `2..=255`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    sides: [usize; MAX_DIMS],
    dims: usize,
    torus: bool,
}

impl Grid {
    /// A mesh (`torus == false`) or torus with the given sides `[K, M]` or
    /// `[K, M, P]`.
    pub fn new(sides: &[usize], torus: bool) -> InputResult<Grid> {
        if sides.len() < 2 || sides.len() > MAX_DIMS {
            return Err(InputError::new(
                "grid dimensions",
                sides.len(),
                "2 or 3 (K×M or K×M×P)",
            ));
        }
        let mut s = [1; MAX_DIMS];
        for (i, &k) in sides.iter().enumerate() {
            if !(2..=MAX_SIDE).contains(&k) {
                return Err(InputError::new(
                    format!("grid side {}", ["K (x)", "M (y)", "P (z)"][i]),
                    k,
                    format!("from 2 to {MAX_SIDE}"),
                ));
            }
            s[i] = k;
        }
        Ok(Grid {
            sides: s,
            dims: sides.len(),
            torus,
        })
    }
    /// K×M mesh.
    pub fn mesh2(k: usize, m: usize) -> InputResult<Grid> {
        Grid::new(&[k, m], false)
    }
    /// K×M torus.
    pub fn torus2(k: usize, m: usize) -> InputResult<Grid> {
        Grid::new(&[k, m], true)
    }
    /// K×M×P mesh.
    pub fn mesh3(k: usize, m: usize, p: usize) -> InputResult<Grid> {
        Grid::new(&[k, m, p], false)
    }
    /// K×M×P torus.
    pub fn torus3(k: usize, m: usize, p: usize) -> InputResult<Grid> {
        Grid::new(&[k, m, p], true)
    }
    pub fn dims(&self) -> usize {
        self.dims
    }
    pub fn is_torus(&self) -> bool {
        self.torus
    }
    /// Size of `axis` (1 for an unused axis).
    pub fn side(&self, axis: usize) -> usize {
        self.sides[axis]
    }
    pub fn nodes(&self) -> usize {
        self.sides.iter().product()
    }
    /// Is `p` a node of this grid (unused axes must be 0)?
    pub fn contains(&self, p: Point) -> bool {
        (0..MAX_DIMS).all(|a| p.get(a) < self.sides[a])
    }
    /// `x + K·(y + M·z)`.
    pub fn id(&self, p: Point) -> usize {
        p.get(0) + self.sides[0] * (p.get(1) + self.sides[1] * p.get(2))
    }
    /// Inverse of [`Grid::id`].
    pub fn point(&self, id: usize) -> Point {
        let x = id % self.sides[0];
        let y = (id / self.sides[0]) % self.sides[1];
        let z = id / (self.sides[0] * self.sides[1]);
        Point([x as u16, y as u16, z as u16])
    }
    /// Checks that `p` is a node; `field` names it in the error.
    pub fn check(&self, p: Point, field: &str) -> InputResult<()> {
        if self.contains(p) {
            Ok(())
        } else {
            let range: Vec<String> = (0..self.dims)
                .map(|a| format!("0..{}", self.sides[a]))
                .collect();
            Err(InputError::new(
                field,
                p,
                format!(
                    "a node of the {}-D {} with coordinates in {} (unused axes 0)",
                    self.dims,
                    if self.torus { "torus" } else { "mesh" },
                    range.join(" × ")
                ),
            ))
        }
    }
    /// Hops between two nodes (Manhattan; ring distance per axis on a torus).
    pub fn distance(&self, a: Point, b: Point) -> usize {
        (0..self.dims)
            .map(|i| {
                let d = a.get(i).abs_diff(b.get(i));
                if self.torus {
                    d.min(self.sides[i] - d)
                } else {
                    d
                }
            })
            .sum()
    }
    /// The neighbour of `p` through `axis` in the given direction, if the
    /// link exists.
    pub fn step(&self, p: Point, axis: usize, positive: bool) -> Option<(Point, Link)> {
        if axis >= self.dims {
            return None;
        }
        let k = self.sides[axis];
        let c = p.get(axis);
        let (n, wrap) = if positive {
            if c + 1 < k {
                (c + 1, false)
            } else if self.torus {
                (0, true)
            } else {
                return None;
            }
        } else if c > 0 {
            (c - 1, false)
        } else if self.torus {
            (k - 1, true)
        } else {
            return None;
        };
        let mut q = p;
        q.0[axis] = n as u16;
        Some((
            q,
            Link {
                axis,
                positive,
                wraparound: wrap,
            },
        ))
    }
    /// The links (possibly two on a torus of side 2) from `a` to `b`.
    pub fn links_between(&self, a: Point, b: Point) -> Vec<Link> {
        let mut v = Vec::new();
        for axis in 0..self.dims {
            for positive in [true, false] {
                if let Some((q, l)) = self.step(a, axis, positive) {
                    if q == b {
                        v.push(l);
                    }
                }
            }
        }
        v
    }
}

impl fmt::Display for Grid {
    /// `mesh:KxM`, `torus:KxMxP`: the form [`Grid`]'s `FromStr` reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sides: Vec<String> = (0..self.dims).map(|a| self.sides[a].to_string()).collect();
        write!(
            f,
            "{}:{}",
            if self.torus { "torus" } else { "mesh" },
            sides.join("x")
        )
    }
}

impl std::str::FromStr for Grid {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<Grid> {
        let bad = || {
            InputError::new(
                "grid",
                s,
                format!(
                    "`mesh:KxM`, `torus:KxM`, `mesh:KxMxP` or `torus:KxMxP`, sides 2..={MAX_SIDE}"
                ),
            )
        };
        let (kind, dims) = s.trim().split_once(':').ok_or_else(bad)?;
        let torus = match kind {
            "mesh" => false,
            "torus" => true,
            _ => return Err(bad()),
        };
        let sides = dims
            .split('x')
            .map(|v| v.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<InputResult<Vec<usize>>>()?;
        // The whole value as typed, then the part that is wrong.
        Grid::new(&sides, torus).map_err(|e| {
            let part = e.field.strip_prefix("grid ").unwrap_or(&e.field);
            InputError::new("grid", s, format!("{part} is `{}`; {}", e.value, e.allowed))
        })
    }
}
