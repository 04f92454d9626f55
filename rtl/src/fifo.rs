//! The input buffer of one router input (docs/architecture.md §3 "Link protocol"):
//! `depth` flits with a fill `count`, plus the registered `ready` sent
//! upstream, and the head's pre-decode (`Decode::side`). The fill is kept
//! as a thermometer (`t` below), of which `count` is the binary value.
//!
//! Same contract as the native `router::fifo::Fifo` and the accept step of
//! `router::step`: a flit is pushed at an edge when the upstream `valid` and
//! this input's registered `ready` are both 1; a pop and a push may happen in
//! the same cycle; `ready` after the edge is `count after the edge < depth`,
//! so it never over-commits and needs no credit counter.
//!
//! Hardware choice (timing): the slots form a shift
//! register whose slot 0 is always the head, where the native model keeps a
//! ring with a read pointer. The head, `count` and `ready` are identical.
//! With a ring, the head is a `depth`:1 multiplexer behind the read
//! pointer, at the start of the router's longest path (head → decode →
//! arbiter → grant → pop), and synthesis folds that multiplexer into every
//! output's crossbar cone (measured: +280 SB_LUT4 on the default router);
//! here the head is a register output and the multiplexer is on the write
//! side, one 2:1 multiplexer per bit of each slot but the last.
//!
//! The pop, the last signal the router computes, ends that path at these
//! slots, so it only enables them: slot k loads when the head leaves or
//! when it is free (`count <= k`; what a free slot holds is never read),
//! and what it loads is chosen from the fill alone, registers: its
//! successor when that holds a flit (`count >= k + 2`), else the upstream
//! flit. Both cases are right: with a pop and `count = k + 1` the push (if
//! any) writes position `count - 1 = k`; without a pop a push writes
//! position `count`, the one free slot that takes a flit.
//!
//! The last slot does not take the pop at all: it loads exactly when it is
//! free, which is when `ready` (a register) is 1 (`count < depth`). The
//! pop could only matter with the FIFO full, and then `ready` is 0, so no
//! push comes in that cycle and the slot, free after the pop, would load
//! a flit nobody reads. At depth 2 this halves the flip-flops the pop
//! enables (timing: the pop's enable net ended the
//! router's critical path at a last-slot flip-flop).
//!
//! Only the head carries a pre-decode (area): it is
//! computed from what slot 0 loads (`enter_flit`, the second flit or the
//! upstream flit, chosen by `count`) and loaded with slot 0. Flits enter
//! slot 0 one at a time and in the order they were pushed, so the
//! router's worm register, now loaded as each flit enters slot 0, takes
//! the same sequence of values as when it was loaded as each flit was
//! pushed, and each flit's pre-decode is the same. Decoding the upstream flit as it was
//! pushed needed the pre-decode in every slot and a multiplexer for it
//! in front of slot 0 (`synth_xilinx`: 1 114 → 1 056 LUTs with
//! `enter_hz`; docs/hardware.md 3o).

use crate::decode::SIDE_W;
use rust_hdl::prelude::*;
use wormcast_sim::config::MAX_DEPTH;

/// Width of `count` (0..=`MAX_DEPTH`).
pub const COUNT_W: usize = 4;

#[derive(LogicBlock)]
pub struct InputFifo<const W: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset to `RouterState::reset()` (empty, ready).
    pub rst: Signal<In, Bit>,
    /// Upstream flit and valid (the link wires).
    pub in_flit: Signal<In, Bits<W>>,
    pub in_valid: Signal<In, Bit>,
    /// The pre-decode (`Decode::side`) of `enter_flit`, stored beside
    /// the head when slot 0 loads.
    pub in_side: Signal<In, Bits<SIDE_W>>,
    /// Drop the head flit at this edge (the router core decided it left).
    pub pop: Signal<In, Bit>,
    /// The oldest flit (meaningful when `count` > 0).
    pub head: Signal<Out, Bits<W>>,
    /// The head flit's pre-decode.
    pub head_side: Signal<Out, Bits<SIDE_W>>,
    /// What slot 0 loads when it loads: the second flit when there is
    /// one (`count` >= 2), else the upstream flit. Chosen by the fill
    /// alone (registers), so it is known early in the cycle; the router
    /// pre-decodes it (`in_side`).
    pub enter_flit: Signal<Out, Bits<W>>,
    /// Whether `enter_flit`'s bits under `zmask` are all 0 (for a HEAD:
    /// its `Node` fits the address width), computed as each flit is
    /// pushed and carried beside it, one bit a slot. The tree routing
    /// block reads it instead of an OR over `enter_flit`'s upper bits:
    /// behind the slot multiplexer that OR took two LUT levels and about
    /// ten Xilinx LUTs an input, here it is one OR of the upstream flit
    /// and one more multiplexer bit (area).
    pub enter_hz: Signal<Out, Bit>,
    /// Flits held: the binary value of the fill (`t`), for the native
    /// register it is compared with; no logic of the router reads it.
    pub count: Signal<Out, Bits<COUNT_W>>,
    /// Registered ready to the upstream sender (register `ready`).
    pub ready: Signal<Out, Bit>,
    /// `count` > 0, as its own register: the decode reads it first thing
    /// on the router's longest path (timing).
    pub nonempty: Signal<Out, Bit>,
    /// `count` >= 2: a second flit waits behind the head (a level of the
    /// fill, see `t`).
    pub has2: Signal<Out, Bit>,

    /// Slot 0 is the head, slot k the k-th flit behind it.
    slot: Vec<DFF<Bits<W>>>,
    /// The head's pre-decode: slot 0's only.
    sslot: DFF<Bits<SIDE_W>>,
    /// Slot k's `enter_hz` bit (slot 0's is never read; synthesis drops it).
    zslot: Vec<DFF<Bit>>,
    zmask: Constant<Bits<W>>,
    /// The upstream flit's `enter_hz` bit, and what slot k's bit loads.
    in_hz: Signal<Local, Bit>,
    znxt: Vec<Signal<Local, Bit>>,
    /// The fill as a thermometer: `t[k]` = `count > k`. Its ends are the
    /// `nonempty` and `ready` registers (`t[0]` = `ne`, `t[depth - 1]` =
    /// not `rdy`), the levels between them registers of their own (none at
    /// depth 2). Why not a binary count (area): every use
    /// of the fill is one level (`count >= k + 2`, `count <= k`, empty,
    /// full), and a binary count's `+ 1`, `- 1` and compares become carry
    /// chains in `synth_xilinx` that abc cannot fold (docs/hardware.md 3s).
    mid: Vec<DFF<Bit>>,
    rdy: DFF<Bit>,
    ne: DFF<Bit>,
    t: Vec<Signal<Local, Bit>>,
    /// `t` after the edge.
    tn: Vec<Signal<Local, Bit>>,
    push: Signal<Local, Bit>,
    /// What slot k loads when it is enabled, chosen by the fill only.
    nxt: Vec<Signal<Local, Bits<W>>>,
    /// The binary `count` of mid level k (k + 2), and of the full FIFO,
    /// for the `count` port.
    kn: Vec<Constant<Bits<COUNT_W>>>,
    depth_c: Constant<Bits<COUNT_W>>,
    /// Deliberate fault for the lockstep self-test: `ready` from the fill
    /// before the edge (over-commits).
    broken: Constant<Bit>,
    _depth: usize,
    /// `depth - 1`: the slots that take their successor on a pop.
    _shift: usize,
    /// The thermometer levels between `ne` and `rdy`: `depth - 2`, or 0.
    _mid: usize,
    /// Where level 1 is kept: 1 in `mid[0]` (depth >= 3) / in `rdy`
    /// (depth 2), else 0.
    _l1_mid: usize,
    _l1_rdy: usize,
}

impl<const W: usize> InputFifo<W> {
    /// A FIFO of `depth` slots (1..=`MAX_DEPTH`); `zmask` the flit bits
    /// `enter_hz` checks.
    pub fn new(depth: usize, zmask: u64) -> Self {
        Self::with_fault(depth, zmask, false)
    }

    /// See [`crate::Fault::ReadyBeforeEdge`].
    pub fn with_fault(depth: usize, zmask: u64, broken: bool) -> Self {
        assert!((1..=MAX_DEPTH).contains(&depth), "depth {depth}");
        InputFifo {
            clock: Default::default(),
            rst: Default::default(),
            in_flit: Default::default(),
            in_valid: Default::default(),
            in_side: Default::default(),
            head_side: Default::default(),
            enter_flit: Default::default(),
            pop: Default::default(),
            head: Default::default(),
            count: Default::default(),
            ready: Default::default(),
            slot: (0..depth).map(|_| DFF::default()).collect(),
            sslot: Default::default(),
            zslot: (0..depth).map(|_| DFF::default()).collect(),
            zmask: Constant::new(zmask.into()),
            in_hz: Default::default(),
            znxt: (0..depth).map(|_| Default::default()).collect(),
            enter_hz: Default::default(),
            mid: (0..depth.saturating_sub(2))
                .map(|_| DFF::default())
                .collect(),
            rdy: Default::default(),
            ne: Default::default(),
            nonempty: Default::default(),
            has2: Default::default(),
            t: (0..depth).map(|_| Default::default()).collect(),
            tn: (0..depth).map(|_| Default::default()).collect(),
            push: Default::default(),
            nxt: (0..depth).map(|_| Default::default()).collect(),
            kn: (0..depth.saturating_sub(2))
                .map(|k| Constant::new((k as u64 + 2).into()))
                .collect(),
            depth_c: Constant::new((depth as u64).into()),
            broken: Constant::new(broken),
            _depth: depth,
            _shift: depth - 1,
            _mid: depth.saturating_sub(2),
            _l1_mid: (depth >= 3) as usize,
            _l1_rdy: (depth == 2) as usize,
        }
    }
}

impl<const W: usize> Logic for InputFifo<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rdy, ne, sslot);
        for k in 0..self._depth {
            self.slot[k].clock.next = self.clock.val();
            self.slot[k].d.next = self.slot[k].q.val();
            self.zslot[k].clock.next = self.clock.val();
            self.zslot[k].d.next = self.zslot[k].q.val();
        }
        for k in 0..self._mid {
            self.mid[k].clock.next = self.clock.val();
            self.mid[k].d.next = self.mid[k].q.val();
        }
        // The thermometer from its registers (at depth 1 both ends are
        // level 0, and `ne` = not `rdy`).
        self.t[0].next = self.ne.q.val();
        for k in 0..self._mid {
            self.t[k + 1].next = self.mid[k].q.val();
        }
        for k in self._shift..self._depth {
            self.t[k].next = !self.rdy.q.val();
        }
        // The ports read the registers, not `t`: a local that the pop's
        // logic also reads makes Verilator's lint see a combinational loop
        // through the router (UNOPTFLAT), as for `enter_flit` below.
        self.count.next = 0.into();
        if self.ne.q.val() {
            self.count.next = 1.into();
        }
        for k in 0..self._mid {
            if self.mid[k].q.val() {
                self.count.next = self.kn[k].val();
            }
        }
        if !self.rdy.q.val() {
            self.count.next = self.depth_c.val();
        }
        // Level 1 (`count >= 2`): `mid[0]` with mid levels, not `rdy` at
        // depth 2, none at depth 1.
        self.has2.next = false;
        for k in 0..self._l1_mid {
            self.has2.next = self.mid[k].q.val();
        }
        for _k in 0..self._l1_rdy {
            self.has2.next = !self.rdy.q.val();
        }
        self.ready.next = self.rdy.q.val();
        self.nonempty.next = self.ne.q.val();
        self.head.next = self.slot[0].q.val();
        self.head_side.next = self.sslot.q.val();
        self.push.next = self.in_valid.val() & self.rdy.q.val();
        self.in_hz.next = (self.in_flit.val() & self.zmask.val()) == 0;
        for k in 0..self._depth {
            self.nxt[k].next = self.in_flit.val();
            self.znxt[k].next = self.in_hz.val();
        }
        for k in 0..self._shift {
            if self.t[k + 1].val() {
                self.nxt[k].next = self.slot[k + 1].q.val();
                self.znxt[k].next = self.zslot[k + 1].q.val();
            }
        }
        // `enter_flit` and `enter_hz` are slot 0's `nxt` and `znxt`,
        // computed apart: an output computed through the same local as a
        // slot's `d`, which the pop enables, reads to Verilator's lint as a
        // combinational loop through the router (UNOPTFLAT).
        self.enter_flit.next = self.in_flit.val();
        self.enter_hz.next = (self.in_flit.val() & self.zmask.val()) == 0;
        for k in 0..self._l1_mid {
            if self.mid[k].q.val() {
                self.enter_flit.next = self.slot[1 + k].q.val();
                self.enter_hz.next = self.zslot[1 + k].q.val();
            }
        }
        for k in 0..self._l1_rdy {
            if !self.rdy.q.val() {
                self.enter_flit.next = self.slot[1 + k].q.val();
                self.enter_hz.next = self.zslot[1 + k].q.val();
            }
        }
        for k in 0..self._shift {
            if self.pop.val() | !self.t[k].val() {
                self.slot[k].d.next = self.nxt[k].val();
                self.zslot[k].d.next = self.znxt[k].val();
            }
        }
        // The last slot loads whenever a push may come (`ready`); see the
        // module doc for why it needs no pop.
        for k in self._shift..self._depth {
            if self.rdy.q.val() {
                self.slot[k].d.next = self.nxt[k].val();
                self.zslot[k].d.next = self.znxt[k].val();
            }
        }
        // Slot 0's pre-decode loads with slot 0. (At depth 1 slot 0 is the
        // last slot and loads only when empty; with a pop the FIFO is
        // empty after the edge, so what this loads then is never read.)
        if self.pop.val() | !self.ne.q.val() {
            self.sslot.d.next = self.in_side.val();
        }
        // A push alone raises the fill one level, a pop alone lowers it.
        for k in 0..self._depth {
            self.tn[k].next = self.t[k].val();
        }
        if self.push.val() & !self.pop.val() {
            self.tn[0].next = true;
            for k in 0..self._shift {
                self.tn[k + 1].next = self.t[k].val();
            }
        }
        if self.pop.val() & !self.push.val() {
            for k in 0..self._shift {
                self.tn[k].next = self.t[k + 1].val();
            }
            for k in self._shift..self._depth {
                self.tn[k].next = false;
            }
        }
        self.ne.d.next = self.tn[0].val();
        for k in 0..self._mid {
            self.mid[k].d.next = self.tn[k + 1].val();
        }
        for k in self._shift..self._depth {
            self.rdy.d.next = !self.tn[k].val();
        }
        if self.broken.val() {
            self.rdy.d.next = self.rdy.q.val();
        }
        // Synchronous reset, last so it wins.
        if self.rst.val() {
            self.rdy.d.next = true;
            self.ne.d.next = false;
            for k in 0..self._mid {
                self.mid[k].d.next = false;
            }
        }
    }
}
