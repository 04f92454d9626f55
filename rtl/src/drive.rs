//! Direct cycle-by-cycle driving of the rust-hdl router, for lockstep with
//! the native model (docs/architecture.md §2): set the inputs, settle, toggle the
//! clock. Faster than rust-hdl's threaded `Simulation` by two orders of
//! magnitude.

use crate::hw::owner_rtl;
use crate::names::Reg;
use crate::router::{Fault, Router};
use rust_hdl::prelude::*;
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::router::{RouterInputs, RouterState};

/// Settling budget per half cycle; the deepest chain (arbiter) needs far fewer.
pub const SETTLE: usize = 200;

/// A rust-hdl router and its parameters.
pub struct RouterDut<const W: usize> {
    pub uut: Router<W>,
    pub params: RouterParams,
}

/// One differing signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub router: u32,
    pub signal: String,
    pub native: u64,
    pub rtl: u64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cycle {} router {} signal {}: native {:#x}, rtl {:#x}",
            self.cycle, self.router, self.signal, self.native, self.rtl
        )
    }
}

/// Settles `uut` or panics: a combinational loop is a design bug.
pub fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, SETTLE), "rust-hdl model did not settle");
}

/// One clock edge: inputs must already be set.
pub fn clock_edge<B: Block>(uut: &mut B, clock: impl Fn(&mut B, bool)) {
    settle(uut);
    clock(uut, true);
    settle(uut);
    clock(uut, false);
    settle(uut);
}

impl<const W: usize> RouterDut<W> {
    pub fn new(cfg: &RouterConfig, params: &RouterParams, fault: Fault) -> Self {
        let mut uut = Router::<W>::with_fault(cfg, params, fault);
        uut.connect_all();
        let mut d = RouterDut {
            uut,
            params: *params,
        };
        d.reset();
        d
    }

    /// One cycle with `rst` high: every register to `RouterState::reset()`.
    pub fn reset(&mut self) {
        self.uut.rst.next = true;
        self.set_inputs(&RouterInputs::default());
        self.tick();
        self.uut.rst.next = false;
        settle(&mut self.uut);
    }

    pub fn set_inputs(&mut self, io: &RouterInputs) {
        for i in 0..self.params.inputs() {
            self.uut.i_flit[i].next = io.flit[i].into();
            self.uut.i_valid[i].next = io.valid[i];
        }
        for o in 0..self.params.outputs() {
            self.uut.o_ready[o].next = io.ready[o];
        }
    }

    pub fn tick(&mut self) {
        clock_edge(&mut self.uut, |u, c| u.clock.next = c.into());
    }

    /// Compares every output (all `out` flit/valid, all `in` ready,
    /// `err_count`, `err_code`) and, with `internal`, every register the two
    /// models share, against the native state after the same edge.
    pub fn compare(
        &self,
        s: &RouterState,
        cycle: u64,
        router: u32,
        internal: bool,
    ) -> Result<(), Mismatch> {
        compare_router(&self.uut, &self.params, s, cycle, router, internal)
    }
}

/// See [`RouterDut::compare`].
pub fn compare_router<const W: usize>(
    u: &Router<W>,
    p: &RouterParams,
    s: &RouterState,
    cycle: u64,
    router: u32,
    internal: bool,
) -> Result<(), Mismatch> {
    let chk = |reg: Reg, native: u64, rtl: u64| {
        if native == rtl {
            Ok(())
        } else {
            Err(Mismatch {
                cycle,
                router,
                signal: reg.native(),
                native,
                rtl,
            })
        }
    };
    for o in 0..p.outputs() {
        chk(
            Reg::OutValid(o),
            s.out[o].valid as u64,
            u.o_valid[o].val() as u64,
        )?;
        // Compared even when not valid: both models keep the stale flit.
        chk(Reg::OutFlit(o), s.out[o].flit, u.o_flit[o].val().to_u64())?;
    }
    for i in 0..p.inputs() {
        chk(
            Reg::InReady(i),
            s.inp[i].ready as u64,
            u.i_ready[i].val() as u64,
        )?;
    }
    chk(
        Reg::ErrCount,
        s.err_count as u64,
        u.err_count_o.val().to_u64(),
    )?;
    chk(Reg::ErrCode, s.err_code as u64, u.err_code_o.val().to_u64())?;
    if internal {
        for i in 0..p.inputs() {
            let r = &s.inp[i];
            chk(
                Reg::InState(i),
                r.state as u64,
                u.in_state[i].q.val().to_u64(),
            )?;
            chk(
                Reg::InReserved(i),
                r.reserved as u64,
                u.in_reserved[i].q.val().to_u64(),
            )?;
            chk(
                Reg::InCount(i),
                r.fifo.count as u64,
                u.fifo[i].count.val().to_u64(),
            )?;
            chk(
                Reg::InClass(i),
                r.class as u64,
                u.in_class[i].q.val().to_u64(),
            )?;
            chk(
                Reg::InSetup(i),
                r.setup as u64,
                u.in_setup[i].q.val().to_u64(),
            )?;
            // Empty without a deferred strip, where the native flag is
            // never set: compared as 0.
            chk(
                Reg::InStrip(i),
                r.strip as u64,
                u.in_strip.get(i).map_or(0, |r| r.q.val() as u64),
            )?;
        }
        for o in 0..p.outputs() {
            chk(
                Reg::OutOwner(o),
                owner_rtl(s.out[o].owner),
                u.out_owner[o].q.val().to_u64(),
            )?;
        }
        chk(Reg::Prio, s.prio as u64, u.prio.q.val().to_u64())?;
    }
    Ok(())
}
