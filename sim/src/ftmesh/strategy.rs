//! The three strategies that place the *undetermined* destinations of a
//! separating point in the X-bound or the Y-bound group.
//!
//! \[FTTREE\] §4.2:
//! 1. random (seeded here);
//! 2. X if x_off > y_off, Y if x_off < y_off, "arbitrarily" on a tie — we
//!    take X on a tie (docs/decisions.md, "\[FTTREE\] fault-tolerant trees");
//! 3. greedy: an X-tree and a Y-tree rooted at the separating point, built
//!    with the greedy MT of Definition 6 from the X-bound and the Y-bound
//!    destinations, merged at the root; the undetermined destinations are
//!    then inserted nearest first and each joins the root branch it hangs
//!    under.

use super::greedy::{VEdge, VirtualTree};
use super::regions::P;
use crate::error::{InputError, InputResult};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Strategy {
    /// Strategy 1: random group.
    Random,
    /// Strategy 2: the larger offset decides.
    Offset,
    /// Strategy 3: greedy X-tree / Y-tree.
    Greedy,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Random, Strategy::Offset, Strategy::Greedy];

    /// The paper's number (1, 2, 3).
    pub fn number(self) -> u8 {
        match self {
            Strategy::Random => 1,
            Strategy::Offset => 2,
            Strategy::Greedy => 3,
        }
    }

    pub fn from_number(n: &str) -> InputResult<Strategy> {
        match n.trim() {
            "1" => Ok(Strategy::Random),
            "2" => Ok(Strategy::Offset),
            "3" => Ok(Strategy::Greedy),
            _ => Err(InputError::new(
                "strategy",
                n,
                "1 (random), 2 (offset), 3 (greedy) or `all`",
            )),
        }
    }
}

/// What a strategy sees at a separating point `u`.
pub struct Conflict<'a> {
    pub u: P,
    /// Frame points of all destinations of the multicast.
    pub dests: &'a [P],
    pub x_bound: &'a [usize],
    pub y_bound: &'a [usize],
    pub undetermined: &'a [usize],
    /// Whether destination `i` has a fault-free minimal path from point `w`.
    pub eligible: &'a dyn Fn(usize, P) -> bool,
}

/// Decides each undetermined destination: `true` = X group.
pub type Resolver<'r> = dyn FnMut(&Conflict, &mut ChaCha8Rng) -> Vec<bool> + 'r;

/// The paper's strategies as resolvers.
pub fn resolve(strategy: Strategy, c: &Conflict, rng: &mut ChaCha8Rng) -> Vec<bool> {
    match strategy {
        Strategy::Random => c.undetermined.iter().map(|_| rng.gen_bool(0.5)).collect(),
        Strategy::Offset => c
            .undetermined
            .iter()
            .map(|&i| {
                let d = c.dests[i];
                d.0 - c.u.0 >= d.1 - c.u.1
            })
            .collect(),
        Strategy::Greedy => greedy_groups(c),
    }
}

/// Strategy 3. The two root edges (u, u+X) and (u, u+Y) stand for the first
/// hop of each branch, so a destination hangs under a branch exactly when
/// its first hop is that branch's.
fn greedy_groups(c: &Conflict) -> Vec<bool> {
    let u = c.u;
    let mut t = VirtualTree::new(u);
    t.edges.push(VEdge {
        from: u,
        to: (u.0 + 1, u.1),
        branch: 0,
    });
    t.edges.push(VEdge {
        from: u,
        to: (u.0, u.1 + 1),
        branch: 1,
    });
    let sorted = |ids: &[usize]| {
        let mut v: Vec<(P, usize)> = ids.iter().map(|&i| (c.dests[i], i)).collect();
        v.sort_by_key(|&(d, _)| (d.0 - u.0) + (d.1 - u.1));
        v
    };
    for (group, branch) in [(c.x_bound, 0u8), (c.y_bound, 1u8)] {
        for (d, i) in sorted(group) {
            let el = |w: P| (c.eligible)(i, w);
            if t.insert(d, Some(branch), &el).is_none() {
                // No eligible point on the branch (cannot happen while the
                // routing invariant holds); keep the destination in its group.
                t.edges.push(VEdge {
                    from: (u.0 + 1 - branch as i32, u.1 + branch as i32),
                    to: d,
                    branch,
                });
            }
        }
    }
    let mut side = std::collections::HashMap::new();
    for (d, i) in sorted(c.undetermined) {
        let el = |w: P| w != u && (c.eligible)(i, w);
        let br = t.insert(d, None, &el).unwrap_or({
            // Unreachable from both first hops is impossible for a destination
            // that is reachable from u; fall back to Strategy 2.
            u8::from(d.0 - u.0 < d.1 - u.1)
        });
        side.insert(i, br == 0);
    }
    c.undetermined.iter().map(|i| side[i]).collect()
}
