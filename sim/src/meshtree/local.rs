//! A tree under construction inside one zone, in the zone's local
//! coordinates: the zone's origin (the source, or a torus corner) is `0`, and
//! every axis counts away from it, so all destinations lie in the positive
//! orthant as the thesis assumes (§3.1.1, Figure 3.1.1).

/// A local point; unused axes are 0.
pub(crate) type Lp = [usize; 3];

pub(crate) const NONE: u32 = u32::MAX;

/// A tree inside a `shape[0] × shape[1] × shape[2]` zone rooted at `0`.
#[derive(Clone, Debug)]
pub(crate) struct LocalTree {
    pub shape: [usize; 3],
    /// Parent id, `NONE` if absent; the root is its own parent.
    pub parent: Vec<u32>,
    /// The edge into the node is on DIAG's diagonal path.
    pub diagonal: Vec<bool>,
    /// Number of children.
    pub kids: Vec<u32>,
}

impl LocalTree {
    pub fn new(shape: [usize; 3]) -> LocalTree {
        let n = shape.iter().product();
        let mut parent = vec![NONE; n];
        parent[0] = 0;
        LocalTree {
            shape,
            parent,
            diagonal: vec![false; n],
            kids: vec![0; n],
        }
    }
    pub fn id(&self, p: Lp) -> usize {
        p[0] + self.shape[0] * (p[1] + self.shape[1] * p[2])
    }
    pub fn point(&self, id: usize) -> Lp {
        let x = id % self.shape[0];
        let y = (id / self.shape[0]) % self.shape[1];
        let z = id / (self.shape[0] * self.shape[1]);
        [x, y, z]
    }
    pub fn has(&self, p: Lp) -> bool {
        self.parent[self.id(p)] != NONE
    }
    fn add(&mut self, parent: Lp, child: Lp, diagonal: bool) {
        let (p, c) = (self.id(parent), self.id(child));
        debug_assert_eq!(self.parent[c], NONE);
        self.parent[c] = p as u32;
        self.diagonal[c] = diagonal;
        self.kids[p] += 1;
    }
    /// Removes a leaf.
    pub fn remove_leaf(&mut self, p: Lp) {
        let c = self.id(p);
        debug_assert_eq!(self.kids[c], 0);
        let q = self.parent[c] as usize;
        self.kids[q] -= 1;
        self.parent[c] = NONE;
        self.diagonal[c] = false;
    }
    /// Adds the dimension-ordered path `from → to` (X, then Y, then Z; any
    /// direction). Nodes already in the tree are passed through without a
    /// new edge; `from` must be in the tree.
    pub fn add_path(&mut self, from: Lp, to: Lp, diagonal: bool) {
        debug_assert!(self.has(from));
        let mut cur = from;
        for axis in 0..3 {
            while cur[axis] != to[axis] {
                let mut next = cur;
                if to[axis] > cur[axis] {
                    next[axis] += 1;
                } else {
                    next[axis] -= 1;
                }
                if !self.has(next) {
                    self.add(cur, next, diagonal);
                }
                cur = next;
            }
        }
    }
    /// Adds one edge `from → to` between neighbours.
    pub fn add_step(&mut self, from: Lp, to: Lp, diagonal: bool) {
        self.add(from, to, diagonal);
    }
    /// `(parent, child, diagonal)` for every edge.
    pub fn edges(&self) -> impl Iterator<Item = (Lp, Lp, bool)> + '_ {
        (1..self.parent.len())
            .filter(|&c| self.parent[c] != NONE)
            .map(|c| {
                (
                    self.point(self.parent[c] as usize),
                    self.point(c),
                    self.diagonal[c],
                )
            })
    }
}

/// Manhattan length of a local point (its distance from the zone origin).
pub(crate) fn norm(p: Lp) -> usize {
    p[0] + p[1] + p[2]
}

/// The thesis tie key: highest dimension first.
pub(crate) fn zyx(p: Lp) -> (usize, usize, usize) {
    (p[2], p[1], p[0])
}
