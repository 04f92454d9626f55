//! Lockstep co-simulation of the native router model and its rust-hdl twin
//! (docs/architecture.md §2, checks 1 and 2): same inputs every cycle, every output
//! compared after every clock edge; the first difference is reported with
//! its cycle, router and signal.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wormcast_rtl::drive::{Mismatch, RouterDut};
use wormcast_rtl::Fault;
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::flit::{Flit, FlitFormat, Head};
use wormcast_sim::router::{self, RouterInputs, RouterState};

/// One upstream sender per router input: registered flit/valid held until
/// the router's registered ready takes it. Emits a mix of plausible worms
/// (heads built from the router's own tables) and garbage.
pub struct Upstream {
    queue: std::collections::VecDeque<Flit>,
    pub flit: Flit,
    pub valid: bool,
}

/// Random stimulus for one router.
pub struct RouterStim {
    rng: ChaCha8Rng,
    up: Vec<Upstream>,
    fmt: FlitFormat,
    cfg: RouterConfig,
    params: RouterParams,
    /// Per output: cycles of forced back-pressure left.
    stall: Vec<u32>,
}

impl RouterStim {
    pub fn new(cfg: &RouterConfig, params: &RouterParams, seed: u64) -> RouterStim {
        RouterStim {
            rng: ChaCha8Rng::seed_from_u64(seed),
            up: (0..params.inputs())
                .map(|_| Upstream {
                    queue: Default::default(),
                    flit: 0,
                    valid: false,
                })
                .collect(),
            fmt: params.flit,
            cfg: cfg.clone(),
            params: *params,
            stall: vec![0; params.outputs()],
        }
    }

    fn head(&mut self, input: usize, first: bool) -> Flit {
        let r = &mut self.rng;
        let classes = self.params.classes as u8;
        let sane = r.gen_bool(0.75);
        let class = if input < 4 && (sane || r.gen_bool(0.6)) {
            self.cfg.in_class[input].unwrap_or(0)
        } else if sane {
            r.gen_range(0..classes)
        } else {
            r.gen_range(0..4)
        };
        if let Some(m) = self.cfg.mesh {
            return self.mesh_head(m, class, sane, first);
        }
        let t = self.cfg.tree[(class as usize).min(self.cfg.tree.len() - 1)];
        let n = self.cfg.node_count;
        let kids: Vec<(u32, u32)> = t.child.iter().flatten().copied().collect();
        let node = match r.gen_range(0..10) {
            // A trailing HEAD below a child: what follows a split point's
            // first HEAD in a real worm (exercises split routing and, with
            // local fault information, the healthy branch of a diversion).
            0..=3 if !first && sane && !kids.is_empty() => {
                let (lo, hi) = kids[r.gen_range(0..kids.len())];
                r.gen_range(lo..=hi)
            }
            0..=2 => t.own,
            3 if !sane => n + r.gen_range(0..3),
            _ => r.gen_range(0..n),
        };
        // Legal O bits: links of the class; with SPAM tree child ports only
        // (multicast branches go down the tree).
        let spam = self.params.routing == wormcast_sim::config::RoutingKind::Spam;
        let links: u8 = (0..4)
            .filter(|&d| self.cfg.out_class[d] == Some(class))
            .filter(|&d| !spam || t.child[d].is_some())
            .fold(0, |m, d| m | 1 << d);
        let (c, o, s) = if sane {
            let o = r.gen_range(0..16u8) & links;
            (o == 0 || r.gen_bool(0.5), o, !first && r.gen_bool(0.3))
        } else {
            (r.gen_bool(0.5), r.gen_range(0..16), r.gen_bool(0.3))
        };
        self.fmt.head(Head {
            node,
            c,
            o,
            s,
            class,
        })
    }

    /// A HEAD for a mesh router (`router::mesh`): this node, a neighbour
    /// or any address of the routing's address space (packed addresses
    /// with an x field past K−1 included), a few beyond it; O bits on links
    /// of the class, often the path-worm pattern {C=1, one O bit}.
    fn mesh_head(
        &mut self,
        m: wormcast_sim::router::mesh::MeshConsts,
        class: u8,
        sane: bool,
        first: bool,
    ) -> Flit {
        let r = &mut self.rng;
        let space = if self.params.routing == wormcast_sim::config::RoutingKind::Hamiltonian {
            m.n
        } else {
            (m.mmax << m.xb) + m.kmax + 1
        };
        let node = match r.gen_range(0..10) {
            0..=2 => m.own,
            3 => m.nbr[r.gen_range(0..4)].unwrap_or(m.own),
            4 if !sane => space + r.gen_range(0..3),
            _ => r.gen_range(0..space),
        };
        let links: u8 = (0..4)
            .filter(|&d| self.cfg.out_class[d] == Some(class))
            .fold(0, |acc, d| acc | 1 << d);
        let (c, o, s) = if sane {
            let o = if links != 0 && r.gen_bool(0.5) {
                // Path worm: consume here and continue on one link.
                let ds: Vec<u8> = (0..4).filter(|d| links >> d & 1 == 1).collect();
                1 << ds[r.gen_range(0..ds.len())]
            } else {
                r.gen_range(0..16u8) & links
            };
            // C=0 without O bits (NoOutput at its target) now and then.
            let c = if o == 0 {
                r.gen_bool(0.9)
            } else {
                r.gen_bool(0.7)
            };
            (c, o, !first && r.gen_bool(0.3))
        } else {
            (r.gen_bool(0.5), r.gen_range(0..16), r.gen_bool(0.3))
        };
        self.fmt.head(Head {
            node,
            c,
            o,
            s,
            class,
        })
    }

    fn worm(&mut self, input: usize) {
        let heads = if self.rng.gen_bool(0.7) {
            1
        } else {
            self.rng.gen_range(2..4)
        };
        for k in 0..heads {
            let h = self.head(input, k == 0);
            self.up[input].queue.push_back(h);
        }
        let bodies = self.rng.gen_range(0..5);
        for _ in 0..bodies {
            let b = self.fmt.body(self.rng.gen());
            self.up[input].queue.push_back(b);
        }
        if self.rng.gen_bool(0.97) {
            let t = self.fmt.tail(self.rng.gen());
            self.up[input].queue.push_back(t);
        }
    }

    /// The inputs for the coming edge, given the router's registers now.
    pub fn inputs(&mut self, cur: &RouterState) -> RouterInputs {
        let mut io = RouterInputs::default();
        for i in 0..self.params.inputs() {
            let u = &self.up[i];
            if u.valid && !cur.inp[i].ready {
                // Held until accepted.
            } else {
                if u.valid {
                    self.up[i].valid = false;
                }
                if self.up[i].queue.is_empty() && self.rng.gen_bool(0.3) {
                    if self.rng.gen_bool(0.03) {
                        // Garbage: any bit pattern, reserved kind included.
                        let g = self.rng.gen::<u64>() & self.fmt.mask();
                        self.up[i].queue.push_back(g);
                    } else {
                        self.worm(i);
                    }
                }
                if self.rng.gen_bool(0.85) {
                    if let Some(f) = self.up[i].queue.pop_front() {
                        self.up[i].flit = f;
                        self.up[i].valid = true;
                    }
                }
            }
            io.flit[i] = self.up[i].flit;
            io.valid[i] = self.up[i].valid;
        }
        for o in 0..self.params.outputs() {
            if self.stall[o] > 0 {
                self.stall[o] -= 1;
                io.ready[o] = false;
            } else if self.rng.gen_bool(0.01) {
                self.stall[o] = self.rng.gen_range(5..60);
                io.ready[o] = false;
            } else {
                io.ready[o] = self.rng.gen_bool(0.8);
            }
        }
        io
    }
}

/// What a lockstep run did.
#[derive(Debug, Clone, Default)]
pub struct LockstepStats {
    pub cycles: u64,
    pub errors: u64,
    pub grants: u64,
    pub flits_out: u64,
    /// Malformed worms by `RouterError` code (index = code).
    pub err_codes: [u64; 16],
    /// Flits loaded into each output register.
    pub loaded: [u64; wormcast_sim::config::MAX_OUTPUTS],
    /// Cycles in which some first HEAD paid the header setup delay.
    pub setup_cycles: u64,
    /// Stripped HEADs that left a cycle after their grant (deferred strip).
    pub deferred_strips: u64,
    /// Worms diverted by local fault information (grants into `Diverted`).
    pub diverted: u64,
    /// HEADs a diverted input sent on a healthy link (a split point whose
    /// other branch met the faulty port).
    pub diverted_link_heads: u64,
    /// The fast hop (`Hop::Fast`): flits that went from the link straight
    /// into their outputs (FIFO empty before the edge, pushed and popped
    /// at it), and first HEADs loaded into an output at their grant.
    pub bypassed: u64,
    pub forwarded_heads: u64,
    pub seconds: f64,
}

/// Single router: native `router::step` next to the rust-hdl block for
/// `cycles` cycles of random stimuli. Every output is compared each cycle;
/// with `internal` also every shared register. `Err` names the first
/// difference.
pub fn router_lockstep<const W: usize>(
    cfg: &RouterConfig,
    params: &RouterParams,
    fault: Fault,
    cycles: u64,
    seed: u64,
    internal: bool,
) -> Result<LockstepStats, Mismatch> {
    router_lockstep_vs::<W>(cfg, cfg, params, fault, cycles, seed, internal)
}

/// Like [`router_lockstep`], but the rust-hdl router is generated from
/// `rtl_cfg` while the native model (and the stimulus) use `cfg`: with a
/// deliberately wrong table in `rtl_cfg` the run must fail.
pub fn router_lockstep_vs<const W: usize>(
    cfg: &RouterConfig,
    rtl_cfg: &RouterConfig,
    params: &RouterParams,
    fault: Fault,
    cycles: u64,
    seed: u64,
    internal: bool,
) -> Result<LockstepStats, Mismatch> {
    let t0 = std::time::Instant::now();
    let mut dut = RouterDut::<W>::new(rtl_cfg, params, fault);
    let mut stim = RouterStim::new(cfg, params, seed);
    let mut cur = RouterState::reset();
    let mut next = RouterState::reset();
    let mut st = LockstepStats::default();
    dut.compare(&cur, 0, cfg.node, internal)?;
    for cycle in 1..=cycles {
        let io = stim.inputs(&cur);
        let act = router::step(cfg, params, &cur, &io, &mut next);
        st.errors += act.errors.count_ones() as u64;
        st.grants += act.granted.count_ones() as u64;
        st.flits_out += act.sent.count_ones() as u64;
        for i in 0..params.inputs() {
            st.err_codes[act.err_codes[i] as usize & 15] += (act.errors >> i & 1) as u64;
        }
        for o in 0..params.outputs() {
            st.loaded[o] += (act.loaded_from[o] != router::NO_OWNER) as u64;
        }
        st.setup_cycles +=
            (0..params.inputs()).any(|i| next.inp[i].setup > cur.inp[i].setup) as u64;
        st.deferred_strips += (0..params.inputs()).filter(|&i| cur.inp[i].strip).count() as u64;
        for o in 0..4 {
            let i = act.loaded_from[o];
            if i != router::NO_OWNER
                && cur.inp[i as usize].state == router::InState::Diverted
                && wormcast_sim::flit::kind(next.out[o].flit) == wormcast_sim::flit::Kind::Head
            {
                st.diverted_link_heads += 1;
            }
        }
        st.diverted += (0..params.inputs())
            .filter(|&i| {
                act.granted >> i & 1 == 1 && next.inp[i].state == router::InState::Diverted
            })
            .count() as u64;
        for i in 0..params.inputs() {
            let bit = 1u8 << i;
            let loads = act.loaded_from.iter().any(|&j| j as usize == i);
            if act.pushed & act.popped & bit != 0 && cur.inp[i].fifo.is_empty() {
                st.bypassed += 1;
            }
            if act.granted & bit != 0 && loads {
                st.forwarded_heads += 1;
            }
        }
        std::mem::swap(&mut cur, &mut next);
        dut.set_inputs(&io);
        dut.tick();
        dut.compare(&cur, cycle, cfg.node, internal)?;
        st.cycles = cycle;
    }
    st.seconds = t0.elapsed().as_secs_f64();
    Ok(st)
}

/// A small DSTM scenario for fabric lockstep: 4×4 torus (or `topology`),
/// Poisson unicast + multicast traffic at a load that keeps links busy.
pub fn fabric_scenario(topology: &str, rate: f64, seed: u64) -> wormcast_sim::scenario::Scenario {
    let text = format!(
        r#"
[network]
topology = "{topology}"
construction = "dstm1"

[traffic]
rate = {rate}
multicast_fraction = 0.3
destinations = [2, 6]
length = 6
seed = {seed}

[run]
warmup = 0
cycles = 1000000
drain_cycles = 0
"#
    );
    wormcast_sim::scenario::Scenario::from_toml(&text, &[], "lockstep").expect("valid scenario")
}

/// A mesh scenario in the style of [`fabric_scenario`]: Poisson unicast and
/// path-based multicast worms of `scheme` (`sim/src/pathbased/scheme.rs`)
/// on mesh routing `routing`, 40 % multicast.
pub fn mesh_fabric_scenario(
    topology: &str,
    routing: &str,
    scheme: &str,
    consumption: usize,
    rate: f64,
    seed: u64,
) -> wormcast_sim::scenario::Scenario {
    let mut sc = fabric_scenario(topology, rate, seed);
    sc.network.routing = routing.parse().expect("a routing function");
    sc.network.consumption_channels = consumption;
    sc.traffic.multicast_scheme = scheme.parse().expect("a multicast scheme");
    sc.traffic.multicast_fraction = 0.4;
    sc
}

/// What a fabric lockstep run did.
#[derive(Debug, Clone, Default)]
pub struct FabricStats {
    pub cycles: u64,
    pub messages: usize,
    pub multicasts: usize,
    pub delivered: u64,
    /// Worms a router diverted to its NI (local fault information).
    pub diverted: u64,
    /// HEADs a diverted input put on a healthy link (a split point whose
    /// other branch met the faulty port).
    pub diverted_link_heads: u64,
    pub seconds: f64,
}

/// Fabric: the native `Network` (its NIs, DSTM traffic and fabric) next to
/// the rust-hdl fabric fed with the same NI injection signals. After every
/// edge every router is compared: every link and NI output (flit, valid),
/// every input ready, the error registers and the shared internal registers.
pub fn fabric_lockstep<const W: usize>(
    scenario: &wormcast_sim::scenario::Scenario,
    fault: Fault,
    cycles: u64,
) -> Result<FabricStats, Mismatch> {
    use rust_hdl::prelude::*;
    use wormcast_rtl::drive::{clock_edge, compare_router, settle};
    use wormcast_rtl::fabric::Fabric;
    let t0 = std::time::Instant::now();
    let mut net = wormcast_sim::network::Network::new(scenario).expect("valid network");
    let p = net.fabric.params;
    let topo = net.fabric.topo;
    let mut hw = Fabric::<W>::with_fault(&topo, &p, &net.fabric.cfg, fault);
    hw.connect_all();
    let n = topo.nodes() as usize;
    // Reset cycle.
    hw.rst.next = true;
    clock_edge(&mut hw, |u, c| u.clock.next = c.into());
    hw.rst.next = false;
    for r in hw.cons_ready.iter_mut() {
        r.next = true;
    }
    settle(&mut hw);
    for r in 0..n {
        compare_router(&hw.r[r], &p, &net.fabric.state[r], 0, r as u32, true)?;
    }
    let mut st = FabricStats::default();
    for cycle in 1..=cycles {
        for u in 0..n {
            for (k, s) in net.nis[u].senders.iter().enumerate() {
                let port = u * p.injection + k;
                hw.inj_flit[port].next = s.out_flit.into();
                hw.inj_valid[port].next = s.out_valid;
            }
        }
        let before: Vec<wormcast_sim::router::RouterState> =
            if net.fabric.cfg.iter().any(|c| c.divert_out != 0) {
                net.fabric.state.clone()
            } else {
                Vec::new()
            };
        net.step();
        for (r, prev) in before.iter().enumerate() {
            let now = &net.fabric.state[r];
            for o in 0..4 {
                let (a, b) = (&prev.out[o], &now.out[o]);
                let owner = b.owner;
                if b.valid
                    && (!a.valid || a.flit != b.flit)
                    && owner != wormcast_sim::router::NO_OWNER
                    && now.inp[owner as usize].state == wormcast_sim::router::InState::Diverted
                    && wormcast_sim::flit::kind(b.flit) == wormcast_sim::flit::Kind::Head
                {
                    st.diverted_link_heads += 1;
                }
            }
        }
        clock_edge(&mut hw, |u, c| u.clock.next = c.into());
        for r in 0..n {
            compare_router(&hw.r[r], &p, &net.fabric.state[r], cycle, r as u32, true)?;
        }
        st.cycles = cycle;
    }
    st.messages = net.msgs.len();
    st.multicasts = net.msgs.iter().filter(|m| m.is_multicast()).count();
    st.delivered = net.msgs.iter().map(|m| m.done_count as u64).sum();
    st.diverted = net.diverted_worms;
    st.seconds = t0.elapsed().as_secs_f64();
    assert_eq!(net.score, Default::default(), "native scoreboard");
    Ok(st)
}
