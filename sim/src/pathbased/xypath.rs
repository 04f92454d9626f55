//! XY-path multicast (\[THESIS\] §3.3.3):
//! Algorithm 3.3.1 partitions the mesh into two guiding paths X (running
//! along rows) and Y (along columns) joined only at the source (0,0);
//! Algorithm 3.3.2 routes one worm per guiding path through that path's
//! destinations in path order, with R restricted to the path's own nodes
//! (eq. 3.3.1: the neighbour p of u with the largest `L(p)`,
//! `L(u) < L(p) ≤ L(v)`).
//!
//! Analytic model (eqs. 4.3.1–4.3.2): time = max(dx, dy) + L, traffic =
//! dx + dy, where dx, dy are the hop lengths of the two worms
//! ([`PathMulticast::time_with_message`], [`PathMulticast::traffic`]).
//!
//! Partition details (docs/references.md §B2, docs/decisions.md):
//! * the source is the origin (0,0); X starts along row 0 toward +x, Y along
//!   column 0 toward +y, and Y moves first, as in the worked Example 3.3.1;
//! * a path advances one node at a time along its axis, and makes a U-turn
//!   (one step to the next row / column, then the opposite direction) when
//!   the next node is off the mesh or owned by a path; it is finished when the
//!   U-turn step is impossible too;
//! * X hands over to Y when its last node ends a +x run at x = K−1 and X is
//!   longer than Y; Y hands over to X when its last node ends a +y run at
//!   y = M−1 and Y is longer than X;
//! * the guard against the literal text's endless loop: a path never hands
//!   over to a finished path, and a finished path always hands over.

use super::worm::{check_request, PathMulticast, PathWorm};
use crate::error::{InputError, InputResult};
use crate::topology::{Dir, NodeId, Topology};

/// Guiding path X (rows).
pub const PATH_X: u8 = 0;
/// Guiding path Y (columns).
pub const PATH_Y: u8 = 1;

/// The two guiding paths of a mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XyPartition {
    pub topo: Topology,
    /// Node sequences, both starting at the source (0,0).
    pub paths: [Vec<NodeId>; 2],
    /// Which path owns each node (the source belongs to both; stored as X).
    pub owner: Vec<u8>,
    /// Position of each node on its owner's path (0 for the source).
    pub label: Vec<u32>,
}

struct Runner {
    nodes: Vec<NodeId>,
    dir: i64,
    done: bool,
}

impl XyPartition {
    /// Algorithm 3.3.1 on a mesh (source at the origin).
    pub fn new(topo: &Topology) -> InputResult<XyPartition> {
        if topo.is_torus() {
            return Err(InputError::new(
                "topology",
                topo,
                "XY-path needs a mesh (`mesh:KxM`)",
            ));
        }
        let (k, m) = (topo.k as i64, topo.m as i64);
        const FREE: u8 = u8::MAX;
        let mut owner = vec![FREE; topo.nodes() as usize];
        owner[0] = PATH_X;
        let mut run = [
            Runner {
                nodes: vec![0],
                dir: 1,
                done: false,
            },
            Runner {
                nodes: vec![0],
                dir: 1,
                done: false,
            },
        ];
        // Coordinates in (along, across) for each path.
        let at = |p: usize, a: i64, b: i64| -> Option<NodeId> {
            let (x, y) = if p == 0 { (a, b) } else { (b, a) };
            (x >= 0 && y >= 0 && x < k && y < m).then(|| topo.id(x as u32, y as u32))
        };
        let split = |p: usize, n: NodeId| -> (i64, i64) {
            let (x, y) = topo.coord(n);
            if p == 0 {
                (x as i64, y as i64)
            } else {
                (y as i64, x as i64)
            }
        };
        let along_max = |p: usize| if p == 0 { k - 1 } else { m - 1 };
        let mut turn = 1usize; // Y first, as in Example 3.3.1
        loop {
            if run[0].done && run[1].done {
                break;
            }
            let p = turn;
            let q = 1 - p;
            if run[p].done {
                turn = q;
                continue;
            }
            let v = *run[p].nodes.last().unwrap();
            let (a, b) = split(p, v);
            if a == along_max(p)
                && run[p].dir == 1
                && run[p].nodes.len() > run[q].nodes.len()
                && !run[q].done
            {
                turn = q;
                continue;
            }
            let free = |n: Option<NodeId>| n.filter(|&n| owner[n as usize] == FREE);
            if let Some(u) = free(at(p, a + run[p].dir, b)) {
                owner[u as usize] = p as u8;
                run[p].nodes.push(u);
            } else if let Some(u) = free(at(p, a, b + 1)) {
                owner[u as usize] = p as u8;
                run[p].nodes.push(u);
                run[p].dir = -run[p].dir;
            } else {
                run[p].done = true;
            }
        }
        let mut label = vec![0; owner.len()];
        for r in &run {
            for (i, &n) in r.nodes.iter().enumerate() {
                label[n as usize] = i as u32;
            }
        }
        let [x, y] = run;
        Ok(XyPartition {
            topo: *topo,
            paths: [x.nodes, y.nodes],
            owner,
            label,
        })
    }

    /// Whether every node lies on exactly one path (the source on both).
    pub fn covers_mesh(&self) -> bool {
        self.paths[0].len() + self.paths[1].len() == self.topo.nodes() as usize + 1
    }

    /// Eq. 3.3.1: next node from `u` toward `v` on path `p` (`u` before `v`).
    pub fn r_next(&self, p: u8, u: NodeId, v: NodeId) -> NodeId {
        let (lu, lv) = (self.label[u as usize], self.label[v as usize]);
        Dir::ALL
            .into_iter()
            .filter_map(|d| self.topo.neighbor(u, d))
            .filter(|&w| {
                w != 0 && self.owner[w as usize] == p && {
                    let lw = self.label[w as usize];
                    lu < lw && lw <= lv
                }
            })
            .max_by_key(|&w| self.label[w as usize])
            .expect("the path successor always qualifies")
    }

    /// Route from `u` to `v` on path `p`: nodes after `u`, up to `v`.
    pub fn route(&self, p: u8, u: NodeId, v: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut cur = u;
        while cur != v {
            cur = self.r_next(p, cur, v);
            out.push(cur);
        }
        out
    }

    /// Algorithm 3.3.2: one worm per guiding path holding destinations.
    /// Worm class = path (X → 0, Y → 1).
    pub fn multicast(&self, dests: &[NodeId]) -> InputResult<PathMulticast> {
        check_request(&self.topo, 0, dests)?;
        let mut worms = Vec::new();
        for p in [PATH_X, PATH_Y] {
            let mut ds: Vec<NodeId> = dests
                .iter()
                .copied()
                .filter(|&d| self.owner[d as usize] == p)
                .collect();
            if ds.is_empty() {
                continue;
            }
            ds.sort_by_key(|&d| self.label[d as usize]);
            worms.push(PathWorm::build(&self.topo, p, 0, ds, |a, b| {
                self.route(p, a, b)
            }));
        }
        Ok(PathMulticast { source: 0, worms })
    }
}

/// XY-path multicast from source `s`, which must be the origin (0,0).
pub fn xy_path(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    if s != 0 {
        let (x, y) = topo.coord(s);
        return Err(InputError::new(
            "source",
            format!("{x},{y}"),
            "XY-path starts both guiding paths at the origin 0,0",
        ));
    }
    XyPartition::new(topo)?.multicast(dests)
}
