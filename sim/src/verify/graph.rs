//! The extended dependency graph of a worm-shape automaton, and its cycles.
//!
//! Vertices (docs/verify.md §2 gives the soundness argument):
//! * `Blocked(v)`: a header waits at visit `v` for an output it requested.
//! * `Held(u)`: the output it waits for is held by another worm that
//!   reserved it at visit `u`, having arrived on a *different* input. That
//!   output is released once the holder's TAIL passes it, which needs the
//!   holder's flits to move both below `u` and, through coordinated flow
//!   control at every split point above `u`, in the sibling branches there.
//! * `Below(u, o)`: a blocked header of the holder below the outputs of
//!   option `o` at `u` (all of them: the TAIL leaves `u`'s input only when
//!   every reserved output takes it).
//! * `Under(u)`: a blocked header at `u` or anywhere below it.
//!
//! The same-input rule: when holder and waiter arrived on the *same* input,
//! the holder's TAIL has already left that input (an input buffer holds one
//! worm after another), so it has passed every split point above and sits
//! in the output registers: an awaited consumption channel drains (sinks
//! always do), an awaited link waits only on what lies past that link. This
//! is what keeps a tree's sibling branches from looking like a cycle.
//! * `Side(u)`: a blocked header in a sibling branch of a split point above
//!   `u`.
//!
//! A deadlock is a set of worms each waiting for one another; following
//! "waits for a resource held by a worm whose release waits on its blocked
//! header at ..." from any of them must revisit a vertex, so every deadlock
//! lies on a cycle through `Blocked` vertices. No such cycle: no deadlock.

use super::automaton::{Automaton, Input, Res, VisitId};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vertex {
    /// A header waits at this visit.
    Blocked(VisitId),
    /// The holder reserved the awaited output at this visit with this
    /// option, having arrived on another input than the waiter.
    Held(VisitId, u16),
    /// A blocked header of the holder below the outputs of this option.
    Below(VisitId, u16),
    /// A blocked header at this visit or anywhere below it.
    Under(VisitId),
    /// A blocked header in a sibling branch of a split point above.
    Side(VisitId),
}

/// The edge from a waiter to a holder carries the resource waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Waits for this resource, reserved by the holder at this visit.
    Waits(Res, VisitId),
    Then,
}

pub struct DepGraph {
    pub g: DiGraph<Vertex, Edge>,
}

/// Builds the graph. `single_injection`: the node has one injection
/// channel, so the same-input rule applies to injection inputs too.
pub fn build(a: &Automaton, single_injection: bool) -> DepGraph {
    let n = a.visits.len();
    // Vertex layout per visit: Blocked, Under, Side, then Held/Below per option.
    let mut base = Vec::with_capacity(n + 1);
    let mut total = 0usize;
    for v in 0..n {
        base.push(total);
        total += 3 + 2 * a.options[v].len();
    }
    let mut g = DiGraph::with_capacity(total, 3 * total);
    for v in 0..n as VisitId {
        g.add_node(Vertex::Blocked(v));
        g.add_node(Vertex::Under(v));
        g.add_node(Vertex::Side(v));
        for o in 0..a.options[v as usize].len() as u16 {
            g.add_node(Vertex::Held(v, o));
            g.add_node(Vertex::Below(v, o));
        }
    }
    let blocked = |v: usize| NodeIndex::new(base[v]);
    let under = |v: usize| NodeIndex::new(base[v] + 1);
    let side = |v: usize| NodeIndex::new(base[v] + 2);
    let held = |v: usize, o: usize| NodeIndex::new(base[v] + 3 + 2 * o);
    let below = |v: usize, o: usize| NodeIndex::new(base[v] + 4 + 2 * o);
    // Who may hold each resource: the (visit, option) pairs that reserve it.
    let mut grants: HashMap<Res, Vec<(VisitId, usize)>> = HashMap::new();
    for v in 0..n {
        for (oi, opt) in a.options[v].iter().enumerate() {
            for o in opt {
                let e = grants.entry(o.res).or_default();
                if e.last() != Some(&(v as VisitId, oi)) {
                    e.push((v as VisitId, oi));
                }
            }
        }
    }
    let same_input_rule = |i: Input| match i {
        Input::Link(_) => true,
        Input::Inj => single_injection,
    };
    for v in 0..n {
        let vi = a.visits[v];
        for r in a.requests(v as VisitId) {
            for &(u, oi) in &grants[&r] {
                let ui = a.visits[u as usize];
                let same = ui.node == vi.node && ui.input == vi.input && same_input_rule(vi.input);
                if !same {
                    g.add_edge(blocked(v), held(u as usize, oi), Edge::Waits(r, u));
                    continue;
                }
                // The holder's TAIL has left this input, so it is in the
                // output registers: a consumption channel drains (sinks
                // always do) and a link waits only on what lies past it.
                for o in &a.options[u as usize][oi] {
                    if let (true, Some(nx)) = (o.res == r, o.next) {
                        g.add_edge(blocked(v), under(nx as usize), Edge::Waits(r, u));
                    }
                }
            }
        }
        g.add_edge(under(v), blocked(v), Edge::Then);
        for (oi, opt) in a.options[v].iter().enumerate() {
            g.add_edge(held(v, oi), below(v, oi), Edge::Then);
            g.add_edge(held(v, oi), side(v), Edge::Then);
            g.add_edge(under(v), below(v, oi), Edge::Then);
            for o in opt {
                if let Some(nx) = o.next {
                    g.add_edge(below(v, oi), under(nx as usize), Edge::Then);
                }
            }
        }
    }
    for (u, preds) in a.predecessors().into_iter().enumerate() {
        let mut seen = HashSet::new();
        for (p, oi, k) in preds {
            if seen.insert((p, u32::MAX)) {
                g.add_edge(side(u), side(p as usize), Edge::Then);
            }
            for (k2, o2) in a.options[p as usize][oi as usize].iter().enumerate() {
                if k2 == k as usize {
                    continue;
                }
                if let Some(n2) = o2.next {
                    if seen.insert((n2, 0)) {
                        g.add_edge(side(u), under(n2 as usize), Edge::Then);
                    }
                }
            }
        }
    }
    DepGraph { g }
}

/// One link of a dependency cycle: a header blocked at `waiter` waits for
/// `res`, held by a worm that reserved it at `grant` and is itself held
/// back by its header blocked at the next step's waiter. `via` lists the
/// vertices between, which say how (below `grant`, or in a sibling branch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub waiter: VisitId,
    pub res: Res,
    pub grant: VisitId,
    pub via: Vec<Vertex>,
}

/// A strongly connected component with a cycle through a blocked header.
pub struct Component {
    pub members: HashSet<NodeIndex>,
    /// Its `Blocked` vertices, in index order: each lies on a cycle.
    pub blocked: Vec<NodeIndex>,
}

/// The components of the graph that hold a dependency cycle.
pub fn components(dg: &DepGraph) -> Vec<Component> {
    let mut out: Vec<Component> = petgraph::algo::tarjan_scc(&dg.g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .filter_map(|comp| {
            let mut blocked: Vec<NodeIndex> = comp
                .iter()
                .copied()
                .filter(|&x| matches!(dg.g[x], Vertex::Blocked(_)))
                .collect();
            blocked.sort_unstable();
            (!blocked.is_empty()).then(|| Component {
                members: comp.into_iter().collect(),
                blocked,
            })
        })
        .collect();
    out.sort_by_key(|c| c.blocked[0]);
    out
}

/// A shortest cycle through `start` inside its component, as steps.
pub fn cycle_through(dg: &DepGraph, start: NodeIndex, members: &HashSet<NodeIndex>) -> Vec<Step> {
    use petgraph::visit::EdgeRef;
    let mut from: HashMap<NodeIndex, (NodeIndex, Edge)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut end = None;
    'bfs: while let Some(x) = queue.pop_front() {
        for e in dg.g.edges(x) {
            let y = e.target();
            if !members.contains(&y) {
                continue;
            }
            if y == start {
                end = Some((x, *e.weight()));
                break 'bfs;
            }
            if let std::collections::hash_map::Entry::Vacant(s) = from.entry(y) {
                s.insert((x, *e.weight()));
                queue.push_back(y);
            }
        }
    }
    let (last, w) = end.expect("every vertex of a strongly connected component lies on a cycle");
    steps_of(dg, &[path_to(&from, start, last, w)])
}

/// The waits one blocked header can lead to directly: every `Blocked`
/// vertex reachable from `start` through non-`Blocked` vertices of the
/// component, each with the path to it (breadth-first, so the shortest).
pub fn next_waits(
    dg: &DepGraph,
    start: NodeIndex,
    members: &HashSet<NodeIndex>,
) -> Vec<(NodeIndex, Vec<(NodeIndex, Edge)>)> {
    use petgraph::visit::EdgeRef;
    let mut from: HashMap<NodeIndex, (NodeIndex, Edge)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut out = Vec::new();
    while let Some(x) = queue.pop_front() {
        for e in dg.g.edges(x) {
            let y = e.target();
            if !members.contains(&y) || from.contains_key(&y) || y == start {
                if y == start && !out.iter().any(|(b, _)| *b == start) {
                    out.push((start, path_to(&from, start, x, *e.weight())));
                }
                continue;
            }
            from.insert(y, (x, *e.weight()));
            if matches!(dg.g[y], Vertex::Blocked(_)) {
                out.push((y, path_to(&from, start, x, *e.weight())));
            } else {
                queue.push_back(y);
            }
        }
    }
    out
}

/// The path `start .. last` followed by the edge `last -> target`, as
/// (vertex, edge leaving it).
fn path_to(
    from: &HashMap<NodeIndex, (NodeIndex, Edge)>,
    start: NodeIndex,
    last: NodeIndex,
    e: Edge,
) -> Vec<(NodeIndex, Edge)> {
    let mut rev = vec![(last, e)];
    let mut cur = last;
    while cur != start {
        let (p, pe) = from[&cur];
        rev.push((p, pe));
        cur = p;
    }
    rev.reverse();
    rev
}

/// Steps of a cycle given as consecutive (vertex, edge leaving it) runs.
pub fn steps_of(dg: &DepGraph, runs: &[Vec<(NodeIndex, Edge)>]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for (x, e) in runs.iter().flatten() {
        match (dg.g[*x], *e) {
            (Vertex::Blocked(v), Edge::Waits(r, u)) => steps.push(Step {
                waiter: v,
                res: r,
                grant: u,
                via: Vec::new(),
            }),
            (vx, _) => steps
                .last_mut()
                .expect("a run starts at a blocked vertex")
                .via
                .push(vx),
        }
    }
    steps
}
