//! Extended safety levels: per node the vector (E, S, W, N) of distances to
//! the nearest faulty block straight east, south, west and north.
//!
//! \[FTTREE\] §3.3 (after Wu \[34\]): a source is
//! *extended safe* to a destination when no block lies on the source's row
//! or column inside the source–destination rectangle; then a minimal path
//! exists (Theorem 1 restricted to that rectangle). The source checks it
//! from its own vector only, which is why the vector is all it stores.

use super::{Coord, FaultyMesh};

/// Hops to the first blocked node in each direction; `None` = no block
/// before the mesh edge (the paper's "infinite").
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SafetyVector {
    pub e: Option<u32>,
    pub s: Option<u32>,
    pub w: Option<u32>,
    pub n: Option<u32>,
}

impl SafetyVector {
    /// Safe (Definition 2): no block anywhere on the node's row or column.
    pub fn is_safe(&self) -> bool {
        self.e.is_none() && self.s.is_none() && self.w.is_none() && self.n.is_none()
    }
}

fn first_block(mesh: &FaultyMesh, (x, y): Coord, dx: i64, dy: i64) -> Option<u32> {
    let (mut cx, mut cy, mut hops) = (x as i64, y as i64, 0u32);
    loop {
        cx += dx;
        cy += dy;
        hops += 1;
        if !mesh.in_mesh(cx, cy) {
            return None;
        }
        if mesh.is_blocked((cx as u32, cy as u32)) {
            return Some(hops);
        }
    }
}

/// The extended safety level (E, S, W, N) of a node.
pub fn safety_vector(mesh: &FaultyMesh, c: Coord) -> SafetyVector {
    SafetyVector {
        e: first_block(mesh, c, 1, 0),
        s: first_block(mesh, c, 0, -1),
        w: first_block(mesh, c, -1, 0),
        n: first_block(mesh, c, 0, 1),
    }
}

/// Whether `src` is extended safe to `dst`: along the row, the first block in
/// the destination's X direction is farther than `|Δx|`, and likewise along
/// the column. The four quadrant cases are the paper's (+X, +Y) case mirrored
/// (§7.2, Fig. 12).
pub fn extended_safe(mesh: &FaultyMesh, src: Coord, dst: Coord) -> bool {
    let v = safety_vector(mesh, src);
    let beyond = |limit: Option<u32>, need: u32| limit.is_none_or(|l| l > need);
    let dx = dst.0.abs_diff(src.0);
    let dy = dst.1.abs_diff(src.1);
    let x_ok = match dst.0.cmp(&src.0) {
        std::cmp::Ordering::Greater => beyond(v.e, dx),
        std::cmp::Ordering::Less => beyond(v.w, dx),
        std::cmp::Ordering::Equal => true,
    };
    let y_ok = match dst.1.cmp(&src.1) {
        std::cmp::Ordering::Greater => beyond(v.n, dy),
        std::cmp::Ordering::Less => beyond(v.s, dy),
        std::cmp::Ordering::Equal => true,
    };
    x_ok && y_ok
}
