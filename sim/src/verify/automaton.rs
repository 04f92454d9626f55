//! The worm-shape automaton: every way a worm of a scheme can pass through a
//! router, as a finite graph of *visits*, without naming destination sets.
//!
//! A visit is (router, input it arrived on, a small scheme tag such as the
//! tree class and up/down phase). At each visit the worm's header requests
//! one of a few *options*: a set of outputs (link channels and consumption
//! pools) reserved atomically (docs/architecture.md §3, all-or-nothing). Any
//! non-empty subset of an option may be what a real worm asks for, so an
//! option lists the most a worm can ask there; two outputs of one option
//! may be held by the same worm at once (replication). Each link output
//! leads to the visit the worm makes at the next router.
//!
//! Why visits and not destinations: the number of destination sets grows
//! exponentially, but the set of places a header can be, and what it can
//! ask there, is small and follows from the routing relation and the
//! source-side scheme ("do not enumerate destination sets").
//! Every real worm is a tree of visits in this automaton; the converse need
//! not hold, which makes the analysis an over-approximation: it may find a
//! cycle no real worms close (reported as "unconfirmed"), never miss one.

use crate::topology::{Dir, NodeId};
use std::collections::HashMap;

/// The input a header arrived on at a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    /// A link port, named by the direction of the port at this router.
    Link(Dir),
    /// An injection channel of the node's NI.
    Inj,
}

/// A resource a worm holds and another may wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Res {
    /// The directed link channel leaving `node` by port `dir` (its output
    /// register and the far input buffer: one owner from reservation to TAIL).
    Link(NodeId, Dir),
    /// A consumption pool at `node`: a bit mask over its consumption
    /// channels (`RouterParams::consumption_pool`); pools of one router are
    /// either equal or disjoint, so the mask names the resource.
    Cons(NodeId, u8),
}

impl Res {
    pub fn node(self) -> NodeId {
        match self {
            Res::Link(n, _) | Res::Cons(n, _) => n,
        }
    }
}

/// Index of a visit.
pub type VisitId = u32;

/// One way a header can be at a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Visit {
    pub node: NodeId,
    pub input: Input,
    /// Scheme-specific state (class, phase); named by `Automaton::tag_name`.
    pub tag: u16,
}

/// An output a visit may request, and where a link output leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Out {
    pub res: Res,
    pub next: Option<VisitId>,
}

/// The automaton of one configuration.
#[derive(Debug, Clone, Default)]
pub struct Automaton {
    pub visits: Vec<Visit>,
    /// Per visit: its request options (see the module documentation).
    pub options: Vec<Vec<Vec<Out>>>,
    /// Visits where worms start (injection at their source).
    pub roots: Vec<VisitId>,
    /// Names of the tags, indexed by tag.
    pub tag_names: Vec<String>,
    index: HashMap<Visit, VisitId>,
}

impl Automaton {
    pub fn new(tag_names: Vec<String>) -> Automaton {
        Automaton {
            tag_names,
            ..Automaton::default()
        }
    }

    /// The id of `v`, created (with no options) on first use.
    pub fn visit(&mut self, v: Visit) -> VisitId {
        if let Some(&id) = self.index.get(&v) {
            return id;
        }
        let id = self.visits.len() as VisitId;
        self.visits.push(v);
        self.options.push(Vec::new());
        self.index.insert(v, id);
        id
    }

    /// Looks a visit up without creating it.
    pub fn find(&self, v: &Visit) -> Option<VisitId> {
        self.index.get(v).copied()
    }

    /// Adds a request option to `v`; an empty option is ignored.
    pub fn option(&mut self, v: VisitId, outs: Vec<Out>) {
        if !outs.is_empty() {
            self.options[v as usize].push(outs);
        }
    }

    pub fn root(&mut self, v: VisitId) {
        self.roots.push(v);
    }

    /// Every distinct resource `v` may request.
    pub fn requests(&self, v: VisitId) -> Vec<Res> {
        let mut r: Vec<Res> = self.options[v as usize]
            .iter()
            .flatten()
            .map(|o| o.res)
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    }

    /// Per visit: the visits that lead to it, with the option and output.
    pub fn predecessors(&self) -> Vec<Vec<(VisitId, u16, u16)>> {
        let mut p = vec![Vec::new(); self.visits.len()];
        for (v, opts) in self.options.iter().enumerate() {
            for (oi, opt) in opts.iter().enumerate() {
                for (k, o) in opt.iter().enumerate() {
                    if let Some(n) = o.next {
                        p[n as usize].push((v as VisitId, oi as u16, k as u16));
                    }
                }
            }
        }
        p
    }

    /// A shortest chain of visits from some root to `target` (inclusive),
    /// following link outputs; `None` if no worm can reach it.
    pub fn path_from_root(&self, target: VisitId) -> Option<Vec<VisitId>> {
        let preds = self.predecessors();
        let mut from: HashMap<VisitId, VisitId> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([target]);
        let mut seen = vec![false; self.visits.len()];
        seen[target as usize] = true;
        let is_root: std::collections::HashSet<VisitId> = self.roots.iter().copied().collect();
        while let Some(v) = queue.pop_front() {
            if is_root.contains(&v) {
                let mut path = vec![v];
                let mut cur = v;
                while let Some(&nx) = from.get(&cur) {
                    path.push(nx);
                    cur = nx;
                }
                return Some(path);
            }
            for &(p, _, _) in &preds[v as usize] {
                if !seen[p as usize] {
                    seen[p as usize] = true;
                    from.insert(p, v);
                    queue.push_back(p);
                }
            }
        }
        None
    }

    /// Human-readable name of a visit's tag.
    pub fn tag_name(&self, v: VisitId) -> &str {
        &self.tag_names[self.visits[v as usize].tag as usize]
    }
}
