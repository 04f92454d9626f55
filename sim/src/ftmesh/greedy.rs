//! The greedy optimal-multicast-tree heuristic (Definition 6, after Lin–Ni
//! \[16\]) in the time-step-optimal form of \[FTTREE\]
//! §4.2, with fault eligibility.
//!
//! Destinations are taken nearest first; each hangs from the point `w` of an
//! existing virtual edge (u, v) with u ≤ w ≤ v, w ≤ d, that is nearest to
//! d — the edge is split at w. With faults, a `w` from which d has no
//! fault-free minimal path is *ineligible*; the search then moves down the
//! anti-diagonals of the edge's rectangle to the nearest eligible point (the
//! paper's Fig. 9(b) picks such a second-best point).
//!
//! Points are frame points (+X+Y quadrant, see `regions`): every edge goes
//! from a lower-left to an upper-right corner (Theorem 2).

use super::regions::P;

/// An edge of a virtual tree and the root branch it belongs to (0 = the
/// root's +X branch, 1 = its +Y branch; Strategy 3 uses it, plain greedy
/// trees put everything in branch 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VEdge {
    pub from: P,
    pub to: P,
    pub branch: u8,
}

/// `on_edge(a, w, b)`: w lies on a fault-free minimal path from a to b.
pub type OnEdge<'a> = dyn Fn(P, P, P) -> bool + 'a;

/// A virtual tree (Definition 5): edges are minimal paths, not links.
#[derive(Debug, Clone)]
pub struct VirtualTree {
    pub root: P,
    pub edges: Vec<VEdge>,
}

fn le(a: P, b: P) -> bool {
    a.0 <= b.0 && a.1 <= b.1
}

fn dist(a: P, b: P) -> i32 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

impl VirtualTree {
    pub fn new(root: P) -> VirtualTree {
        VirtualTree {
            root,
            edges: Vec::new(),
        }
    }

    /// Step 2(a): the best attachment point for `d` on edges of `branch`
    /// (any branch if `None`): (edge index or None for the bare root, w).
    fn best_w(
        &self,
        d: P,
        branch: Option<u8>,
        eligible: &dyn Fn(P) -> bool,
        on_edge: Option<&OnEdge>,
    ) -> Option<(Option<usize>, P)> {
        if self.edges.is_empty() {
            return (le(self.root, d) && eligible(self.root)).then_some((None, self.root));
        }
        let mut best: Option<(i32, usize, P)> = None;
        for (i, e) in self.edges.iter().enumerate() {
            if branch.is_some_and(|b| b != e.branch) || !le(e.from, d) {
                continue;
            }
            let c = (e.to.0.min(d.0), e.to.1.min(d.1));
            let lo = e.from.0 + e.from.1;
            let mut s = c.0 + c.1;
            'diag: while s >= lo {
                let dd = d.0 + d.1 - s;
                if best.is_some_and(|(bd, _, _)| dd >= bd) {
                    break;
                }
                // Points of [from, c] on anti-diagonal x + y = s.
                let xa = e.from.0.max(s - c.1);
                let xb = c.0.min(s - e.from.1);
                for x in (xa..=xb).rev() {
                    let w = (x, s - x);
                    if eligible(w) && on_edge.is_none_or(|f| f(e.from, w, e.to)) {
                        best = Some((dd, i, w));
                        break 'diag;
                    }
                }
                s -= 1;
            }
        }
        best.map(|(_, i, w)| (Some(i), w))
    }

    /// Inserts `d` (steps 2(a)–(d)); returns the branch it joined, or `None`
    /// when no eligible point exists on the allowed edges (nothing is added).
    pub fn insert(&mut self, d: P, branch: Option<u8>, eligible: &dyn Fn(P) -> bool) -> Option<u8> {
        self.insert_checked(d, branch, eligible, None)
    }

    /// [`VirtualTree::insert`] that also requires the split point to lie on
    /// a fault-free minimal path of the edge it splits, so every edge of the
    /// result stays a virtual edge (Definition 5) in the faulty mesh.
    pub fn insert_checked(
        &mut self,
        d: P,
        branch: Option<u8>,
        eligible: &dyn Fn(P) -> bool,
        on_edge: Option<&OnEdge>,
    ) -> Option<u8> {
        let (edge, w) = self.best_w(d, branch, eligible, on_edge)?;
        let br = match edge {
            None => branch.unwrap_or(0),
            Some(i) => {
                let e = self.edges[i];
                if w != e.from && w != e.to {
                    self.edges[i] = VEdge {
                        from: e.from,
                        to: w,
                        branch: e.branch,
                    };
                    self.edges.push(VEdge {
                        from: w,
                        to: e.to,
                        branch: e.branch,
                    });
                }
                e.branch
            }
        };
        if w != d {
            self.edges.push(VEdge {
                from: w,
                to: d,
                branch: br,
            });
        }
        Some(br)
    }

    /// Total length of the virtual edges (the traffic of the tree if every
    /// virtual edge is realised by one minimal path).
    pub fn traffic(&self) -> u32 {
        self.edges.iter().map(|e| dist(e.from, e.to) as u32).sum()
    }
}
