//! Faulty blocks: the disable rule iterated to a fixpoint, then the connected
//! faulty/disabled nodes grouped into rectangles.
//!
//! \[FTTREE\] §3.3, Definition 1: "a healthy node is
//! disabled if there are two or more disabled or faulty neighbours in
//! different dimensions. A faulty block contains all the connected disabled
//! and faulty nodes." The rule makes every block a rectangle and keeps blocks
//! at least two hops apart, which is what lets a header avoid a block from
//! information stored on four straight lines around it (docs/references.md §D).

use super::Coord;
use crate::error::{InputError, InputResult};
use crate::topology::Topology;

/// One faulty block: the inclusive rectangle `[x0, x1] × [y0, y1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Block {
    pub fn contains(&self, (x, y): Coord) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }

    pub fn area(&self) -> u32 {
        (self.x1 - self.x0 + 1) * (self.y1 - self.y0 + 1)
    }
}

/// A mesh with its faulty nodes, the nodes the disable rule switched off, and
/// the resulting blocks. Nothing here ever routes through a blocked node.
#[derive(Debug, Clone)]
pub struct FaultyMesh {
    pub topo: Topology,
    faulty: Vec<bool>,
    /// Faulty or disabled.
    blocked: Vec<bool>,
    /// Index into `blocks` of the block a blocked node belongs to.
    block_of: Vec<u32>,
    pub blocks: Vec<Block>,
    /// Number of nodes in each block's connected component (equal to the
    /// rectangle's area when Definition 1 holds; kept so tests can check it).
    pub component_sizes: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl FaultyMesh {
    /// Builds the blocks of a mesh with the given faulty nodes. Duplicate
    /// faults are allowed (a node is faulty or not).
    pub fn new(topo: Topology, faults: &[Coord]) -> InputResult<FaultyMesh> {
        if topo.is_torus() {
            return Err(InputError::new(
                "topology",
                topo,
                "a mesh `mesh:KxM`: faulty blocks and extended safety levels are defined on meshes (paper 002 §3)",
            ));
        }
        let n = topo.nodes() as usize;
        let mut faulty = vec![false; n];
        for &(x, y) in faults {
            let id = topo.node_at(x as i64, y as i64, "fault")?;
            faulty[id as usize] = true;
        }
        let blocked = disable_fixpoint(&topo, &faulty);
        let (block_of, blocks, component_sizes) = components(&topo, &blocked);
        Ok(FaultyMesh {
            topo,
            faulty,
            blocked,
            block_of,
            blocks,
            component_sizes,
        })
    }

    pub fn width(&self) -> u32 {
        self.topo.k
    }

    pub fn height(&self) -> u32 {
        self.topo.m
    }

    pub fn in_mesh(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < self.topo.k as i64 && y < self.topo.m as i64
    }

    pub fn is_faulty(&self, (x, y): Coord) -> bool {
        self.faulty[self.topo.id(x, y) as usize]
    }

    /// Faulty or disabled: never used by a multicast.
    pub fn is_blocked(&self, (x, y): Coord) -> bool {
        self.blocked[self.topo.id(x, y) as usize]
    }

    /// Disabled by Definition 1 (healthy but switched off).
    pub fn is_disabled(&self, c: Coord) -> bool {
        self.is_blocked(c) && !self.is_faulty(c)
    }

    /// The block containing a node, if any.
    pub fn block_at(&self, (x, y): Coord) -> Option<usize> {
        let b = self.block_of[self.topo.id(x, y) as usize];
        (b != NONE).then_some(b as usize)
    }

    /// Checks a user coordinate: inside the mesh and neither faulty nor disabled.
    pub fn healthy_node(&self, c: Coord, field: &str) -> InputResult<()> {
        self.topo.node_at(c.0 as i64, c.1 as i64, field)?;
        if self.is_blocked(c) {
            let what = if self.is_faulty(c) {
                "faulty"
            } else {
                "disabled"
            };
            return Err(InputError::new(
                field,
                format!("{},{}", c.0, c.1),
                format!("a healthy node; this one is {what} (inside a faulty block)"),
            ));
        }
        Ok(())
    }
}

/// Definition 1 to a fixpoint: a worklist of nodes whose neighbourhood
/// changed, so the cost is linear in the nodes plus the disabled ones.
fn disable_fixpoint(topo: &Topology, faulty: &[bool]) -> Vec<bool> {
    let (k, m) = (topo.k as i64, topo.m as i64);
    let mut blocked = faulty.to_vec();
    let is_b = |b: &Vec<bool>, x: i64, y: i64| -> bool {
        x >= 0 && y >= 0 && x < k && y < m && b[(y * k + x) as usize]
    };
    let mut work: Vec<(i64, i64)> = (0..m).flat_map(|y| (0..k).map(move |x| (x, y))).collect();
    while let Some((x, y)) = work.pop() {
        if blocked[(y * k + x) as usize] {
            continue;
        }
        let horiz = is_b(&blocked, x - 1, y) || is_b(&blocked, x + 1, y);
        let vert = is_b(&blocked, x, y - 1) || is_b(&blocked, x, y + 1);
        if horiz && vert {
            blocked[(y * k + x) as usize] = true;
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                if nx >= 0 && ny >= 0 && nx < k && ny < m && !blocked[(ny * k + nx) as usize] {
                    work.push((nx, ny));
                }
            }
        }
    }
    blocked
}

/// Connected components (4-neighbourhood) of blocked nodes, with their
/// bounding rectangles, ordered by their lowest node id.
fn components(topo: &Topology, blocked: &[bool]) -> (Vec<u32>, Vec<Block>, Vec<u32>) {
    let n = blocked.len();
    let mut block_of = vec![NONE; n];
    let mut blocks = Vec::new();
    let mut sizes = Vec::new();
    for start in 0..n {
        if !blocked[start] || block_of[start] != NONE {
            continue;
        }
        let id = blocks.len() as u32;
        let (sx, sy) = topo.coord(start as u32);
        let mut b = Block {
            x0: sx,
            y0: sy,
            x1: sx,
            y1: sy,
        };
        let mut size = 0;
        let mut stack = vec![start as u32];
        block_of[start] = id;
        while let Some(v) = stack.pop() {
            size += 1;
            let (x, y) = topo.coord(v);
            b.x0 = b.x0.min(x);
            b.x1 = b.x1.max(x);
            b.y0 = b.y0.min(y);
            b.y1 = b.y1.max(y);
            for d in crate::topology::Dir::ALL {
                if let Some(w) = topo.neighbor(v, d) {
                    if blocked[w as usize] && block_of[w as usize] == NONE {
                        block_of[w as usize] = id;
                        stack.push(w);
                    }
                }
            }
        }
        blocks.push(b);
        sizes.push(size);
    }
    (block_of, blocks, sizes)
}
