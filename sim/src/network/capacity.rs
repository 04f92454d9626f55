//! A bound on the load a network can accept, computed before a run so the
//! command line can warn when the offered load is far past it
//! (docs/decisions.md, "Overload warning"). A run past saturation does not
//! fail: its source queues grow, its latency is the length of the run,
//! and on a large network it can take hours and all memory before it says
//! so. The bound is an upper bound on the saturation rate (the real
//! network saturates below it), so a load above it is certainly overload.
//!
//! Four bounds, the smallest wins, each in messages per node per cycle for
//! the scenario's own mix (unicast share, multicast destination count,
//! message length):
//! * **tree links** (tree routing): every message stays on one spanning
//!   tree; the trees share the messages evenly. A tree link whose removal
//!   splits the nodes into `s` and `N − s` carries, in each direction,
//!   every message from one side with a destination on the other: a
//!   unicast with probability `(N − s)/(N − 1)`, a multicast to `d`
//!   uniform destinations with `1 − C(s − 1, d)/C(N − 1, d)`.
//! * **bisection** (every routing): the cut across the longer side; the
//!   messages from one half with a destination in the other must cross
//!   its `2·M` (torus) or `M` (mesh) channels per direction.
//! * **injection**: an NI sends at most `injection_channels` flits a cycle.
//! * **consumption**: an NI takes at most `consumption_channels` flits a
//!   cycle, and a node receives `1 − f + f·d` deliveries per message sent.
//!
//! Every link direction carries at most one flit a cycle. A message costs
//! its mean data flits plus one header flit (multicast headers are longer:
//! leaving them out lowers the load counted, so the bound stays an upper
//! one). Only uniform random traffic of an open loop is estimated
//! (`pattern = "poisson"`, `unicast` and `multicast` `uniform`, no
//! `window`, no faulty nodes): permutations, hot spots and local
//! multicasts load the links differently, and a closed loop throttles
//! itself.

use crate::config::RoutingKind;
use crate::network::multicast::MulticastModel;
use crate::network::patterns::UnicastPattern;
use crate::scenario::{Pattern, Scenario, Validated};
use crate::trees::SpanningTree;

/// The smallest bound and what set it.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    /// Messages per node per cycle.
    pub rate: f64,
    /// The bound in words, e.g. `tree link (3,4)-(4,4) of tree 0, 2048 and
    /// 2048 nodes on its sides`.
    pub bound: String,
}

/// The traffic mix as the bounds need it.
struct Mix {
    nodes: f64,
    /// Multicast share.
    f: f64,
    /// Mean multicast destination count.
    d: f64,
    /// Flits per message (mean data flits plus one header).
    flits: f64,
}

impl Mix {
    /// Probability that a message from a node on a side of `a` nodes has a
    /// destination among the `b` others.
    fn crosses(&self, a: f64, b: f64) -> f64 {
        let n1 = self.nodes - 1.0;
        let unicast = b / n1;
        // No destination among the b others: every draw (without
        // replacement, rounded mean count) stays on the own side's a − 1.
        let d = self.d.round().max(1.0) as u64;
        let mut none = 1.0;
        for i in 0..d {
            let i = i as f64;
            none *= ((a - 1.0 - i) / (n1 - i)).max(0.0);
        }
        (1.0 - self.f) * unicast + self.f * (1.0 - none)
    }
}

/// The bound for `sc` (validated as `v`; `trees` as the network built
/// them), or `None` when its traffic is not one the estimate covers.
pub fn estimate(sc: &Scenario, v: &Validated, trees: &[SpanningTree]) -> Option<Capacity> {
    let t = &sc.traffic;
    let covered = v.pattern == Pattern::Poisson
        && t.rate > 0.0
        && t.window == 0
        && t.unicast == UnicastPattern::Uniform
        && t.multicast == MulticastModel::Uniform
        && sc.network.faulty_nodes.is_empty();
    let nodes = v.topo.nodes() as f64;
    if !covered || nodes < 2.0 {
        return None;
    }
    let data = (t.length as f64 + t.length_max.max(t.length) as f64) / 2.0;
    let mix = Mix {
        nodes,
        f: t.multicast_fraction,
        d: (v.dest_range.0 as f64 + v.dest_range.1 as f64) / 2.0,
        flits: data + 1.0,
    };
    // Flits a cycle per unit rate on the busiest channel of each bound.
    let mut bounds: Vec<(f64, String)> = Vec::new();
    bounds.push((
        mix.flits / v.params.injection as f64,
        format!("injection ({} channel per node)", v.params.injection),
    ));
    let deliveries = (1.0 - mix.f) + mix.f * mix.d;
    bounds.push((
        deliveries * mix.flits / v.params.consumption as f64,
        format!(
            "consumption ({} channels per node, {deliveries:.2} deliveries per message)",
            v.params.consumption
        ),
    ));
    let (long, short) = (v.topo.k.max(v.topo.m) as f64, v.topo.k.min(v.topo.m) as f64);
    let a = (long / 2.0).floor() * short;
    let channels = if v.topo.is_torus() && long > 2.0 {
        2.0 * short
    } else {
        short
    };
    let b = nodes - a;
    let cut = (a * mix.crosses(a, b)).max(b * mix.crosses(b, a)) * mix.flits / channels;
    bounds.push((cut, format!("bisection ({channels} channels each way)")));
    if v.params.routing == RoutingKind::Tree && !trees.is_empty() {
        let share = 1.0 / trees.len() as f64;
        let mut worst = (0.0, String::new());
        for (i, tr) in trees.iter().enumerate() {
            for u in 0..v.topo.nodes() {
                if tr.parent[u as usize].is_none() {
                    continue;
                }
                let s = (tr.number[u as usize] - tr.low[u as usize] + 1) as f64;
                let up = s * mix.crosses(s, nodes - s);
                let down = (nodes - s) * mix.crosses(nodes - s, s);
                let load = up.max(down) * share * mix.flits;
                if load > worst.0 {
                    let p = tr.parent[u as usize].unwrap_or(u);
                    let (x, y) = v.topo.coord(u);
                    let (px, py) = v.topo.coord(p);
                    worst = (
                        load,
                        format!(
                            "tree link ({x},{y})-({px},{py}) of tree {i}, {s} and {} nodes on its sides",
                            nodes - s
                        ),
                    );
                }
            }
        }
        bounds.push(worst);
    }
    let (load, bound) = bounds
        .into_iter()
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .expect("bounds");
    Some(Capacity {
        rate: 1.0 / load,
        bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(sets: &[&str]) -> Capacity {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let sc = Scenario::from_toml("", &sets, "t").unwrap();
        let net = crate::network::Network::new(&sc).unwrap();
        estimate(&sc, &net.v, &net.trees).unwrap()
    }

    /// The bound lies above the measured saturation rates of the bench
    /// scenarios (examples/bench-*: 16×16 about 0.00066, 32×32 about
    /// 0.00017) but within a small factor of them, and a tree link sets it.
    #[test]
    fn bound_is_above_the_measured_saturation() {
        for (topo, sat) in [("torus:16x16", 0.00066), ("torus:32x32", 0.00017)] {
            let c = cap(&[&format!("network.topology={topo}")]);
            assert!(c.rate > sat && c.rate < 10.0 * sat, "{topo}: {c:?}");
            assert!(c.bound.starts_with("tree link"), "{c:?}");
        }
    }

    /// Unicast only at rate 1: long messages are bound by injection.
    #[test]
    fn injection_bounds_long_messages_on_a_small_network() {
        let c = cap(&[
            "network.topology=torus:2x2",
            "traffic.multicast_fraction=0",
            "traffic.length=100",
        ]);
        assert!(c.bound.starts_with("injection"), "{c:?}");
        assert!((c.rate - 1.0 / 101.0).abs() < 1e-12, "{c:?}");
    }

    /// Mesh routing has no trees: the bisection bounds it.
    #[test]
    fn mesh_routing_is_bound_by_the_bisection() {
        let c = cap(&["network.topology=mesh:16x16", "network.routing=dor"]);
        assert!(c.bound.starts_with("bisection (16 channels"), "{c:?}");
    }

    #[test]
    fn non_uniform_traffic_is_not_estimated() {
        let sc = Scenario::from_toml("", &["traffic.unicast=\"transpose\"".into()], "t").unwrap();
        let net = crate::network::Network::new(&sc).unwrap();
        assert_eq!(estimate(&sc, &net.v, &net.trees), None);
    }
}
