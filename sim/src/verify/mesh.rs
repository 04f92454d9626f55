//! Worm shapes of the mesh schemes: path-based worms (Hamiltonian dual- and
//! multi-path, \[PATHOPT\] §3; column-path and BRCP on
//! XY and negative-first routing, \[BRCP\] §3–4;
//! the XY-path of \[THESIS\]) and tree worms (the thesis's VH, DIAG, DDS
//! and MIN trees, \[FTTREE\]'s fault-tolerant trees).
//!
//! A header that is not for this router follows the routing function
//! (`router::mesh`) toward its `Node`; every target the function can be
//! asked for gives one single-link option. A header for this router
//! reserves its arrival group's consumption pool (`cons_groups`) and its O
//! links: a path worm at most one link (it absorbs and forwards, \[PATHOPT\]
//! §3), a tree worm any links of its class. The trailing HEAD then arrives
//! at an idle input of the next router and routes again, so every visit is
//! (router, input, class, progress).
//!
//! *Progress* is what keeps a worm from looping back in the model where no
//! real worm can (a worm never reserves one link twice, walker
//! `LinkTwice`), and it is each scheme's own rule:
//! * Hamiltonian worms: none needed; the router's class check keeps a HIGH
//!   worm on label-increasing channels and a LOW worm on decreasing ones.
//! * column-path on XY routing: the worm conforms to XY (\[BRCP\] §4): X
//!   hops of one sign, then Y hops of one sign.
//! * BRCP on negative-first routing (\[BRCP\] §3, base-routing-conformed
//!   paths): no negative hop after a positive one.
//! * tree worms (VH, DIAG, DDS, \[FTTREE\]'s trees) and \[FTTREE\]'s
//!   unicasts: every destination is reached by a minimal path from the
//!   source, so a branch never reverses a direction it has taken.
//! * the thesis's MIN trees (least traffic, branches may turn back) and
//!   XY-path (U-turns): no rule, the model may loop.
//!
//! `sim/tests/verify.rs::conformance` checks them against the worms the
//! encoders really send.

use super::automaton::{Automaton, Input, Out, Res, Visit};
use crate::config::mesh_table::{address, address_space, node_of_address};
use crate::config::{RouterConfig, RouterParams};
use crate::topology::{Dir, Topology};

/// A scheme's progress rule (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    None,
    Xy,
    NegativeFirst,
    Minimal,
}

/// Progress state: the sign taken in X and in Y (0 none, 1 +, 2 −).
const STATES: u16 = 9;

/// The state after a hop by `d` from state `s`, or `None` if `rule` forbids it.
fn advance(rule: Progress, s: u16, d: Dir) -> Option<u16> {
    let (xs, ys) = (s / 3, s % 3);
    let sign = if matches!(d, Dir::XPlus | Dir::YPlus) {
        1
    } else {
        2
    };
    let is_x = matches!(d, Dir::XPlus | Dir::XMinus);
    let (nx, ny) = if is_x { (sign, ys) } else { (xs, sign) };
    let ok = match rule {
        Progress::None => return Some(0),
        Progress::Xy => {
            if is_x {
                ys == 0 && (xs == 0 || xs == sign)
            } else {
                ys == 0 || ys == sign
            }
        }
        // The state only records whether a positive hop was taken (xs = 1).
        Progress::NegativeFirst => {
            return if sign == 1 {
                Some(3)
            } else if xs == 1 {
                None
            } else {
                Some(0)
            }
        }
        Progress::Minimal => {
            if is_x {
                xs == 0 || xs == sign
            } else {
                ys == 0 || ys == sign
            }
        }
    };
    ok.then_some(nx * 3 + ny)
}

/// `tree_worms`: the scheme sends worms that split over several links.
pub fn automaton(
    topo: &Topology,
    cfgs: &[RouterConfig],
    params: &RouterParams,
    tree_worms: bool,
    rule: Progress,
    excluded: &dyn Fn(u32) -> bool,
) -> Automaton {
    let kind = params.routing;
    let classes = kind.mesh_classes();
    let sign = ["", "+", "-"];
    let names = (0..classes as u16 * STATES)
        .map(|t| {
            let (c, s) = (t / STATES, t % STATES);
            let class = if classes == 2 {
                ["high channels", "low channels"][c as usize].to_string()
            } else {
                format!("{} class {c}", kind.name())
            };
            match rule {
                Progress::None => class,
                Progress::NegativeFirst => {
                    class
                        + if s / 3 == 1 {
                            ", positive phase"
                        } else {
                            ", negative phase"
                        }
                }
                _ => format!(
                    "{class}, moved x{} y{}",
                    sign[(s / 3) as usize],
                    sign[(s % 3) as usize]
                ),
            }
        })
        .collect();
    let mut a = Automaton::new(names);
    let space = address_space(kind, topo);
    let targets: Vec<u32> = (0..space)
        .filter(|&t| node_of_address(kind, topo, t).is_some_and(|n| !excluded(n)))
        .collect();
    // What a router offers a header of `class` that arrived on `input`:
    // the routing function's ports toward some target, its consumption
    // pool, and the links of the class.
    let offer = |u: u32, input: Input, class: u8| -> ([bool; 4], Out, Vec<Dir>) {
        let cfg = &cfgs[u as usize];
        let mc = cfg
            .mesh
            .as_ref()
            .expect("mesh routers carry mesh constants");
        let own = address(kind, topo, u);
        let links: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|d| cfg.out_class[d.index()] == Some(class))
            .collect();
        let mut singles = [false; 4];
        for &t in &targets {
            if t == own {
                continue;
            }
            if let Ok(Some(d)) = mc.route(kind, t) {
                if links.contains(&d) && Input::Link(d) != input {
                    singles[d.index()] = true;
                }
            }
        }
        let g = match input {
            Input::Link(d) => mc.cons_group[d.index()],
            Input::Inj => 0,
        };
        let cons = Out {
            res: Res::Cons(u, params.pool_of(g, mc.groups as usize)),
            next: None,
        };
        (singles, cons, links)
    };
    let mut queue = std::collections::VecDeque::new();
    for u in (0..topo.nodes()).filter(|&u| !excluded(u)) {
        for class in 0..classes as u16 {
            let v = a.visit(Visit {
                node: u,
                input: Input::Inj,
                tag: class * STATES,
            });
            a.root(v);
            queue.push_back(v);
        }
    }
    let mut offers = std::collections::HashMap::new();
    while let Some(v) = queue.pop_front() {
        let Visit {
            node: u,
            input,
            tag,
        } = a.visits[v as usize];
        let (class, st) = ((tag / STATES) as u8, tag % STATES);
        let (singles, cons, links) = offers
            .entry((u, input, class))
            .or_insert_with(|| offer(u, input, class))
            .clone();
        let mut hop = |a: &mut Automaton, d: Dir| -> Option<Out> {
            let ns = advance(rule, st, d)?;
            let w = topo.neighbor(u, d).expect("a classed link has a far end");
            let before = a.visits.len();
            let id = a.visit(Visit {
                node: w,
                input: Input::Link(d.opposite()),
                tag: class as u16 * STATES + ns,
            });
            if a.visits.len() > before {
                queue.push_back(id);
            }
            Some(Out {
                res: Res::Link(u, d),
                next: Some(id),
            })
        };
        for d in Dir::ALL.into_iter().filter(|d| singles[d.index()]) {
            if let Some(o) = hop(&mut a, d) {
                a.option(v, vec![o]);
            }
        }
        // A header for this router: never the source's own consumption (a
        // source is not its own destination). Its O links may leave by the
        // arrival port (pure BRCP turns back through nodes it passed); the
        // progress rule alone decides.
        let own_cons = (input != Input::Inj).then_some(cons);
        let fwd: Vec<Out> = links.iter().filter_map(|&d| hop(&mut a, d)).collect();
        if tree_worms {
            let mut o = fwd;
            o.extend(own_cons);
            a.option(v, o);
        } else {
            a.option(v, own_cons.into_iter().collect());
            for o in fwd {
                a.option(v, own_cons.into_iter().chain([o]).collect());
            }
        }
    }
    a
}
