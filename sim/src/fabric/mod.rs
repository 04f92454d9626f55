//! A K×M torus or mesh of routers wired link to link, plus one network
//! interface per node, advanced by the deterministic two-phase kernel
//! (ARCHITECTURE §4): every active router samples the current registers of
//! its neighbours ([`Fabric::evaluate`]), then at the edge
//! ([`Fabric::commit`]) each computes its next state from its own registers
//! and what it sampled. Only the sampled inputs cross routers, so the edge
//! updates each router's registers in place (`router::step_masked`) with
//! the same result as a next-state buffer, without copying whole states.
//!
//! Speed comes from skipping quiescent routers, not from anything that could
//! change results: a router with no flit and no reservation has
//! `next == cur` unless a flit arrives, so it is stepped only when a
//! neighbour or its NI offers one. The active set is rebuilt each cycle from
//! the routers that did something, so cost follows traffic, not network size.
//! Inside a stepped router the same holds per port: the kernel keeps each
//! router's port masks (`router::PortMasks`) and which of its link inputs
//! are offered a flit, so sampling and the step touch only busy ports.
//!
//! The fabric also mirrors every flit's message number in *shadow* registers
//! beside the router state. They are not hardware; they let the deadlock
//! report and the statistics name the worm behind any flit.

pub mod deadlock;

use crate::config::{RouterConfig, RouterParams, MAX_DEPTH, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::Flit;
use crate::router::{self, Activity, PortMasks, RouterInputs, RouterState};
use crate::topology::{Dir, Topology};

/// Shadow message number meaning "no message known".
pub const NO_MSG: u32 = u32::MAX;

/// Per-router shadow registers, parallel to the FIFOs and output registers.
#[derive(Debug, Clone, Copy)]
pub struct Shadow {
    pub fifo: [[u32; MAX_DEPTH]; MAX_INPUTS],
    pub out: [u32; MAX_OUTPUTS],
}

impl Default for Shadow {
    fn default() -> Self {
        Shadow {
            fifo: [[NO_MSG; MAX_DEPTH]; MAX_INPUTS],
            out: [NO_MSG; MAX_OUTPUTS],
        }
    }
}

/// What one active router sampled in phase 1, for the edge.
#[derive(Debug, Clone, Copy)]
struct Sampled {
    io: RouterInputs,
    /// Per input: the shadow message number of the flit offered to it (the
    /// upstream output's shadow, a raw driver's worm, or the NI's), sampled
    /// with the flit so the edge can write shadows in place.
    in_msg: [u32; MAX_INPUTS],
}

/// Where a router's link output goes: `(router, input port)`.
pub type LinkEnd = Option<(u32, u8)>;

/// The network of routers, without the NIs (see [`crate::network`]).
pub struct Fabric {
    pub topo: Topology,
    pub params: RouterParams,
    pub cfg: Vec<RouterConfig>,
    pub state: Vec<RouterState>,
    /// Per router: the port masks of its registers (`router::PortMasks`),
    /// kept up to date by every step so a step visits only busy ports.
    masks: Vec<PortMasks>,
    /// Per router: link inputs whose upstream output register holds a flit
    /// (bit `i` = input `i`), kept by the upstream router's steps so that
    /// sampling visits only links with a flit on offer.
    offered: Vec<u8>,
    /// Per active router (same order as `active`, possibly longer: slots
    /// are reused across cycles): what phase 1 sampled.
    sampled: Vec<Sampled>,
    pub shadow: Vec<Shadow>,
    /// Per router and link input: the upstream `(router, output)`.
    pub upstream: Vec<[LinkEnd; 4]>,
    /// Per router and link output: the downstream `(router, input)`.
    pub downstream: Vec<[LinkEnd; 4]>,
    /// Per router: last cycle it was stepped or marked (activity set).
    mark: Vec<u64>,
    active: Vec<u32>,
    next_active: Vec<u32>,
    pub cycle: u64,
    /// Per router and input: last cycle its FIFO head moved or it was empty.
    /// Kept only for inputs that hold a flit; meaningless for empty ones.
    pub last_move: Vec<[u64; MAX_INPUTS]>,
    /// Per router and output: flits sent (link utilisation).
    pub sent: Vec<[u64; MAX_OUTPUTS]>,
    /// Router-steps executed (for the speed figures).
    pub router_steps: u64,
    /// Scripted raw worms driving link inputs (`network::raw`); empty in
    /// every run without `traffic.raw`, so the kernel checks only that.
    pub drives: Vec<crate::network::raw::LinkDrive>,
}

/// What the NIs drive into a router this cycle, and what they read back.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalPort {
    pub inj_flit: [Flit; crate::config::MAX_LOCAL],
    pub inj_valid: [bool; crate::config::MAX_LOCAL],
    pub inj_msg: [u32; crate::config::MAX_LOCAL],
    /// Consumption readiness offered by the NI (1 = sink accepts).
    pub cons_ready: [bool; crate::config::MAX_LOCAL],
}

impl Fabric {
    pub fn new(topo: Topology, params: RouterParams, cfg: Vec<RouterConfig>) -> Fabric {
        let n = topo.nodes() as usize;
        let mut upstream = vec![[None; 4]; n];
        let mut downstream = vec![[None; 4]; n];
        for u in 0..topo.nodes() {
            for d in Dir::ALL {
                // A link without a class (missing, unused, faulty) is not wired.
                if cfg[u as usize].out_class[d.index()].is_none() {
                    continue;
                }
                if let Some(v) = topo.neighbor(u, d) {
                    let back = d.opposite();
                    downstream[u as usize][d.index()] = Some((v, back.index() as u8));
                    upstream[v as usize][back.index()] = Some((u, d.index() as u8));
                }
            }
        }
        Fabric {
            topo,
            params,
            cfg,
            state: vec![RouterState::reset(); n],
            masks: vec![PortMasks::default(); n],
            offered: vec![0; n],
            sampled: Vec::with_capacity(n),
            shadow: vec![Shadow::default(); n],
            upstream,
            downstream,
            mark: vec![u64::MAX; n],
            active: Vec::with_capacity(n),
            next_active: Vec::with_capacity(n),
            cycle: 0,
            last_move: vec![[0; MAX_INPUTS]; n],
            sent: vec![[0; MAX_OUTPUTS]; n],
            router_steps: 0,
            drives: Vec::new(),
        }
    }

    /// Makes router `r` step in the coming cycle (its NI has something for it).
    pub fn wake(&mut self, r: u32) {
        if self.mark[r as usize] != self.cycle {
            self.mark[r as usize] = self.cycle;
            self.active.push(r);
        }
    }

    /// Output registers of router `r` that hold a flit (bit `o` = output
    /// `o`), from its port masks.
    pub fn out_valid(&self, r: u32) -> u8 {
        self.masks[r as usize].valid
    }

    /// Routers stepped in the current cycle (valid between `wake`s and `tick`).
    pub fn active(&self) -> &[u32] {
        &self.active
    }

    /// What router `r` sees this cycle: its inputs and, per input, the
    /// message number of the flit on offer. `local` is what its NI drives
    /// (`None`: no injection and every consumption channel ready).
    ///
    /// Only the links in `offered` are read (flit and shadow), and a
    /// downstream `ready` only for a full output register of `r`
    /// (`router::step_masked`: an empty one can load either way).
    ///
    /// `sm` is a slot reused from earlier cycles: only the valids and
    /// readies are cleared, since a flit and its message number are read
    /// only where a valid is set.
    fn gather(&self, r: usize, local: Option<&LocalPort>, sm: &mut Sampled) {
        let p = &self.params;
        let io = &mut sm.io;
        io.valid = [false; MAX_INPUTS];
        // Links not ready until read below; consumption channels ready
        // unless the NI says otherwise (a fixed-size store, no memset).
        io.ready = [false, false, false, false, true, true, true, true];
        for i in router::bits(self.offered[r]) {
            let (u, o) = self.upstream[r][i].expect("a link with a flit on offer is wired");
            io.flit[i] = self.state[u as usize].out[o as usize].flit;
            io.valid[i] = true;
            sm.in_msg[i] = self.shadow[u as usize].out[o as usize];
        }
        for i in router::bits(self.masks[r].valid & 0xF) {
            if let Some((v, j)) = self.downstream[r][i] {
                io.ready[i] = self.state[v as usize].inp[j as usize].ready;
            }
        }
        if let Some(lp) = local {
            for k in 0..p.injection {
                io.flit[4 + k] = lp.inj_flit[k];
                io.valid[4 + k] = lp.inj_valid[k];
            }
            for k in 0..p.consumption {
                io.ready[4 + k] = lp.cons_ready[k];
            }
            sm.in_msg[4..4 + crate::config::MAX_LOCAL].copy_from_slice(&lp.inj_msg);
        }
        // A raw driver holding a link replaces the upstream output register
        // (and its message number) and shows the upstream router `ready = 0`.
        for d in self.drives.iter().filter(|d| d.holding) {
            if d.router as usize == r {
                let k = d.input as usize;
                io.flit[k] = d.flit;
                io.valid[k] = d.valid;
                sm.in_msg[k] = if d.valid {
                    crate::network::raw::RAW_MSG | d.worm
                } else {
                    NO_MSG
                };
            }
            if d.upstream.0 as usize == r {
                io.ready[d.upstream.1 as usize] = false;
            }
        }
    }

    /// Phase 1: samples what every active router sees this cycle (its
    /// neighbours' output registers and `ready`, its NI's drive, the raw
    /// link drivers). `local(r)` gives what router `r`'s NI drives, `None`
    /// when it drives nothing. Nothing is written to the registers: between
    /// this and [`Fabric::commit`] the NIs read the current registers, and
    /// may change what they drive next.
    pub fn evaluate(&mut self, local: impl Fn(u32) -> Option<LocalPort>) {
        let mut sampled = std::mem::take(&mut self.sampled);
        if sampled.len() < self.active.len() {
            let blank = Sampled {
                io: RouterInputs::default(),
                in_msg: [NO_MSG; MAX_INPUTS],
            };
            sampled.resize(self.active.len(), blank);
        }
        for (&r, sm) in self.active.iter().zip(sampled.iter_mut()) {
            self.gather(r as usize, local(r).as_ref(), sm);
        }
        self.sampled = sampled;
    }

    /// Phase 2, the clock edge: every active router steps its registers in
    /// place from the inputs [`Fabric::evaluate`] sampled, so no router sees
    /// another's new registers and no state is copied. `on_activity` gets
    /// what moved at each router where an input raised an error or a worm
    /// ended truncated: the only steps the statistics need to see.
    pub fn commit(&mut self, on_activity: &mut dyn FnMut(u32, &Activity)) {
        let active = std::mem::take(&mut self.active);
        let sampled = std::mem::take(&mut self.sampled);
        let c = self.cycle + 1;
        for (&ru, sm) in active.iter().zip(&sampled) {
            let r = ru as usize;
            let valid_before = self.masks[r].valid;
            let act = router::step_masked(
                &self.cfg[r],
                &self.params,
                &mut self.state[r],
                &sm.io,
                &mut self.masks[r],
            );
            self.router_steps += 1;
            // Shadow message numbers follow the flits. Written in place: no
            // other router reads this one's shadows after phase 1. Each input
            // pops at most once a cycle, so a flit that left came from one
            // slot before the new read index; a pushed flit sits in the last
            // occupied slot, which is never the slot a flit left from (that
            // would need a full FIFO, which is not ready).
            let sh = &mut self.shadow[r];
            let inp = &self.state[r].inp;
            for o in router::bits(act.loaded) {
                let src = act.loaded_from[o] as usize;
                let rd = (inp[src].fifo.rd as usize + MAX_DEPTH - 1) % MAX_DEPTH;
                let mut m = sh.fifo[src][rd];
                // The TAIL of a raw worm an input was discarding.
                if act.discarded >> src & 1 == 1 && crate::network::raw::is_raw(m) {
                    m |= crate::network::raw::TRUNC_MSG;
                }
                sh.out[o] = m;
            }
            for k in router::bits(act.pushed) {
                let f = &inp[k].fifo;
                let slot = (f.rd as usize + f.count as usize + MAX_DEPTH - 1) % MAX_DEPTH;
                sh.fifo[k][slot] = sm.in_msg[k];
            }
            if act.errors != 0 || act.truncated != 0 {
                on_activity(ru, &act);
            }
            // Every reader of `last_move` looks only at inputs with a flit,
            // whose last "moved or empty" cycle is the last pop or the push
            // into an empty FIFO: recording just those gives the same values
            // without touching every empty input every cycle.
            for k in router::bits(act.popped | (act.was_empty & act.pushed)) {
                self.last_move[r][k] = self.cycle;
            }
            for o in router::bits(act.sent) {
                self.sent[r][o] += 1;
            }
            // Next cycle's active set, in the order the routers stepped: a
            // router that still holds something, and the receiver of every
            // flit waiting in an output register.
            if (act.busy != 0 || act.out_valid != 0) && self.mark[r] != c {
                self.mark[r] = c;
                self.next_active.push(ru);
            }
            // Link outputs that filled or emptied change what the
            // downstream router is offered.
            for d in router::bits((valid_before ^ act.out_valid) & 0xF) {
                if let Some((v, j)) = self.downstream[r][d] {
                    self.offered[v as usize] ^= 1 << j;
                }
            }
            for d in router::bits(act.out_valid & 0xF) {
                if let Some((v, _)) = self.downstream[r][d] {
                    if self.mark[v as usize] != c {
                        self.mark[v as usize] = c;
                        self.next_active.push(v);
                    }
                }
            }
        }
        self.sampled = sampled;
        self.active = active;
        self.active.clear();
        std::mem::swap(&mut self.active, &mut self.next_active);
        self.cycle += 1;
    }
}
