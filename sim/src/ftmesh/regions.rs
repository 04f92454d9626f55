//! The quadrant frame, the adjacent lines L1/L3 of each block, regions R4/R6,
//! and the transfer of block information between intersecting blocks.
//!
//! \[FTTREE\] §3.3 (Figs. 3 and 4) and §7.2 (Fig. 12).
//! The paper works in the +X+Y quadrant with the source at the origin; the
//! other three quadrants are its mirror images (one virtual subnetwork each),
//! so [`Frame`] maps a quadrant to that picture and back.
//!
//! With block corners one unit outside it, (x, y) and (x', y'):
//! * L1 is the row y west of the block, L3 the column x south of it. Block
//!   information is stored on the part of each line that a unicast along
//!   the line can reach from the block corner (it stops at the next block).
//! * R4 = {x ≤ X ≤ x', Y ≥ y'} (north), R6 = {X ≥ x', y ≤ Y ≤ y'} (east).
//! * A header on L1 must not leave it northwards while a destination lies in
//!   R6 ("L1 is critical"); on L3 it must not leave eastwards while one lies
//!   in R4.
//! * Fig. 4: if block A's L3 (L1) line runs into block B, B's L3 (L1) also
//!   carries A's R4 (R6) — transitively, since the lines only run south
//!   (west), the relation is acyclic.

use super::{Coord, FaultyMesh};

/// A point in frame coordinates: the source at (0, 0), destinations at x, y ≥ 0.
pub type P = (i32, i32);

/// A block in frame coordinates (inclusive).
#[derive(Debug, Clone, Copy)]
pub struct Rect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl Rect {
    /// Region R4 of this block (north, corners included).
    pub fn in_r4(&self, (x, y): P) -> bool {
        x >= self.x0 - 1 && x <= self.x1 + 1 && y > self.y1
    }

    /// Region R6 of this block (east, corners included).
    pub fn in_r6(&self, (x, y): P) -> bool {
        x > self.x1 && y >= self.y0 - 1 && y <= self.y1 + 1
    }
}

/// One quadrant of a source, mirrored to +X+Y, with the block information
/// that nodes of the quadrant hold.
pub struct Frame<'a> {
    pub mesh: &'a FaultyMesh,
    pub src: Coord,
    /// +1 or −1: the sign of X (Y) in this quadrant.
    pub sx: i32,
    pub sy: i32,
    /// Largest frame x (y) still inside the mesh.
    pub xmax: i32,
    pub ymax: i32,
    pub rects: Vec<Rect>,
    /// For block b: the blocks whose R6 (R4) is critical on b's L1 (L3),
    /// b itself included (Fig. 4 transfer, closed transitively).
    crit6: Vec<Vec<u32>>,
    crit4: Vec<Vec<u32>>,
    /// Per frame node (y·(xmax+1)+x): blocks whose L1 (L3) information it holds.
    l1_at: Vec<Vec<u32>>,
    l3_at: Vec<Vec<u32>>,
}

impl<'a> Frame<'a> {
    pub fn new(mesh: &'a FaultyMesh, src: Coord, sx: i32, sy: i32) -> Frame<'a> {
        let xmax = if sx > 0 {
            mesh.width() as i32 - 1 - src.0 as i32
        } else {
            src.0 as i32
        };
        let ymax = if sy > 0 {
            mesh.height() as i32 - 1 - src.1 as i32
        } else {
            src.1 as i32
        };
        let mut f = Frame {
            mesh,
            src,
            sx,
            sy,
            xmax,
            ymax,
            rects: Vec::new(),
            crit6: Vec::new(),
            crit4: Vec::new(),
            l1_at: Vec::new(),
            l3_at: Vec::new(),
        };
        f.rects = mesh
            .blocks
            .iter()
            .map(|b| {
                let a = f.to_frame_raw((b.x0, b.y0));
                let c = f.to_frame_raw((b.x1, b.y1));
                Rect {
                    x0: a.0.min(c.0),
                    y0: a.1.min(c.1),
                    x1: a.0.max(c.0),
                    y1: a.1.max(c.1),
                }
            })
            .collect();
        f.build_information();
        f
    }

    fn to_frame_raw(&self, (x, y): Coord) -> P {
        (
            self.sx * (x as i32 - self.src.0 as i32),
            self.sy * (y as i32 - self.src.1 as i32),
        )
    }

    /// Mesh coordinate of a frame point, if it lies in this quadrant.
    pub fn to_mesh(&self, (x, y): P) -> Option<Coord> {
        if x < 0 || y < 0 || x > self.xmax || y > self.ymax {
            return None;
        }
        Some((
            (self.src.0 as i32 + self.sx * x) as u32,
            (self.src.1 as i32 + self.sy * y) as u32,
        ))
    }

    /// Frame point of a mesh coordinate (may be negative: other quadrant).
    pub fn to_frame(&self, c: Coord) -> P {
        self.to_frame_raw(c)
    }

    /// A usable node: in this quadrant and neither faulty nor disabled.
    pub fn usable(&self, p: P) -> bool {
        self.to_mesh(p).is_some_and(|c| !self.mesh.is_blocked(c))
    }

    fn block_id(&self, p: P) -> Option<usize> {
        self.to_mesh(p).and_then(|c| self.mesh.block_at(c))
    }

    fn idx(&self, (x, y): P) -> usize {
        (y * (self.xmax + 1) + x) as usize
    }

    fn build_information(&mut self) {
        let nb = self.rects.len();
        // Direct transfer edges: A's line runs into B → B carries A.
        let mut into6: Vec<Vec<u32>> = vec![Vec::new(); nb];
        let mut into4: Vec<Vec<u32>> = vec![Vec::new(); nb];
        for (a, ra) in self.rects.iter().enumerate() {
            for (b, rb) in self.rects.iter().enumerate() {
                if a == b {
                    continue;
                }
                // A's L1 = row ra.y0-1, x ≤ ra.x0-1 (to −∞) meets B.
                if rb.y0 < ra.y0 && ra.y0 - 1 <= rb.y1 && rb.x0 < ra.x0 {
                    into6[b].push(a as u32);
                }
                // A's L3 = column ra.x0-1, y ≤ ra.y0-1 meets B.
                if rb.x0 < ra.x0 && ra.x0 - 1 <= rb.x1 && rb.y0 < ra.y0 {
                    into4[b].push(a as u32);
                }
            }
        }
        self.crit6 = closure(&into6);
        self.crit4 = closure(&into4);
        let cells = ((self.xmax + 1) * (self.ymax + 1)) as usize;
        self.l1_at = vec![Vec::new(); cells];
        self.l3_at = vec![Vec::new(); cells];
        for (b, r) in self.rects.clone().iter().enumerate() {
            // L1: from the corner (x0-1, y0-1) west until a block or the edge.
            let (mut x, y) = (r.x0 - 1, r.y0 - 1);
            if y >= 0 && y <= self.ymax {
                while x >= 0 {
                    if x <= self.xmax {
                        if self.block_id((x, y)).is_some() {
                            break;
                        }
                        let i = self.idx((x, y));
                        self.l1_at[i].push(b as u32);
                    }
                    x -= 1;
                }
            }
            // L3: from the corner south until a block or the edge.
            let (x, mut y) = (r.x0 - 1, r.y0 - 1);
            if x >= 0 && x <= self.xmax {
                while y >= 0 {
                    if y <= self.ymax {
                        if self.block_id((x, y)).is_some() {
                            break;
                        }
                        let i = self.idx((x, y));
                        self.l3_at[i].push(b as u32);
                    }
                    y -= 1;
                }
            }
        }
    }

    /// The blocks whose R6 a header at `p` must respect (p on their L1 or
    /// on the L1 of a block that received their information).
    pub fn critical6_at(&self, p: P) -> impl Iterator<Item = &Rect> + '_ {
        let at: &[u32] = if self.to_mesh(p).is_some() {
            &self.l1_at[self.idx(p)]
        } else {
            &[]
        };
        at.iter()
            .flat_map(move |&b| self.crit6[b as usize].iter())
            .map(move |&a| &self.rects[a as usize])
    }

    /// The blocks whose R4 a header at `p` must respect.
    pub fn critical4_at(&self, p: P) -> impl Iterator<Item = &Rect> + '_ {
        let at: &[u32] = if self.to_mesh(p).is_some() {
            &self.l3_at[self.idx(p)]
        } else {
            &[]
        };
        at.iter()
            .flat_map(move |&b| self.crit4[b as usize].iter())
            .map(move |&a| &self.rects[a as usize])
    }

    /// Definition 3 for one destination `d` of a header at `u`:
    /// (X-bound, Y-bound).
    pub fn bound(&self, u: P, d: P) -> (bool, bool) {
        let xb = d.1 == u.1 || self.critical6_at(u).any(|r| r.in_r6(d));
        let yb = d.0 == u.0 || self.critical4_at(u).any(|r| r.in_r4(d));
        (xb, yb)
    }
}

/// Transitive closure of "B carries A" with B itself included; the relation
/// is acyclic (lines run strictly west/south), so a memoised DFS suffices.
fn closure(into: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let n = into.len();
    let mut memo: Vec<Option<Vec<u32>>> = vec![None; n];
    fn visit(b: usize, into: &[Vec<u32>], memo: &mut Vec<Option<Vec<u32>>>) -> Vec<u32> {
        if let Some(v) = &memo[b] {
            return v.clone();
        }
        let mut out = vec![b as u32];
        for &a in &into[b] {
            for c in visit(a as usize, into, memo) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        memo[b] = Some(out.clone());
        out
    }
    (0..n).map(|b| visit(b, into, &mut memo)).collect()
}
