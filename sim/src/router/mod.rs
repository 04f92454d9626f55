//! The native cycle model of the wormcast router (docs/architecture.md §3, \[DSTM\]
//! §3): header decode, atomic all-or-nothing reservation, replication with
//! coordinated flow control, consumption channels per class.
//!
//! RTL style: [`RouterState`] holds exactly the registers the RTL has, with
//! the same names; [`step`] is the pure next-state function of (configuration,
//! registers, inputs) into a separate next state; [`step_in_place`] is the
//! same function applied to the registers themselves, [`step_masked`] is
//! that with the port masks ([`PortMasks`]) kept by the caller, and
//! [`step_edge`] is its second half, after the flits that cross the links
//! at this edge are in their FIFOs. The fabric kernel moves the flits and
//! calls `step_edge`, so it never copies a whole state, never gathers a
//! router's inputs, and visits only the ports that hold something. Outputs are
//! registers only (`out[o].flit/valid`, `inp[i].ready`), so no combinational
//! path runs from a router's inputs to its outputs and any fabric, wrap links
//! included, is free of combinational loops.
//!
//! Link protocol (valid/ready, both registered): a flit moves across a link at
//! a clock edge when the upstream `out.valid` and the downstream `inp.ready`
//! are both 1. `ready` is 1 when the FIFO has room for one more flit after the
//! edge, whatever happens next cycle, so it never over-commits. With depth ≥ 2
//! a stream moves one flit per cycle; depth 1 halves that.
//!
//! Timing per hop (checked by `sim/tests/router_timing.rs`): the first HEAD
//! of a worm at a router that is not its target takes 3 cycles (link
//! register, arbitration, output register). Any other flit (BODY, TAIL,
//! trailing HEAD) takes 2 cycles (link register, then input FIFO to output
//! register) when its path is already reserved and nothing queues ahead of
//! it. Flits right behind a first HEAD cannot overtake it, so they move at
//! its 3 cycles per hop until it is stripped: a fresh worm on a free path
//! reaches its target 3 cycles per hop after injection, then streams one
//! flit per cycle (depth ≥ 2). At depth 1 a stream moves one flit every 2
//! cycles and each data hop takes 3 cycles (the registered `ready` round trip).
//! A header setup delay of s cycles (`RouterParams::setup_cycles`) adds s
//! to each first HEAD's hop; a deferred strip (`strip_deferred`) keeps a
//! stripped HEAD one cycle longer in its FIFO, so the flits behind it leave
//! that router one cycle later (docs/hardware.md 3h and 3i: with s = 1
//! the fastest contract on an iCE40). The fast hop ([`Hop::Fast`]) takes
//! 2 cycles a first HEAD (its grant loads the output register) and 1 a
//! BODY or TAIL that finds the next link input's FIFO empty (it bypasses
//! the FIFO); docs/router.md has the whole table for both contracts.

pub mod arbiter;
pub mod consumption;
pub mod error;
pub mod fifo;
pub mod mesh;
pub mod routing;
pub mod spam;

use crate::config::{Hop, RouterConfig, RouterParams, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::{self, Flit, Kind};
pub use error::RouterError;
pub use fifo::Fifo;

/// Marker for "no input owns this output".
pub const NO_OWNER: u8 = 0xFF;

/// Input state machine (`in_state` register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum InState {
    /// No worm; the next flit must be a HEAD.
    #[default]
    Idle = 0,
    /// A worm holds `reserved`.
    Active = 1,
    /// A malformed worm: drop flits up to the TAIL, which releases `reserved`.
    Discard = 2,
    /// Local fault information (\[DSTM\] §7): a branch of the worm met a
    /// faulty output, so its HEADs go to the reserved consumption channel
    /// (`routing::diversion`, `routing::diverted_head`). Never entered when
    /// `RouterConfig::divert_out` = 0 (no faulty port).
    Diverted = 3,
}

/// Registers of one input port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputRegs {
    pub fifo: Fifo,
    pub state: InState,
    /// Outputs held by the current worm, bit `o` = output `o`.
    pub reserved: u8,
    /// Class of the current worm.
    pub class: u8,
    /// Registered ready to the upstream sender.
    pub ready: bool,
    /// Header setup counter: cycles the current first HEAD has waited at the
    /// FIFO head (`RouterParams::setup_cycles`; always 0 when that is 0).
    pub setup: u8,
    /// Deferred strip (`RouterParams::strip_deferred`; always false
    /// without it): the first HEAD at the FIFO head was stripped at the
    /// last edge's grant and leaves at this one, doing nothing else.
    pub strip: bool,
}

/// Registers of one output port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputRegs {
    pub flit: Flit,
    pub valid: bool,
    /// Input that holds this output, or [`NO_OWNER`].
    pub owner: u8,
}

impl Default for OutputRegs {
    fn default() -> Self {
        OutputRegs {
            flit: 0,
            valid: false,
            owner: NO_OWNER,
        }
    }
}

/// All registers of one router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterState {
    pub inp: [InputRegs; MAX_INPUTS],
    pub out: [OutputRegs; MAX_OUTPUTS],
    /// Arbiter: the input with the highest priority.
    pub prio: u8,
    /// Malformed worms seen (saturating).
    pub err_count: u16,
    /// Code of the last malformed case, see [`RouterError`].
    pub err_code: u8,
}

impl RouterState {
    /// Reset values.
    pub fn reset() -> RouterState {
        let mut s = RouterState {
            inp: [InputRegs::default(); MAX_INPUTS],
            out: [OutputRegs::default(); MAX_OUTPUTS],
            prio: 0,
            err_count: 0,
            err_code: 0,
        };
        for i in s.inp.iter_mut() {
            i.ready = true;
        }
        s
    }

    /// True when the router holds no flit and no reservation, so its next
    /// state equals its state unless a flit arrives: the kernel skips it.
    pub fn quiescent(&self, p: &RouterParams) -> bool {
        self.inp[..p.inputs()]
            .iter()
            .all(|i| i.fifo.is_empty() && i.state == InState::Idle)
            && self.out[..p.outputs()].iter().all(|o| !o.valid)
    }
}

/// What a router sees from its neighbours in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RouterInputs {
    /// Per input: the upstream `out.flit` / `out.valid`.
    pub flit: [Flit; MAX_INPUTS],
    pub valid: [bool; MAX_INPUTS],
    /// Per output: the downstream `inp.ready`.
    pub ready: [bool; MAX_OUTPUTS],
}

/// Side information about one cycle, for statistics and the lockstep's
/// counters; not part of the hardware. (The fabric's shadow registers
/// follow the flits through a [`Sidecar`] instead, during the step.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Activity {
    /// Inputs whose FIFO head left this cycle (forwarded, stripped or dropped).
    pub popped: u8,
    /// Inputs that accepted a flit from upstream.
    pub pushed: u8,
    /// Per output: the input whose flit was loaded into it, or [`NO_OWNER`].
    pub loaded_from: [u8; MAX_OUTPUTS],
    /// Outputs loaded this cycle (those where `loaded_from` names an input).
    pub loaded: u8,
    /// Outputs whose flit left (downstream accepted).
    pub sent: u8,
    /// Inputs granted a reservation this cycle.
    pub granted: u8,
    /// Errors raised this cycle (bit per input).
    pub errors: u8,
    /// Per input: the error code raised this cycle (0 = none).
    pub err_codes: [u8; MAX_INPUTS],
    /// Inputs that were in `Discard` before the edge and sent or dropped a
    /// flit: a flit they forwarded ends a truncated worm.
    pub discarded: u8,
    /// Inputs where a worm ends unseen by any NI: a TAIL dropped at an input
    /// in `Discard` that holds no output, or a lone TAIL at an idle input.
    pub truncated: u8,
    /// Inputs that hold a flit or a worm after the edge.
    pub busy: u8,
    /// Output registers that hold a flit after the edge. With `busy` this
    /// tells the kernel whether the router is quiescent
    /// ([`RouterState::quiescent`]) and whom to wake, without reading the
    /// registers again.
    pub out_valid: u8,
}

/// What an input wants this cycle, decided from its FIFO head.
enum Action {
    /// A first HEAD still paying the header setup delay.
    Setup,
    /// The HEAD stripped at the last grant leaves (deferred strip).
    Strip,
    /// Idle input with a first HEAD: request these outputs; `strip` if the
    /// HEAD is for this router.
    Request {
        mask: u8,
        strip: bool,
        class: u8,
        divert: bool,
    },
    /// Send `flit` to exactly these outputs (all must accept), then pop.
    /// `release` frees the reservation (TAIL).
    Send { flit: Flit, outs: u8, release: bool },
    /// Drop the head flit; `release_idle` returns to Idle.
    Drop { to_idle: bool },
    /// Malformed: count `err`, drop the head flit, go to Discard (or stay
    /// Idle for a TAIL at an idle input).
    Error { err: RouterError, to_idle: bool },
}

/// The next-state function. `next` receives the registers after the clock
/// edge; the returned [`Activity`] describes what moved.
///
/// The reference form (tests, lockstep, vectors); the fabric kernel calls
/// [`step_edge`] on the registers in place.
pub fn step(
    cfg: &RouterConfig,
    p: &RouterParams,
    cur: &RouterState,
    io: &RouterInputs,
    next: &mut RouterState,
) -> Activity {
    *next = *cur;
    step_in_place(cfg, p, next, io)
}

/// [`step`] on the registers themselves: `s` holds the registers before the
/// clock edge on entry and after it on return. Derives the [`PortMasks`]
/// from the registers, then runs [`step_masked`].
pub fn step_in_place(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    io: &RouterInputs,
) -> Activity {
    let mut m = PortMasks::of(s, p);
    step_masked(cfg, p, s, io, &mut m)
}

/// Bit masks over a router's ports, derived from its registers. Not
/// hardware: the fabric kernel keeps one per router beside the registers and
/// [`step_masked`] updates it, so a step visits only the ports that hold
/// something (a router streaming one worm has one busy input and one full
/// output of 5–8) instead of scanning every port's registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortMasks {
    /// Inputs whose FIFO holds a flit.
    pub nonempty: u8,
    /// Inputs whose state is not `Idle`.
    pub nonidle: u8,
    /// Output registers that hold a flit (`out.valid`).
    pub valid: u8,
    /// Outputs with an owner.
    pub owned: u8,
}

impl PortMasks {
    /// The masks of registers `s` (all zero for [`RouterState::reset`]).
    pub fn of(s: &RouterState, p: &RouterParams) -> PortMasks {
        let mut m = PortMasks {
            owned: owned_mask(s, p.outputs()),
            ..PortMasks::default()
        };
        for (i, inp) in s.inp[..p.inputs()].iter().enumerate() {
            m.nonempty |= (!inp.fifo.is_empty() as u8) << i;
            m.nonidle |= ((inp.state != InState::Idle) as u8) << i;
        }
        for (o, out) in s.out[..p.outputs()].iter().enumerate() {
            m.valid |= (out.valid as u8) << o;
        }
        m
    }
}

/// The low `n` bits.
fn low_bits(n: usize) -> u8 {
    ((1u16 << n) - 1) as u8
}

/// The bits of a mask, lowest first.
#[derive(Clone, Copy)]
pub(crate) struct Bits(u8);

impl Iterator for Bits {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        // `& 7` changes nothing (the mask is not zero) but tells the
        // compiler the index fits an 8-entry port array: no bounds checks.
        let b = (self.0.trailing_zeros() & 7) as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

#[inline(always)]
pub(crate) fn bits(m: u8) -> Bits {
    Bits(m)
}

/// Bit `k` set when `v[k]`: one multiply instead of eight shifts. Each
/// byte is 0 or 1 and the constant moves byte `k` to bit `56 + k`; the other
/// partial products land on distinct bits outside 56..64, so nothing
/// carries into the result.
#[inline(always)]
fn bool_mask(v: &[bool; MAX_INPUTS]) -> u8 {
    const _: () = assert!(MAX_INPUTS == 8, "bool_mask packs eight bytes");
    let x = u64::from_le_bytes(v.map(u8::from));
    (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// [`step_in_place`] with the port masks `m` of `s` supplied by the caller
/// and brought up to date for the registers after the edge.
///
/// The link handshake of this edge is decided from registers before it:
/// output `o` sends when it holds a flit and `io.ready[o]`; input `i`
/// accepts when `io.valid[i]` and its registered `ready`. The accepted
/// flits are appended to their FIFOs first, then [`step_edge`] does the
/// rest: the form the fabric kernel uses, which moves every flit across its
/// link before any router steps (`fabric::Fabric::evaluate`).
pub fn step_masked(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    io: &RouterInputs,
    m: &mut PortMasks,
) -> Activity {
    let mut sent = 0u8;
    for o in bits(m.valid) {
        sent |= (io.ready[o] as u8) << o;
    }
    let mut arrived = 0u8;
    for i in bits(bool_mask(&io.valid) & low_bits(p.inputs())) {
        if s.inp[i].ready {
            s.inp[i].fifo.push(io.flit[i], p.depth);
            arrived |= 1 << i;
        }
    }
    step_edge_as(cfg, p, s, m, Edge { sent, arrived }, &mut NoSidecar)
}

/// [`step_edge`] under the router's own contract (`p.hop`): the standard
/// step, then with the fast hop `fast_hop`. For callers that do not
/// keep the two apart themselves (the fabric kernel chooses once a cycle).
#[inline(always)]
pub fn step_edge_as(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    m: &mut PortMasks,
    e: Edge,
    side: &mut impl Sidecar,
) -> Activity {
    match p.hop {
        Hop::Standard => step_edge(cfg, p, s, m, e, side),
        Hop::Fast => step_edge_fast(cfg, p, s, m, e, side),
    }
}

/// [`step_edge`] under the fast hop ([`Hop::Fast`]): the standard edge,
/// then its two shortcuts (`fast_hop`).
///
/// Why after the standard step and not inside it: both shortcuts only add
/// to what the standard edge did at ports it left alone, and with them
/// inside it (even never taken) the standard kernel ran 5 % more
/// instructions (callgrind, 16×16 torus; the compiler then kept the
/// edge's `Activity` in memory). Why the result is the same as deciding
/// them within the edge: a bypass candidate's FIFO was empty, so the
/// standard edge made no decision there and loaded none of its reserved
/// outputs (only an output's owner loads it); a forwarded HEAD's output
/// had no owner before the grant, so nothing loaded it at this edge
/// either. Such an output can load exactly when it is not valid after
/// the standard edge, and the arbitration never saw what the shortcuts
/// change (it reads the owners before the edge).
#[inline(always)]
pub fn step_edge_fast(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    m: &mut PortMasks,
    e: Edge,
    side: &mut impl Sidecar,
) -> Activity {
    let was_nonempty = m.nonempty;
    let mut act = step_edge(cfg, p, s, m, e, side);
    fast_hop(p, s, m, e.arrived & !was_nonempty, &mut act, side);
    act
}

/// What a caller keeps beside a router's registers and follows through
/// [`step_edge`] as it happens: the fabric's shadow message numbers and
/// head-move times. Not hardware, and never read by the next-state
/// function, so the registers after the edge are the same whatever the
/// sidecar does. Why a hook and not the [`Activity`]: the
/// fabric used to rebuild these from it in a second pass over the loaded
/// outputs and popped inputs, re-deriving each flit's FIFO slot; here each
/// fact is recorded where the step knows it (3 % fewer instructions on the
/// matched mesh, docs/history/performance-log.md, round 6).
pub trait Sidecar {
    /// Input `i`'s head flit, ring slot `slot`, is loaded into `outs`.
    /// `discarding`: the input was in `Discard` before the edge.
    fn load(&mut self, i: usize, slot: usize, outs: u8, discarding: bool);
    /// Input `i`'s head flit left its FIFO (any reason).
    fn popped(&mut self, i: usize);
}

/// The sidecar of callers that keep nothing beside the registers.
pub struct NoSidecar;

impl Sidecar for NoSidecar {
    #[inline(always)]
    fn load(&mut self, _: usize, _: usize, _: u8, _: bool) {}
    #[inline(always)]
    fn popped(&mut self, _: usize) {}
}

/// The handshake of one edge at one router, decided from the registers
/// before it (see [`step_edge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Edge {
    /// Outputs whose flit leaves (downstream ready).
    pub sent: u8,
    /// Inputs that accepted a flit, already appended to their FIFO.
    pub arrived: u8,
}

/// The rest of the clock edge once the flits of `e.arrived` are in their
/// FIFOs: the registers before the edge are `s` without those flits, and
/// `m` their masks (so `m.nonempty` still says which FIFOs held a flit
/// before the edge).
///
/// Why appending first changes nothing: a flit appended to a FIFO that
/// held one is behind its head, and only inputs in `m.nonempty` decide, so
/// no decision sees a flit that arrived at this edge; a pop then takes the
/// old head, and the ring slot the arrival took, `rd + count` before the
/// pop, is the one it would take after it (`rd + 1 + count − 1`).
///
/// Why this in-place form is the same function as the two-buffer
/// [`step`]: every register is read before the first write that could
/// change it. The outputs' `valid` and `owner` bits are taken from the
/// masks (`can_load`, `owned`) before any output is written; input `i`'s
/// decision reads only input `i`'s registers, which no other input's
/// action writes; the priority is read before it is written. Writes happen
/// in the same order as in the two-buffer form (inputs in ascending
/// order), so where two writes hit one register the same one wins. A port
/// the masks leave out is one whose registers this edge cannot change: an
/// empty idle input with no arrival, an empty output register. `step`
/// (copy, then this) keeps the two-buffer contract for its callers, and
/// `sim/tests` plus the lockstep tests check it against the RTL.
#[inline(always)]
pub fn step_edge(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    m: &mut PortMasks,
    e: Edge,
    side: &mut impl Sidecar,
) -> Activity {
    debug_assert_eq!(
        PortMasks {
            nonempty: m.nonempty | e.arrived,
            ..*m
        },
        PortMasks::of(s, p),
        "port masks out of date"
    );
    debug_assert_eq!(e.sent & !m.valid, 0, "an empty output cannot send");
    let n_in = p.inputs();
    let n_out = p.outputs();
    let mut act = Activity {
        loaded_from: [NO_OWNER; MAX_OUTPUTS],
        pushed: e.arrived,
        sent: e.sent,
        ..Activity::default()
    };

    // Output registers: a sent flit leaves; an output can take a new flit
    // at this edge if it is empty or its flit leaves now.
    let was_valid = m.valid;
    for o in bits(e.sent) {
        s.out[o].valid = false;
    }
    let can_load = (!was_valid | act.sent) & low_bits(n_out);
    let owned = m.owned;

    // Decide every non-empty input's action from its FIFO head.
    let mut requests = [0u8; MAX_INPUTS];
    let mut requesting = 0u8;
    let mut strips = 0u8;
    let mut diverts = 0u8;
    let mut classes = [0u8; MAX_INPUTS];
    for i in bits(m.nonempty) {
        let f = s.inp[i].fifo.get(0);
        if s.inp[i].state == InState::Discard {
            act.discarded |= 1 << i;
        }
        match decide(cfg, p, i, &s.inp[i], f, owned) {
            Action::Setup => s.inp[i].setup += 1,
            Action::Strip => {
                s.inp[i].strip = false;
                pop_head(s, side, &mut act, i);
            }
            Action::Request {
                mask,
                strip,
                class,
                divert,
            } => {
                requests[i] = mask;
                classes[i] = class;
                requesting |= ((mask != 0) as u8) << i;
                strips |= (strip as u8) << i;
                diverts |= (divert as u8) << i;
            }
            Action::Send {
                flit,
                outs,
                release,
            } => {
                if outs & can_load == outs {
                    // `outs` lies within `can_load`, so within `n_out`.
                    for o in bits(outs) {
                        s.out[o].flit = flit;
                        s.out[o].valid = true;
                        act.loaded_from[o] = i as u8;
                    }
                    act.loaded |= outs;
                    let reserved = s.inp[i].reserved;
                    let discarding = act.discarded >> i & 1 == 1;
                    side.load(i, s.inp[i].fifo.rd as usize, outs, discarding);
                    pop_head(s, side, &mut act, i);
                    if release {
                        release_all(s, m, i, reserved);
                    }
                }
            }
            Action::Drop { to_idle } => {
                pop_head(s, side, &mut act, i);
                if to_idle {
                    // Only a TAIL at a discarding input that holds nothing.
                    act.truncated |= 1 << i;
                    s.inp[i].state = InState::Idle;
                    m.nonidle &= !(1 << i);
                }
            }
            Action::Error { err, to_idle } => {
                pop_head(s, side, &mut act, i);
                act.errors |= 1 << i;
                if to_idle {
                    // Only a TAIL at an idle input (`BodyAtIdle`).
                    act.truncated |= 1 << i;
                }
                act.err_codes[i] = err.code();
                s.inp[i].state = if to_idle {
                    m.nonidle &= !(1 << i);
                    InState::Idle
                } else {
                    m.nonidle |= 1 << i;
                    InState::Discard
                };
                s.err_count = s.err_count.saturating_add(1);
                s.err_code = err.code();
            }
        }
    }

    // Atomic reservation among idle inputs with a request.
    // With no request the arbiter changes nothing (its priority is kept), so
    // it is skipped: the common case of a router only streaming bodies.
    if requesting != 0 {
        let maskable = if p.routing.is_mesh() { 0 } else { 0xFF };
        let arb = arbiter::arbitrate_masking(&requests[..n_in], owned, s.prio, maskable);
        s.prio = arb.prio;
        for i in bits(arb.granted) {
            let mask = requests[i];
            // The RTL drops owner bits outside this (`t_owners`).
            debug_assert_eq!(
                mask & !routing::reachable_outputs(cfg, p, i),
                0,
                "input {i} granted outputs {mask:#b} it cannot reach"
            );
            act.granted |= 1 << i;
            s.inp[i].state = if diverts >> i & 1 == 1 {
                InState::Diverted
            } else {
                InState::Active
            };
            s.inp[i].reserved = mask;
            s.inp[i].class = classes[i];
            for o in bits(mask) {
                s.out[o].owner = i as u8;
            }
            m.owned |= mask;
            m.nonidle |= 1 << i;
            if strips >> i & 1 == 1 {
                if p.strip_deferred {
                    // The HEAD leaves at the next edge: the pop no longer
                    // hangs on this cycle's arbitration (docs/hardware.md 3h).
                    s.inp[i].strip = true;
                } else {
                    pop_head(s, side, &mut act, i);
                }
            }
        }
    }

    // Register ready for the next cycle, only where the FIFO's length
    // changed (elsewhere it already equals `len < depth`).
    for i in bits(act.popped | act.pushed) {
        let inp = &mut s.inp[i];
        if act.popped >> i & 1 == 1 {
            inp.setup = 0;
        }
        inp.ready = inp.fifo.len() < p.depth;
        if inp.fifo.is_empty() {
            m.nonempty &= !(1 << i);
        }
    }
    m.nonempty |= act.pushed;
    act.busy = m.nonempty | m.nonidle;
    act.out_valid = (was_valid & !act.sent) | act.loaded;
    m.valid = act.out_valid;
    act
}

/// Input `i`'s head flit leaves its FIFO, for whatever reason (sent,
/// stripped, dropped, malformed): the FIFO, the sidecar and the edge's
/// activity learn it together, so no path that pops can forget one of
/// them.
#[inline(always)]
fn pop_head(s: &mut RouterState, side: &mut impl Sidecar, act: &mut Activity, i: usize) {
    s.inp[i].fifo.pop();
    side.popped(i);
    act.popped |= 1 << i;
}

/// The inputs the fast hop's bypass serves: the four links (inputs 0–3,
/// before the injection inputs). Not the injection inputs (area): there
/// the bypass would save one cycle per message, not per hop, for a
/// flit-wide multiplexer (docs/hardware.md 3t). The RTL's bypass reads
/// this mask too.
pub const LINK_INPUTS: u8 = 0x0F;

/// The fast hop's two shortcuts, after the standard edge (see
/// [`step_edge_fast`]); `arrived_empty` are the inputs whose flit arrived
/// at this edge into an empty FIFO.
///
/// * **Bypass.** A link input of `arrived_empty` that holds a worm
///   (`Active` or `Diverted`) and got a BODY or TAIL sends it to every
///   reserved output if all can load, as if it had been at the FIFO head:
///   it leaves the FIFO it just entered, and a TAIL releases the outputs.
///   A trailing HEAD stays: its split rule is a decode, which would put
///   the routing block on the link's path.
/// * **Forwarded HEAD.** An input granted at this edge for a first HEAD it
///   does not strip sends the HEAD, unchanged, where the next cycle's
///   trailing-HEAD rule would (such a HEAD reserves one link, or when it
///   diverts its consumption channel, `routing::diverted_head`), if that
///   output can load.
#[inline(never)]
fn fast_hop(
    p: &RouterParams,
    s: &mut RouterState,
    m: &mut PortMasks,
    arrived_empty: u8,
    act: &mut Activity,
    side: &mut impl Sidecar,
) {
    let mut gone = 0u8;
    for i in bits(arrived_empty & LINK_INPUTS) {
        let r = &s.inp[i];
        let f = r.fifo.get(0);
        let kind = flit::kind(f);
        let reserved = r.reserved;
        if matches!(r.state, InState::Active | InState::Diverted)
            && matches!(kind, Kind::Body | Kind::Tail)
            && free(s, reserved)
        {
            load(s, side, act, i, f, reserved);
            if kind == Kind::Tail {
                release_all(s, m, i, reserved);
            }
            gone |= 1 << i;
        }
    }
    // Granted and still holding their HEAD: not stripped (a deferred
    // strip leaves at the next edge).
    for i in bits(act.granted & !act.popped) {
        let r = &s.inp[i];
        if r.strip {
            continue;
        }
        let fwd = if r.state == InState::Diverted {
            r.reserved & 0xF0
        } else {
            r.reserved
        };
        if free(s, fwd) {
            let f = r.fifo.get(0);
            load(s, side, act, i, f, fwd);
            gone |= 1 << i;
        }
    }
    for i in bits(gone) {
        pop_head(s, side, act, i);
        let inp = &mut s.inp[i];
        inp.setup = 0;
        inp.ready = inp.fifo.len() < p.depth;
        if inp.fifo.is_empty() {
            m.nonempty &= !(1 << i);
        }
    }
    act.busy = m.nonempty | m.nonidle;
    act.out_valid |= act.loaded;
    m.valid = act.out_valid;
}

/// Whether every output of `outs` can take a flit after the standard edge
/// (it is empty: no flit stayed, none was loaded).
#[inline(always)]
fn free(s: &RouterState, outs: u8) -> bool {
    bits(outs).all(|o| !s.out[o].valid)
}

/// Input `i`'s head flit `flit` into output registers `outs` (the fast
/// hop's shortcuts; a worm's first flits, never a discarding input's).
/// The standard send in [`step_edge`] writes the same few lines inline on
/// purpose: calling this helper there (with a `discarding` argument) made
/// the standard kernel run 5 % more instructions again (callgrind, 16×16
/// torus: 287.8 M against 273.8 M).
#[inline(always)]
fn load(
    s: &mut RouterState,
    side: &mut impl Sidecar,
    act: &mut Activity,
    i: usize,
    flit: Flit,
    outs: u8,
) {
    for o in bits(outs) {
        s.out[o].flit = flit;
        s.out[o].valid = true;
        act.loaded_from[o] = i as u8;
    }
    act.loaded |= outs;
    side.load(i, s.inp[i].fifo.rd as usize, outs, false);
}

/// Bit `o` set when output `o` has an owner.
pub fn owned_mask(s: &RouterState, n_out: usize) -> u8 {
    (0..n_out).fold(0u8, |m, o| m | ((s.out[o].owner != NO_OWNER) as u8) << o)
}

/// Frees input `i`'s reservation and returns it to `Idle`, registers and
/// masks together.
fn release_all(s: &mut RouterState, m: &mut PortMasks, i: usize, reserved: u8) {
    for o in bits(reserved) {
        s.out[o].owner = NO_OWNER;
    }
    s.inp[i].reserved = 0;
    s.inp[i].state = InState::Idle;
    m.owned &= !reserved;
    m.nonidle &= !(1 << i);
}

/// The per-input decision for head flit `f`. Always inlined: its common
/// case (a BODY or TAIL streaming on) is a few instructions, and as a call
/// it returns the `Action` through memory (measured: 5 % more instructions
/// on the matched mesh when the compiler chose not to inline it).
#[inline(always)]
fn decide(
    cfg: &RouterConfig,
    p: &RouterParams,
    i: usize,
    r: &InputRegs,
    f: Flit,
    owned: u8,
) -> Action {
    let kind = flit::kind(f);
    // The common case first, as a plain branch: the `match` below compiles
    // to an indirect jump. Its arm for these cases is the same call.
    if matches!(r.state, InState::Active | InState::Diverted)
        && matches!(kind, Kind::Body | Kind::Tail)
    {
        return stream(r, f, kind);
    }
    if r.strip {
        return Action::Strip;
    }
    match (r.state, kind) {
        (InState::Idle, Kind::Head) if (r.setup as u32) < p.setup_cycles => Action::Setup,
        (InState::Idle, Kind::Head) => match routing::first_head(cfg, p, i, f, owned) {
            Ok((mask, strip, class)) => Action::Request {
                mask,
                strip,
                class,
                // Only a diversion requests a consumption channel without
                // stripping the HEAD.
                divert: !strip && mask >> 4 != 0,
            },
            Err(err) => Action::Error {
                err,
                to_idle: false,
            },
        },
        (InState::Idle, Kind::Body) => Action::Error {
            err: RouterError::BodyAtIdle,
            to_idle: false,
        },
        (InState::Idle, Kind::Tail) => Action::Error {
            err: RouterError::BodyAtIdle,
            to_idle: true,
        },
        (InState::Active, Kind::Head) => match routing::trailing_head(cfg, p, r, f) {
            Ok((out, flit)) => Action::Send {
                flit,
                outs: 1 << out,
                release: false,
            },
            Err(err) => Action::Error {
                err,
                to_idle: false,
            },
        },
        (InState::Active | InState::Diverted, Kind::Body | Kind::Tail) => stream(r, f, kind),
        // A diverted worm: its HEADs go to the consumption channel unless
        // they lead a healthy reserved branch.
        (InState::Diverted, Kind::Head) => {
            let (outs, flit) = routing::diverted_head(cfg, r, f);
            Action::Send {
                flit,
                outs,
                release: false,
            }
        }
        (InState::Idle | InState::Active | InState::Diverted, Kind::Reserved) => Action::Error {
            err: RouterError::ReservedKind,
            to_idle: false,
        },
        (InState::Discard, Kind::Tail) => {
            if r.reserved == 0 {
                Action::Drop { to_idle: true }
            } else {
                Action::Send {
                    flit: f,
                    outs: r.reserved,
                    release: true,
                }
            }
        }
        (InState::Discard, _) => Action::Drop { to_idle: false },
    }
}

/// BODY or TAIL `f` of a worm that holds its outputs (`Active` or
/// `Diverted`): to every reserved output; the TAIL releases them.
fn stream(r: &InputRegs, f: Flit, kind: Kind) -> Action {
    Action::Send {
        flit: f,
        outs: r.reserved,
        release: kind == Kind::Tail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bool_mask_packs_every_pattern() {
        for m in 0..=255u8 {
            let v: [bool; MAX_INPUTS] = std::array::from_fn(|k| m >> k & 1 == 1);
            assert_eq!(bool_mask(&v), m);
        }
    }

    #[test]
    fn bits_lists_set_bits_lowest_first() {
        assert_eq!(bits(0b1010_0101).collect::<Vec<_>>(), [0, 2, 5, 7]);
        assert_eq!(bits(0).count(), 0);
    }
}
