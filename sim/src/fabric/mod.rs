//! A K×M torus or mesh of routers wired link to link, plus one network
//! interface per node, advanced by the deterministic two-phase kernel
//! (ARCHITECTURE §4): every active router samples the current registers of
//! its neighbours ([`Fabric::evaluate`]), then at the edge
//! ([`Fabric::commit`]) each computes its next state from its own registers
//! and what it sampled. Only the sampled inputs cross routers, so the edge
//! updates each router's registers in place (`router::step_in_place`) with
//! the same result as a next-state buffer, without copying whole states.
//!
//! Speed comes from skipping quiescent routers, not from anything that could
//! change results: a router with no flit and no reservation has
//! `next == cur` unless a flit arrives, so it is stepped only when a
//! neighbour or its NI offers one. The active set is rebuilt each cycle from
//! the routers that did something, so cost follows traffic, not network size.
//!
//! The fabric also mirrors every flit's message number in *shadow* registers
//! beside the router state. They are not hardware; they let the deadlock
//! report and the statistics name the worm behind any flit.

pub mod deadlock;

use crate::config::{RouterConfig, RouterParams, MAX_DEPTH, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::Flit;
use crate::router::{self, Activity, InputBefore, RouterInputs, RouterState, NO_OWNER};
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

/// A shadow register written in phase 1 and applied at the edge.
#[derive(Debug, Clone, Copy)]
enum ShadowSlot {
    Out(u8),
    Fifo(u8, u8),
}

/// What one active router sampled in phase 1, for the edge.
#[derive(Debug, Clone, Copy)]
struct Sampled {
    io: RouterInputs,
    /// Shadow message numbers of the NI's injection flits.
    inj_msg: [u32; crate::config::MAX_LOCAL],
    /// Per link input: the shadow number of the raw worm driving it, valid
    /// where `driven` has the input's bit.
    drive_msg: [u32; 4],
    driven: u8,
}

/// Where a router's link output goes: `(router, input port)`.
pub type LinkEnd = Option<(u32, u8)>;

/// The network of routers, without the NIs (see [`crate::network`]).
pub struct Fabric {
    pub topo: Topology,
    pub params: RouterParams,
    pub cfg: Vec<RouterConfig>,
    pub state: Vec<RouterState>,
    /// Per active router (same order as `active`): what phase 1 sampled.
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
    pub last_move: Vec<[u64; MAX_INPUTS]>,
    /// Per router and output: flits sent (link utilisation).
    pub sent: Vec<[u64; MAX_OUTPUTS]>,
    /// Router-steps executed (for the speed figures).
    pub router_steps: u64,
    /// Shadow updates computed in phase 1, applied at the clock edge so every
    /// router reads its neighbours' shadows as they were before the edge.
    stash: Vec<(u32, ShadowSlot, u32)>,
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
            stash: Vec::with_capacity(n),
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

    /// Routers stepped in the current cycle (valid between `wake`s and `tick`).
    pub fn active(&self) -> &[u32] {
        &self.active
    }

    /// The router inputs of `r` this cycle.
    fn gather(&self, r: usize, local: &LocalPort) -> RouterInputs {
        let p = &self.params;
        let mut io = RouterInputs::default();
        for i in 0..4 {
            if let Some((u, o)) = self.upstream[r][i] {
                let out = &self.state[u as usize].out[o as usize];
                io.flit[i] = out.flit;
                io.valid[i] = out.valid;
            }
            if let Some((v, j)) = self.downstream[r][i] {
                io.ready[i] = self.state[v as usize].inp[j as usize].ready;
            }
        }
        for k in 0..p.injection {
            io.flit[4 + k] = local.inj_flit[k];
            io.valid[4 + k] = local.inj_valid[k];
        }
        for k in 0..p.consumption {
            io.ready[4 + k] = local.cons_ready[k];
        }
        // A raw driver holding a link replaces the upstream output register
        // and shows the upstream router `ready = 0`.
        for d in self.drives.iter().filter(|d| d.holding) {
            if d.router as usize == r {
                io.flit[d.input as usize] = d.flit;
                io.valid[d.input as usize] = d.valid;
            }
            if d.upstream.0 as usize == r {
                io.ready[d.upstream.1 as usize] = false;
            }
        }
        io
    }

    /// The raw driver holding link input `k` of router `r`, if any.
    fn drive_on(&self, r: usize, k: usize) -> Option<&crate::network::raw::LinkDrive> {
        self.drives
            .iter()
            .find(|d| d.holding && d.router as usize == r && d.input as usize == k)
    }

    /// Phase 1: samples what every active router sees this cycle (its
    /// neighbours' output registers and `ready`, its NI's drive, the raw
    /// link drivers). `local(r)` gives what router `r`'s NI drives. Nothing
    /// is written to the registers: between this and [`Fabric::commit`] the
    /// NIs read the current registers, and may change what they drive next.
    pub fn evaluate(&mut self, local: &dyn Fn(u32) -> LocalPort) {
        let mut sampled = std::mem::take(&mut self.sampled);
        sampled.clear();
        for &r in &self.active {
            let r = r as usize;
            let lp = local(r as u32);
            let io = self.gather(r, &lp);
            let mut drive_msg = [0; 4];
            let mut driven = 0u8;
            if !self.drives.is_empty() {
                for (k, m) in drive_msg.iter_mut().enumerate() {
                    if let Some(d) = self.drive_on(r, k) {
                        *m = crate::network::raw::RAW_MSG | d.worm;
                        driven |= 1 << k;
                    }
                }
            }
            sampled.push(Sampled {
                io,
                inj_msg: lp.inj_msg,
                drive_msg,
                driven,
            });
        }
        self.sampled = sampled;
    }

    /// Phase 2, the clock edge: every active router steps its registers in
    /// place from the inputs [`Fabric::evaluate`] sampled, so no router sees
    /// another's new registers and no state is copied. `on_activity` gets
    /// what moved and the input registers as they were before the edge.
    pub fn commit(&mut self, on_activity: &mut dyn FnMut(u32, &Activity, &[InputBefore])) {
        let n_in = self.params.inputs();
        let n_out = self.params.outputs();
        let active = std::mem::take(&mut self.active);
        let sampled = std::mem::take(&mut self.sampled);
        let c = self.cycle + 1;
        for (&ru, sm) in active.iter().zip(&sampled) {
            let r = ru as usize;
            let mut before = [InputBefore::default(); MAX_INPUTS];
            for (b, i) in before.iter_mut().zip(&self.state[r].inp[..n_in]) {
                *b = InputBefore::of(i);
            }
            let act = router::step_in_place(&self.cfg[r], &self.params, &mut self.state[r], &sm.io);
            self.router_steps += 1;
            // Shadow message numbers follow the flits; staged until the end
            // of the edge so every router reads its neighbours' shadows from
            // before it.
            for o in 0..n_out {
                let src = act.loaded_from[o];
                if src != NO_OWNER {
                    let b = &before[src as usize];
                    let mut m = self.shadow[r].fifo[src as usize][b.rd as usize];
                    // The TAIL of a raw worm an input was discarding.
                    if b.state == router::InState::Discard && crate::network::raw::is_raw(m) {
                        m |= crate::network::raw::TRUNC_MSG;
                    }
                    self.stash.push((ru, ShadowSlot::Out(o as u8), m));
                }
            }
            let mut pushed = act.pushed;
            while pushed != 0 {
                let k = pushed.trailing_zeros() as usize;
                pushed &= pushed - 1;
                let b = &before[k];
                let slot = (b.rd as usize + b.count as usize) % MAX_DEPTH;
                let m = if k < 4 && sm.driven >> k & 1 == 1 {
                    sm.drive_msg[k]
                } else if k < 4 {
                    let (u, o) = self.upstream[r][k].expect("wired link");
                    self.shadow[u as usize].out[o as usize]
                } else {
                    sm.inj_msg[k - 4]
                };
                self.stash
                    .push((ru, ShadowSlot::Fifo(k as u8, slot as u8), m));
            }
            on_activity(ru, &act, &before[..n_in]);
            for (k, b) in before[..n_in].iter().enumerate() {
                if act.popped >> k & 1 == 1 || b.count == 0 {
                    self.last_move[r][k] = self.cycle;
                }
            }
            if act.sent != 0 {
                for o in 0..n_out {
                    self.sent[r][o] += (act.sent >> o & 1) as u64;
                }
            }
            // Next cycle's active set, in the order the routers stepped: a
            // router that still holds something, and the receiver of every
            // flit waiting in an output register.
            let s = &self.state[r];
            if !s.quiescent(&self.params) && self.mark[r] != c {
                self.mark[r] = c;
                self.next_active.push(ru);
            }
            for d in 0..4 {
                if s.out[d].valid {
                    if let Some((v, _)) = self.downstream[r][d] {
                        if self.mark[v as usize] != c {
                            self.mark[v as usize] = c;
                            self.next_active.push(v);
                        }
                    }
                }
            }
        }
        for &(r, slot, m) in &self.stash {
            let sh = &mut self.shadow[r as usize];
            match slot {
                ShadowSlot::Out(o) => sh.out[o as usize] = m,
                ShadowSlot::Fifo(k, i) => sh.fifo[k as usize][i as usize] = m,
            }
        }
        self.stash.clear();
        self.sampled = sampled;
        self.active = active;
        self.active.clear();
        std::mem::swap(&mut self.active, &mut self.next_active);
        self.cycle += 1;
    }
}
