//! The native cycle model of the wormcast router (ARCHITECTURE §3, paper 000
//! §3): header decode, atomic all-or-nothing reservation, replication with
//! coordinated flow control, consumption channels per class.
//!
//! RTL style: [`RouterState`] holds exactly the registers the RTL has, with
//! the same names; [`step`] is the pure next-state function of (configuration,
//! registers, inputs) into a separate next state; [`step_in_place`] is the
//! same function applied to the registers themselves, which the fabric
//! kernel uses so it never copies a whole state. Outputs are
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

pub mod arbiter;
pub mod error;
pub mod fifo;
pub mod mesh;
pub mod routing;
pub mod spam;

use crate::config::{RouterConfig, RouterParams, MAX_INPUTS, MAX_OUTPUTS};
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
    /// Local fault information (paper 000 §7): a branch of the worm met a
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

/// Side information about one cycle, for statistics and the simulator's
/// shadow bookkeeping; not part of the hardware.
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
    /// Inputs whose FIFO was empty before the edge.
    pub was_empty: u8,
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
    None,
    /// A first HEAD still paying the header setup delay.
    Setup,
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
    Send {
        flit: Flit,
        outs: u8,
        release: bool,
    },
    /// Drop the head flit; `release_idle` returns to Idle.
    Drop {
        to_idle: bool,
    },
    /// Malformed: count `err`, drop the head flit, go to Discard (or stay
    /// Idle for a TAIL at an idle input).
    Error {
        err: RouterError,
        to_idle: bool,
    },
}

/// The next-state function. `next` receives the registers after the clock
/// edge; the returned [`Activity`] describes what moved.
///
/// The reference form (tests, lockstep, vectors); the fabric kernel calls
/// [`step_in_place`] directly so it never copies a whole router state.
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
/// clock edge on entry and after it on return.
///
/// Why this is the same function: every register is read before the first
/// write that could change it. The outputs' `valid` and `owner` bits are
/// sampled (`can_load`, `owned`) before any output is written; input `i`'s
/// decision reads only input `i`'s registers, which no other input's action
/// writes; the priority is read before it is written; `ready` is read in the
/// last loop just before it is rewritten. Writes happen in the same order as
/// in the two-buffer form, so where two writes hit one register the same
/// one wins. `step` (copy, then this) keeps the two-buffer contract for its
/// callers, and `sim/tests` plus the lockstep tests check it against the RTL.
pub fn step_in_place(
    cfg: &RouterConfig,
    p: &RouterParams,
    s: &mut RouterState,
    io: &RouterInputs,
) -> Activity {
    let n_in = p.inputs();
    let n_out = p.outputs();
    let mut act = Activity {
        loaded_from: [NO_OWNER; MAX_OUTPUTS],
        ..Activity::default()
    };

    // Output registers: a flit leaves when downstream is ready; an output can
    // take a new flit at this edge if it is empty or its flit leaves now.
    // The owners are sampled in the same pass (`owned`): nothing below writes
    // an owner before every input has decided.
    let mut can_load = 0u8;
    let mut was_valid = 0u8;
    let mut owned = 0u8;
    for (o, out) in s.out[..n_out].iter_mut().enumerate() {
        let valid = out.valid;
        let ready = io.ready[o];
        was_valid |= (valid as u8) << o;
        owned |= ((out.owner != NO_OWNER) as u8) << o;
        if valid && ready {
            act.sent |= 1 << o;
            out.valid = false;
        }
        can_load |= ((!valid || ready) as u8) << o;
    }

    // Decide every input's action from its current FIFO head.
    let mut requests = [0u8; MAX_INPUTS];
    let mut strips = 0u8;
    let mut diverts = 0u8;
    let mut classes = [0u8; MAX_INPUTS];
    for i in 0..n_in {
        let action = match s.inp[i].fifo.peek() {
            None => {
                act.was_empty |= 1 << i;
                Action::None
            }
            Some(f) => {
                if s.inp[i].state == InState::Discard {
                    act.discarded |= 1 << i;
                }
                decide(cfg, p, i, &s.inp[i], f, owned)
            }
        };
        match action {
            Action::None => {}
            Action::Setup => s.inp[i].setup += 1,
            Action::Request {
                mask,
                strip,
                class,
                divert,
            } => {
                requests[i] = mask;
                classes[i] = class;
                if strip {
                    strips |= 1 << i;
                }
                if divert {
                    diverts |= 1 << i;
                }
            }
            Action::Send {
                flit,
                outs,
                release,
            } => {
                if outs & can_load == outs {
                    // `outs` lies within `can_load`, so within `n_out`.
                    let mut m = outs;
                    while m != 0 {
                        let o = m.trailing_zeros() as usize;
                        m &= m - 1;
                        s.out[o].flit = flit;
                        s.out[o].valid = true;
                        act.loaded_from[o] = i as u8;
                    }
                    act.loaded |= outs;
                    let reserved = s.inp[i].reserved;
                    s.inp[i].fifo.pop();
                    act.popped |= 1 << i;
                    if release {
                        release_all(s, i, reserved, n_out);
                    }
                }
            }
            Action::Drop { to_idle } => {
                s.inp[i].fifo.pop();
                act.popped |= 1 << i;
                if to_idle {
                    // Only a TAIL at a discarding input that holds nothing.
                    act.truncated |= 1 << i;
                    s.inp[i].state = InState::Idle;
                }
            }
            Action::Error { err, to_idle } => {
                s.inp[i].fifo.pop();
                act.popped |= 1 << i;
                act.errors |= 1 << i;
                if to_idle {
                    // Only a TAIL at an idle input (`BodyAtIdle`).
                    act.truncated |= 1 << i;
                }
                act.err_codes[i] = err.code();
                s.inp[i].state = if to_idle {
                    InState::Idle
                } else {
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
    if requests[..n_in].iter().any(|&m| m != 0) {
        let maskable = if p.routing.is_mesh() { 0 } else { 0xFF };
        let arb = arbiter::arbitrate_masking(&requests[..n_in], owned, s.prio, maskable);
        s.prio = arb.prio;
        for i in 0..n_in {
            if arb.granted >> i & 1 == 1 {
                let mask = requests[i];
                act.granted |= 1 << i;
                s.inp[i].state = if diverts >> i & 1 == 1 {
                    InState::Diverted
                } else {
                    InState::Active
                };
                s.inp[i].reserved = mask;
                s.inp[i].class = classes[i];
                for o in 0..n_out {
                    if mask >> o & 1 == 1 {
                        s.out[o].owner = i as u8;
                    }
                }
                if strips >> i & 1 == 1 {
                    s.inp[i].fifo.pop();
                    act.popped |= 1 << i;
                }
            }
        }
    }

    // Accept flits from upstream, then register ready for the next cycle.
    let mut popped = act.popped;
    while popped != 0 {
        let i = popped.trailing_zeros() as usize;
        popped &= popped - 1;
        s.inp[i].setup = 0;
    }
    for (i, inp) in s.inp[..n_in].iter_mut().enumerate() {
        // `ready` is still the value upstream saw: it is rewritten just below.
        if io.valid[i] && inp.ready {
            inp.fifo.push(io.flit[i], p.depth);
            act.pushed |= 1 << i;
        }
        inp.ready = inp.fifo.len() < p.depth;
        act.busy |= ((!inp.fifo.is_empty() || inp.state != InState::Idle) as u8) << i;
    }
    act.out_valid = (was_valid & !act.sent) | act.loaded;
    act
}

/// Bit `o` set when output `o` has an owner.
pub fn owned_mask(s: &RouterState, n_out: usize) -> u8 {
    (0..n_out).fold(0u8, |m, o| m | ((s.out[o].owner != NO_OWNER) as u8) << o)
}

fn release_all(s: &mut RouterState, i: usize, reserved: u8, n_out: usize) {
    for o in 0..n_out {
        if reserved >> o & 1 == 1 {
            s.out[o].owner = NO_OWNER;
        }
    }
    s.inp[i].reserved = 0;
    s.inp[i].state = InState::Idle;
}

/// The per-input decision for head flit `f`.
fn decide(
    cfg: &RouterConfig,
    p: &RouterParams,
    i: usize,
    r: &InputRegs,
    f: Flit,
    owned: u8,
) -> Action {
    let kind = flit::kind(f);
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
        (InState::Active, Kind::Body) => Action::Send {
            flit: f,
            outs: r.reserved,
            release: false,
        },
        (InState::Active, Kind::Tail) => Action::Send {
            flit: f,
            outs: r.reserved,
            release: true,
        },
        // A diverted worm: its HEADs go to the consumption channel unless
        // they lead a healthy reserved branch; BODY and TAIL go to every
        // reserved output and the TAIL releases them.
        (InState::Diverted, Kind::Head) => {
            let (outs, flit) = routing::diverted_head(cfg, r, f);
            Action::Send {
                flit,
                outs,
                release: false,
            }
        }
        (InState::Diverted, Kind::Body | Kind::Tail) => Action::Send {
            flit: f,
            outs: r.reserved,
            release: kind == Kind::Tail,
        },
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
