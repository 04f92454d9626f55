//! A K×M torus or mesh of routers wired link to link, plus one network
//! interface per node, advanced by the deterministic two-phase kernel
//! (docs/architecture.md §4). Every link handshake of a clock edge is decided by
//! registers before it (upstream `out.valid`, downstream registered
//! `ready`), so phase 1 ([`Fabric::evaluate`], plus [`Fabric::inject`] for
//! the NIs) moves each flit that crosses a link at this edge straight into
//! its downstream FIFO, behind the head, and phase 2 ([`Fabric::commit`])
//! steps every router's registers in place from its own registers and
//! what crossed its ports (`router::step_edge`). No router's inputs are
//! gathered and no state is copied; `router::step_edge` says why appending
//! first gives the same registers as the two-buffer next-state function.
//!
//! Speed comes from skipping quiescent routers, not from anything that could
//! change results: a router with no flit and no reservation has
//! `next == cur` unless a flit arrives, so it is stepped only when a flit
//! from a neighbour, its NI or a raw link driver crosses into it. The
//! active set is rebuilt each cycle from the routers that did something,
//! so cost follows traffic, not network size.
//! Inside a stepped router the same holds per port: the kernel keeps each
//! router's port masks (`router::PortMasks`), so phase 1 reads only full
//! output registers and the step touches only busy ports.
//!
//! The fabric also mirrors every flit's message number in *shadow* registers
//! beside the router state. They are not hardware; they let the deadlock
//! report and the statistics name the worm behind any flit.

mod crew;
pub use crew::core_round_trip_ns;
pub mod deadlock;
pub mod pacer;
pub mod stripes;

use crate::config::{Hop, RouterConfig, RouterParams, MAX_DEPTH, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::Flit;
use crate::router::{self, Activity, Edge, PortMasks, RouterState, Sidecar};
use crate::topology::{Dir, Topology};

/// Shadow message number meaning "no message known".
pub const NO_MSG: u32 = u32::MAX;

/// Shadow message numbers at or above this (and below `NO_MSG`) are raw
/// worms: `RAW_MSG | index` into `Network::raw`.
pub const RAW_MSG: u32 = 0x8000_0000;
/// Set in a raw worm's shadow number on the TAIL an input in `Discard`
/// forwarded: the worm reached the NI truncated.
pub const TRUNC_MSG: u32 = 0x4000_0000;

/// Whether shadow number `m` belongs to a raw worm.
pub fn is_raw(m: u32) -> bool {
    m != NO_MSG && m & RAW_MSG != 0
}

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

/// What the fabric keeps beside one router's registers, as the step sees
/// it (`router::Sidecar`).
struct Beside<'a> {
    shadow: &'a mut Shadow,
    last_move: &'a mut [u64; MAX_INPUTS],
    cycle: u64,
}

impl Sidecar for Beside<'_> {
    /// Shadow message numbers follow the flits (an arrival's was written
    /// with it in phase 1). Written in place: no other router reads this
    /// one's shadows in phase 2, and the slot a flit leaves is not one an
    /// arrival of this edge took (that would need a full FIFO, which is not
    /// ready).
    #[inline(always)]
    fn load(&mut self, i: usize, slot: usize, outs: u8, discarding: bool) {
        let mut m = self.shadow.fifo[i][slot];
        // The TAIL of a raw worm an input was discarding.
        if discarding && is_raw(m) {
            m |= TRUNC_MSG;
        }
        for o in router::bits(outs) {
            self.shadow.out[o] = m;
        }
    }

    /// Every reader of `last_move` looks only at inputs with a flit, whose
    /// last "moved or empty" cycle is the last pop or the push into an
    /// empty FIFO (`accept`): recording just those gives the same values
    /// without touching every empty input every cycle.
    #[inline(always)]
    fn popped(&mut self, i: usize) {
        self.last_move[i] = self.cycle;
    }
}

/// A raw worm driving a link input (see `network::raw`): the state of its
/// stand-in output register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkDrive {
    /// Router and link input driven.
    pub router: u32,
    pub input: u8,
    /// The upstream router and output it stands in for.
    pub upstream: (u32, u8),
    /// Index into `Network::raw`.
    pub worm: u32,
    /// Next flit to load.
    pub next: u32,
    /// The link is held (the upstream output was free).
    pub holding: bool,
    pub flit: Flit,
    pub valid: bool,
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
    /// Per router: the handshake of the coming edge, filled by phase 1
    /// (outputs that send, inputs whose flit is already in the FIFO) and
    /// cleared by the router's step. Zero for every router outside the
    /// active set.
    edge: Vec<Edge>,
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
    pub drives: Vec<LinkDrive>,
    /// Worker threads of this run (`run.threads` > 1); `None`: serial.
    stripes: Option<stripes::Stripes>,
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
            edge: vec![Edge::default(); n],
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
            stripes: None,
        }
    }

    /// Steps the routers of this run on `threads` threads (1: serially).
    /// Results do not depend on it (`stripes`).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        self.stripes = match threads {
            0 | 1 => None,
            n => Some(stripes::Stripes::new(n)?),
        };
        Ok(())
    }

    /// Threads stepping the routers (1: serial).
    pub fn threads(&self) -> usize {
        self.stripes.as_ref().map_or(1, |s| s.threads())
    }

    /// Active routers below which a cycle's phases run serially even with
    /// threads. Tests set 0 so that every cycle can take the threaded path.
    pub fn set_min_parallel(&mut self, active: usize) {
        if let Some(s) = self.stripes.as_mut() {
            s.min_active = active;
        }
    }

    /// Whether a threaded run times its cycles in both modes and uses the
    /// threads only while they are faster (`pacer`, the default), or uses
    /// them for every large enough phase (`false`: tests, to thread every
    /// cycle).
    pub fn set_self_timed(&mut self, on: bool) {
        if let Some(s) = self.stripes.as_mut() {
            s.self_timed = on;
        }
    }

    /// With threads: the cycles large enough to thread so far, and how
    /// many of them ran on the threads (the rest ran serially because
    /// timing showed the threads slower, `pacer`).
    pub fn threaded_cycles(&self) -> Option<(u64, u64)> {
        self.stripes
            .as_ref()
            .map(|s| (s.eligible_cycles, s.threaded_cycles))
    }

    /// Makes router `r` step at the coming edge: a flit crosses into it
    /// (`accept`), or a caller steps it regardless (the on-chip top).
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

    /// Appends flit `f` (message number `msg`) to input `i` of router `r`
    /// at the coming edge: the handshake's receiving half. Phase 1 only,
    /// for a router whose registered `ready` is 1, which steps at this
    /// edge: an arrival is what wakes a receiver (see [`Fabric::commit`]).
    fn accept(&mut self, r: usize, i: usize, f: Flit, msg: u32) {
        self.wake(r as u32);
        let fifo = &mut self.state[r].inp[i].fifo;
        let slot = (fifo.rd as usize + fifo.count as usize) % MAX_DEPTH;
        if fifo.is_empty() {
            // `last_move` of an input that was empty: see `commit`.
            self.last_move[r][i] = self.cycle;
        }
        fifo.push(f, self.params.depth);
        self.shadow[r].fifo[i][slot] = msg;
        self.edge[r].arrived |= 1 << i;
    }

    /// Phase 1 for an NI: offers flit `f` of message `msg` on injection
    /// channel `k` of router `r` (woken this cycle) and returns whether the
    /// router takes it at this edge (its registered `ready`). Call after
    /// [`Fabric::evaluate`], before [`Fabric::commit`]; the registers an NI
    /// reads in between (`ready`, the output registers) still hold their
    /// values before the edge, since phase 1 writes only FIFO contents.
    pub fn inject(&mut self, r: u32, k: usize, f: Flit, msg: u32) -> bool {
        self.offer(r as usize, 4 + k, f, msg)
    }

    /// Offers flit `f` (message `msg`) to input `i` of router `r`: taken,
    /// and appended, when the input's registered `ready` is 1.
    fn offer(&mut self, r: usize, i: usize, f: Flit, msg: u32) -> bool {
        let ready = self.state[r].inp[i].ready;
        if ready {
            self.accept(r, i, f, msg);
        }
        ready
    }

    /// Phase 1: the link handshakes of the coming edge. Every full output
    /// register of an active router sends if its receiver is ready, and its
    /// flit (with its message number) goes into the receiver's FIFO now;
    /// consumption outputs always send (every sink here accepts at once).
    /// A raw driver holding a link replaces the upstream output register:
    /// it offers its own flit and shows the upstream router `ready = 0`.
    /// Between this and [`Fabric::commit`] the NIs read the registers, which
    /// still hold their values before the edge, and inject.
    pub fn evaluate(&mut self) {
        if self.stripes.is_some() && stripes::evaluate(self) {
            return;
        }
        let held = !self.drives.is_empty();
        if held {
            for k in 0..self.drives.len() {
                let d = self.drives[k];
                if d.holding && d.valid {
                    let msg = RAW_MSG | d.worm;
                    self.offer(d.router as usize, d.input as usize, d.flit, msg);
                }
            }
        }
        for k in 0..self.active.len() {
            let u = self.active[k] as usize;
            let valid = self.masks[u].valid;
            let mut sent = valid & 0xF0;
            for o in router::bits(valid & 0xF) {
                let Some((v, j)) = self.downstream[u][o] else {
                    continue;
                };
                let blocked = held
                    && self
                        .drives
                        .iter()
                        .any(|d| d.holding && d.upstream == (u as u32, o as u8));
                if !blocked && self.state[v as usize].inp[j as usize].ready {
                    let f = self.state[u].out[o].flit;
                    let msg = self.shadow[u].out[o];
                    self.accept(v as usize, j as usize, f, msg);
                    sent |= 1 << o;
                }
            }
            self.edge[u].sent = sent;
            for o in router::bits(sent) {
                self.sent[u][o] += 1;
            }
        }
    }

    /// Phase 2, the clock edge: every active router steps its registers in
    /// place from its own registers and the handshake phase 1 recorded, so
    /// no router reads another's registers and no state is copied.
    /// `on_activity` gets what moved at each router where an input raised
    /// an error or a worm ended truncated: the only steps the statistics
    /// need to see.
    pub fn commit(&mut self, on_activity: &mut dyn FnMut(u32, &Activity)) {
        if self.stripes.is_some() && stripes::commit(self, on_activity) {
            return;
        }
        // One loop per hop contract, chosen once a cycle: see
        // `router::step_edge` for why the two steps are kept apart.
        match self.params.hop {
            Hop::Standard => self.commit_serial::<false>(on_activity),
            Hop::Fast => self.commit_serial::<true>(on_activity),
        }
    }

    /// [`Fabric::commit`]'s serial loop for one hop contract, a function
    /// of its own for each.
    #[inline(never)]
    fn commit_serial<const FAST: bool>(&mut self, on_activity: &mut dyn FnMut(u32, &Activity)) {
        let active = std::mem::take(&mut self.active);
        let c = self.cycle + 1;
        for &ru in &active {
            let r = ru as usize;
            let edge = std::mem::take(&mut self.edge[r]);
            let mut side = Beside {
                shadow: &mut self.shadow[r],
                last_move: &mut self.last_move[r],
                cycle: self.cycle,
            };
            let (cfg, state, masks) = (&self.cfg[r], &mut self.state[r], &mut self.masks[r]);
            let act = if FAST {
                router::step_edge_fast(cfg, &self.params, state, masks, edge, &mut side)
            } else {
                router::step_edge(cfg, &self.params, state, masks, edge, &mut side)
            };
            self.router_steps += 1;
            if act.errors != 0 || act.truncated != 0 {
                on_activity(ru, &act);
            }
            // Next cycle's active set, in the order the routers stepped: the
            // routers that still hold something. The receiver of a flit
            // waiting in an output register joins when the flit crosses
            // (`accept`, phase 1): a receiver that cannot take it is not
            // ready, so its FIFO is full and it is in the set already. The
            // set of stepped routers is the one waking every receiver gave,
            // without a look at each waiting flit's receiver every cycle.
            if (act.busy != 0 || act.out_valid != 0) && self.mark[r] != c {
                self.mark[r] = c;
                self.next_active.push(ru);
            }
        }
        self.active = active;
        self.active.clear();
        std::mem::swap(&mut self.active, &mut self.next_active);
        self.cycle += 1;
    }
}
