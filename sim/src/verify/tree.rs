//! Worm shapes of the torus schemes: DSTM up/down tree worms (paper
//! \[DSTM\] §3.1–3.2, any tree construction, Tarjan
//! pairs included) and SPAM (same paper §2 and its ref. \[11\]).
//!
//! DSTM (§3.1): a worm climbs its class's tree from the source (tag `up`),
//! may turn down toward its first HEAD's `Node` or split there (the LCA of
//! its destinations), and below that point moves only down (tag `down`):
//! an up visit may request its parent link, or any set of child links plus
//! the class's consumption pool; a down visit only the latter. Links of
//! other classes never appear, so classes meet only where they share a
//! consumption pool (§3.2: "two consumption channels are needed").
//!
//! Faults (§7): a faulty link is never requested with global information
//! (sources avoid it). With local information the router before it diverts
//! the branch into its own node's consumption pool; the NI takes the whole
//! worm and re-injects its destinations on the good tree as a new worm
//! (`Network::relay`), so the two worms share no resource and the diverted
//! branch is an ordinary consumption.
//!
//! SPAM: the first HEAD follows the per-(target, phase) table, where the
//! phase is that of the arrival port (up, down-cross, down-tree); wherever it
//! reaches its `Node` (the LCA) it may split over the down tree links.

use super::automaton::{Automaton, Input, Out, Res, Visit, VisitId};
use crate::config::{RouterConfig, RouterParams};
use crate::topology::{Dir, NodeId, Topology};
use crate::trees::faults::FaultInfo;
use crate::trees::SpanningTree;

const UP: u16 = 0;
const DOWN: u16 = 1;

/// Whether `node` may send on port `d` in class `class`, and what a branch
/// sent there becomes: the link, or (local fault information) the node's
/// own consumption pool.
fn link_out(cfg: &RouterConfig, d: Dir, class: u8, pool: u8, node: NodeId) -> Option<Res> {
    if cfg.divert_out >> d.index() & 1 == 1 {
        return Some(Res::Cons(node, pool));
    }
    (cfg.out_class[d.index()] == Some(class)).then_some(Res::Link(node, d))
}

/// DSTM tree worms on every class's tree.
pub fn dstm(
    topo: &Topology,
    trees: &[SpanningTree],
    cfgs: &[RouterConfig],
    params: &RouterParams,
    _info: FaultInfo,
) -> Automaton {
    let names = (0..trees.len())
        .flat_map(|c| [format!("tree {c}, up"), format!("tree {c}, down")])
        .collect();
    let mut a = Automaton::new(names);
    for (c, t) in trees.iter().enumerate() {
        let class = c as u8;
        let pool = params.consumption_pool(class);
        let tag = |phase: u16| c as u16 * 2 + phase;
        for u in 0..topo.nodes() {
            let cfg = &cfgs[u as usize];
            // Where a branch sent on `d` arrives, and in which phase.
            let next = |a: &mut Automaton, d: Dir, phase: u16| -> Out {
                match link_out(cfg, d, class, pool, u) {
                    Some(Res::Link(n, d)) => {
                        let v = topo.neighbor(n, d).expect("a classed link has a far end");
                        let id = a.visit(Visit {
                            node: v,
                            input: Input::Link(d.opposite()),
                            tag: tag(phase),
                        });
                        Out {
                            res: Res::Link(n, d),
                            next: Some(id),
                        }
                    }
                    Some(r) => Out { res: r, next: None },
                    None => unreachable!("filtered by the caller"),
                }
            };
            let usable = |d: Dir| link_out(cfg, d, class, pool, u).is_some();
            let down_dirs: Vec<Dir> = Dir::ALL
                .into_iter()
                .filter(|&d| t.child_ports[u as usize][d.index()] && usable(d))
                .collect();
            let down_option = |a: &mut Automaton| -> Vec<Out> {
                let mut o: Vec<Out> = down_dirs.iter().map(|&d| next(a, d, DOWN)).collect();
                o.push(Out {
                    res: Res::Cons(u, pool),
                    next: None,
                });
                o
            };
            // Up visits: from the NI, and from every child.
            let mut ups: Vec<VisitId> = vec![a.visit(Visit {
                node: u,
                input: Input::Inj,
                tag: tag(UP),
            })];
            a.root(ups[0]);
            for d in Dir::ALL {
                if t.child_ports[u as usize][d.index()] && cfg.in_class[d.index()] == Some(class) {
                    ups.push(a.visit(Visit {
                        node: u,
                        input: Input::Link(d),
                        tag: tag(UP),
                    }));
                }
            }
            for &v in &ups {
                if let Some(p) = t.parent_port[u as usize].filter(|&p| usable(p)) {
                    let o = next(&mut a, p, UP);
                    a.option(v, vec![o]);
                }
                let mut o = down_option(&mut a);
                if a.visits[v as usize].input == Input::Inj {
                    // A source is never its own destination.
                    o.retain(|x| x.next.is_some());
                }
                a.option(v, o);
            }
            if let Some(p) = t.parent_port[u as usize] {
                if cfg.in_class[p.index()] == Some(class) {
                    let v = a.visit(Visit {
                        node: u,
                        input: Input::Link(p),
                        tag: tag(DOWN),
                    });
                    let o = down_option(&mut a);
                    a.option(v, o);
                }
            }
        }
    }
    a
}

/// SPAM worms: the table route per target and arrival phase, and a split
/// over the down tree links wherever the first HEAD arrives.
pub fn spam(
    topo: &Topology,
    tree: &SpanningTree,
    cfgs: &[RouterConfig],
    params: &RouterParams,
) -> Automaton {
    let mut a = Automaton::new(vec!["spam".into()]);
    let pool = params.consumption_pool(0);
    let n = topo.nodes();
    for u in 0..n {
        let cfg = &cfgs[u as usize];
        let table = cfg.spam.as_ref().expect("SPAM routers carry a SPAM table");
        let mut inputs = vec![Input::Inj];
        inputs.extend(
            Dir::ALL
                .into_iter()
                .filter(|d| cfg.in_class[d.index()].is_some())
                .map(Input::Link),
        );
        for input in inputs {
            let v = a.visit(Visit {
                node: u,
                input,
                tag: 0,
            });
            if input == Input::Inj {
                a.root(v);
            }
            let port = match input {
                Input::Link(d) => d.index(),
                Input::Inj => 4,
            };
            let mut singles = [false; 4];
            for t in 0..n {
                if t == tree.number[u as usize] {
                    continue;
                }
                if let Some(d) = table.route(port, t) {
                    if cfg.out_class[d.index()].is_some() && Input::Link(d) != input {
                        singles[d.index()] = true;
                    }
                }
            }
            let hop = |a: &mut Automaton, d: Dir| -> Out {
                let w = topo.neighbor(u, d).expect("a classed link has a far end");
                let id = a.visit(Visit {
                    node: w,
                    input: Input::Link(d.opposite()),
                    tag: 0,
                });
                Out {
                    res: Res::Link(u, d),
                    next: Some(id),
                }
            };
            for d in Dir::ALL {
                if singles[d.index()] {
                    let o = hop(&mut a, d);
                    a.option(v, vec![o]);
                }
            }
            let mut split: Vec<Out> = Dir::ALL
                .into_iter()
                .filter(|d| {
                    tree.child_ports[u as usize][d.index()] && cfg.out_class[d.index()].is_some()
                })
                .map(|d| hop(&mut a, d))
                .collect();
            if input != Input::Inj {
                split.push(Out {
                    res: Res::Cons(u, pool),
                    next: None,
                });
            }
            a.option(v, split);
        }
    }
    a
}
