//! Shared helpers for the router and network integration tests: a DSTM-1
//! 4×4 router configuration, a single-router harness that drives
//! `router::step` directly, and flit constructors.
#![allow(dead_code)]

use std::collections::VecDeque;
use wormcast_sim::config::{RouterConfig, RouterParams, MAX_INPUTS, MAX_OUTPUTS};
use wormcast_sim::flit::{self, Flit, FlitFormat, Head};
use wormcast_sim::router::{self, Activity, InState, RouterInputs, RouterState, NO_OWNER};
use wormcast_sim::topology::{Dir, NodeId, Topology};
use wormcast_sim::trees::{construct, Named, SpanningTree};

pub const FMT: FlitFormat = FlitFormat { width: 32 };
/// Injection input index.
pub const INJ: usize = 4;

/// The DSTM-1 pair on a 4×4 torus with R1 = (0,0) and the router
/// configurations for default parameters.
pub struct Pair {
    pub topo: Topology,
    pub trees: Vec<SpanningTree>,
    pub params: RouterParams,
    pub cfg: Vec<RouterConfig>,
}

pub fn dstm1_4x4() -> Pair {
    dstm1_4x4_with(RouterParams::default(), &[])
}

pub fn dstm1_4x4_with(params: RouterParams, faulty: &[u32]) -> Pair {
    let topo = Topology::torus(4, 4).unwrap();
    let c = Named::Dstm1.construction(&topo, 0, None);
    let trees = construct(&topo, &c).unwrap().trees.to_vec();
    let cfg = RouterConfig::for_trees(&topo, &trees, &params, faulty).unwrap();
    Pair {
        topo,
        trees,
        params,
        cfg,
    }
}

/// A HEAD flit.
pub fn head(node: u32, c: bool, o: u8, s: bool, class: u8) -> Flit {
    FMT.head(Head {
        node,
        c,
        o,
        s,
        class,
    })
}

pub fn body(p: u64) -> Flit {
    FMT.body(p)
}

pub fn tail(p: u64) -> Flit {
    FMT.tail(p)
}

pub fn bit(d: Dir) -> u8 {
    1 << d.index()
}

/// A node of `t` with at least two children and a parent.
pub fn split_node(t: &SpanningTree) -> NodeId {
    (0..t.topo.nodes())
        .find(|&u| t.child_count(u) >= 2 && t.parent[u as usize].is_some())
        .expect("a tree node with two children and a parent")
}

/// A node of `t` with a parent and at least one child.
pub fn inner_node(t: &SpanningTree) -> NodeId {
    (0..t.topo.nodes())
        .find(|&u| t.child_count(u) >= 1 && t.parent[u as usize].is_some())
        .expect("an inner tree node")
}

/// Post-order number of some node below the child of `u` on port `d`.
pub fn below(t: &SpanningTree, u: NodeId, d: Dir) -> u32 {
    let v = t.topo.neighbor(u, d).unwrap();
    assert!(t.child_ports[u as usize][d.index()]);
    t.number[v as usize]
}

/// Post-order number of some node outside the subtree of `u` (the root's
/// number if `u` is not the root, else panics).
pub fn outside(t: &SpanningTree, u: NodeId) -> u32 {
    (0..t.topo.nodes())
        .find(|&v| !t.is_ancestor(u, v))
        .map(|v| t.number[v as usize])
        .expect("a node outside the subtree")
}

/// Output index of the first consumption channel of `class`'s pool (the one
/// a C=1 header takes when the whole pool is free).
pub fn cons(p: &RouterParams, class: u8) -> usize {
    4 + p.consumption_pool(class).trailing_zeros() as usize
}

/// One router, driven flit by flit through `router::step`.
pub struct Harness {
    pub cfg: RouterConfig,
    pub p: RouterParams,
    pub st: RouterState,
    /// Per input: flits the upstream sender offers, in order.
    pub src: Vec<VecDeque<Flit>>,
    /// Per output: the downstream `ready`.
    pub ready: [bool; MAX_OUTPUTS],
    /// Every flit that left an output register: (cycle, output, flit).
    pub sent: Vec<(u64, usize, Flit)>,
    pub cycle: u64,
    pub acts: Vec<Activity>,
}

impl Harness {
    pub fn new(cfg: RouterConfig, p: RouterParams) -> Harness {
        Harness {
            cfg,
            p,
            st: RouterState::reset(),
            src: vec![VecDeque::new(); MAX_INPUTS],
            ready: [true; MAX_OUTPUTS],
            sent: Vec::new(),
            cycle: 0,
            acts: Vec::new(),
        }
    }

    pub fn at(pair: &Pair, u: NodeId) -> Harness {
        Harness::new(pair.cfg[u as usize].clone(), pair.params)
    }

    pub fn offer(&mut self, input: usize, flits: &[Flit]) {
        self.src[input].extend(flits.iter().copied());
    }

    /// One clock cycle; returns what moved.
    pub fn tick(&mut self) -> Activity {
        let mut io = RouterInputs::default();
        for i in 0..self.p.inputs() {
            if let Some(&f) = self.src[i].front() {
                io.flit[i] = f;
                io.valid[i] = true;
            }
        }
        io.ready = self.ready;
        let mut next = self.st;
        let act = router::step(&self.cfg, &self.p, &self.st, &io, &mut next);
        for o in 0..self.p.outputs() {
            if act.sent >> o & 1 == 1 {
                self.sent.push((self.cycle, o, self.st.out[o].flit));
            }
        }
        for i in 0..self.p.inputs() {
            if act.pushed >> i & 1 == 1 {
                self.src[i].pop_front();
            }
        }
        self.st = next;
        self.cycle += 1;
        self.acts.push(act);
        act
    }

    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.tick();
        }
    }

    /// Runs until every source queue, FIFO and output register is empty and
    /// no reservation is held (or `limit` cycles pass).
    pub fn drain(&mut self, limit: u64) {
        for _ in 0..limit {
            if self.idle() {
                return;
            }
            self.tick();
        }
        panic!("router did not drain in {limit} cycles: {:?}", self.st);
    }

    pub fn idle(&self) -> bool {
        self.src.iter().all(|q| q.is_empty())
            && self.st.quiescent(&self.p)
            && self.st.out[..self.p.outputs()]
                .iter()
                .all(|o| o.owner == NO_OWNER)
    }

    /// Flits sent on output `o`, in order.
    pub fn on(&self, o: usize) -> Vec<Flit> {
        self.sent.iter().filter(|s| s.1 == o).map(|s| s.2).collect()
    }

    /// Cycles at which output `o` sent a flit.
    pub fn cycles_on(&self, o: usize) -> Vec<u64> {
        self.sent.iter().filter(|s| s.1 == o).map(|s| s.0).collect()
    }

    /// Outputs that sent anything.
    pub fn used_outputs(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.sent.iter().map(|s| s.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn clear_sent(&mut self) {
        self.sent.clear();
    }

    pub fn state(&self, i: usize) -> InState {
        self.st.inp[i].state
    }
}

/// Kinds of a flit list, for readable assertions.
pub fn kinds(v: &[Flit]) -> Vec<flit::Kind> {
    v.iter().map(|&f| flit::kind(f)).collect()
}

/// A data part of a worm: `n` BODY flits with payloads `base..` then a TAIL.
pub fn data(base: u64, n: u64) -> Vec<Flit> {
    let mut v: Vec<Flit> = (0..n).map(|k| body(base + k)).collect();
    v.push(tail(base + n));
    v
}

/// Mesh sides, faulty nodes, source, destinations, seed.
pub type FaultyMeshCase = (u32, u32, Vec<(u32, u32)>, (u32, u32), Vec<(u32, u32)>, u64);

/// A random faulty mesh with a source and destinations (\[FTTREE\] tests):
/// mesh sides, faulty nodes, source, destinations (may hit faults; callers
/// filter), seed.
pub fn faulty_mesh_case() -> impl proptest::strategy::Strategy<Value = FaultyMeshCase> {
    use proptest::prelude::*;
    (4u32..18, 4u32..18).prop_flat_map(|(k, m)| {
        let n = (k * m) as usize;
        (
            Just(k),
            Just(m),
            proptest::collection::vec((0..k, 0..m), 0..n / 5),
            (0..k, 0..m),
            proptest::collection::vec((0..k, 0..m), 1..14),
            any::<u64>(),
        )
    })
}

/// The built-in default scenario with `sets` as `--set` overrides.
pub fn scenario_with(sets: &[&str]) -> wormcast_sim::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    wormcast_sim::scenario::Scenario::from_toml("", &sets, "test").unwrap()
}

/// [`scenario_with`] run to its end: the network and its report.
pub fn run_with(
    sets: &[&str],
) -> (
    wormcast_sim::network::Network,
    wormcast_sim::network::stats::Report,
) {
    let sc = scenario_with(sets);
    let mut net =
        wormcast_sim::network::Network::new(&sc).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    let r = net.run(&mut |_| true);
    (net, r)
}
