//! The input buffer of one router input (ARCHITECTURE §3 "Link protocol"):
//! `depth` flits (each with its pre-decode, `Decode::side`) with a fill
//! `count`, plus the registered `ready` sent upstream.
//!
//! Same contract as the native `router::fifo::Fifo` and the accept step of
//! `router::step`: a flit is pushed at an edge when the upstream `valid` and
//! this input's registered `ready` are both 1; a pop and a push may happen in
//! the same cycle; `ready` after the edge is `count after the edge < depth`,
//! so it never over-commits and needs no credit counter.
//!
//! Hardware choice (issue 12 item 3, timing): the slots form a shift
//! register whose slot 0 is always the head, where the native model keeps a
//! ring with a read pointer. The head, `count` and `ready` are identical.
//! With a ring, the head is a `depth`:1 multiplexer behind the read
//! pointer, at the start of the router's longest path (head → decode →
//! arbiter → input state); here it is a register output, and the
//! multiplexer moves to the write side (slot k takes slot k+1 on a pop),
//! which no longer sits on that path. For the default depth of 2 it costs
//! the same: one 2:1 multiplexer per bit, on slot 0. Deep buffers (up to
//! `MAX_DEPTH`) pay a 2:1 multiplexer per slot instead of a `depth`:1 read
//! multiplexer.

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
    /// The flit's pre-decode (`Decode::side`), stored beside it.
    pub in_side: Signal<In, Bits<SIDE_W>>,
    /// Drop the head flit at this edge (the router core decided it left).
    pub pop: Signal<In, Bit>,
    /// The oldest flit (meaningful when `count` > 0).
    pub head: Signal<Out, Bits<W>>,
    /// The head flit's pre-decode.
    pub head_side: Signal<Out, Bits<SIDE_W>>,
    /// Flits held (register `count`).
    pub count: Signal<Out, Bits<COUNT_W>>,
    /// Registered ready to the upstream sender (register `ready`).
    pub ready: Signal<Out, Bit>,

    /// Slot 0 is the head, slot k the k-th flit behind it.
    slot: Vec<DFF<Bits<W>>>,
    sslot: Vec<DFF<Bits<SIDE_W>>>,
    cnt: DFF<Bits<COUNT_W>>,
    rdy: DFF<Bit>,
    push: Signal<Local, Bit>,
    /// The slot a push writes: `count`, or `count - 1` with a pop.
    wpos: Signal<Local, Bits<COUNT_W>>,
    cnt_m1: Signal<Local, Bits<COUNT_W>>,
    cnt_next: Signal<Local, Bits<COUNT_W>>,
    depth_c: Constant<Bits<COUNT_W>>,
    /// Slot numbers k, and k + 1 for the slots that shift.
    kc: Vec<Constant<Bits<COUNT_W>>>,
    kc1: Vec<Constant<Bits<COUNT_W>>>,
    /// Deliberate fault for the lockstep self-test: `ready` from the fill
    /// before the edge (over-commits).
    broken: Constant<Bit>,
    _depth: usize,
    /// `depth - 1`: the slots that take their successor on a pop.
    _shift: usize,
}

impl<const W: usize> InputFifo<W> {
    /// A FIFO of `depth` slots (1..=`MAX_DEPTH`).
    pub fn new(depth: usize) -> Self {
        Self::with_fault(depth, false)
    }

    /// See [`crate::Fault::ReadyBeforeEdge`].
    pub fn with_fault(depth: usize, broken: bool) -> Self {
        assert!((1..=MAX_DEPTH).contains(&depth), "depth {depth}");
        InputFifo {
            clock: Default::default(),
            rst: Default::default(),
            in_flit: Default::default(),
            in_valid: Default::default(),
            in_side: Default::default(),
            head_side: Default::default(),
            pop: Default::default(),
            head: Default::default(),
            count: Default::default(),
            ready: Default::default(),
            slot: (0..depth).map(|_| DFF::default()).collect(),
            sslot: (0..depth).map(|_| DFF::default()).collect(),
            cnt: Default::default(),
            rdy: Default::default(),
            push: Default::default(),
            wpos: Default::default(),
            cnt_m1: Default::default(),
            cnt_next: Default::default(),
            depth_c: Constant::new((depth as u64).into()),
            kc: (0..depth)
                .map(|k| Constant::new((k as u64).into()))
                .collect(),
            kc1: (0..depth - 1)
                .map(|k| Constant::new((k as u64 + 1).into()))
                .collect(),
            broken: Constant::new(broken),
            _depth: depth,
            _shift: depth - 1,
        }
    }
}

impl<const W: usize> Logic for InputFifo<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt, rdy);
        for k in 0..self._depth {
            self.slot[k].clock.next = self.clock.val();
            self.slot[k].d.next = self.slot[k].q.val();
            self.sslot[k].clock.next = self.clock.val();
            self.sslot[k].d.next = self.sslot[k].q.val();
        }
        self.count.next = self.cnt.q.val();
        self.ready.next = self.rdy.q.val();
        self.head.next = self.slot[0].q.val();
        self.head_side.next = self.sslot[0].q.val();
        self.push.next = self.in_valid.val() & self.rdy.q.val();
        self.cnt_m1.next = self.cnt.q.val() - 1;
        if self.pop.val() {
            self.wpos.next = self.cnt_m1.val();
        } else {
            self.wpos.next = self.cnt.q.val();
        }
        // A pop moves every held flit one slot towards the head.
        for k in 0..self._shift {
            if self.pop.val() & (self.kc1[k].val() < self.cnt.q.val()) {
                self.slot[k].d.next = self.slot[k + 1].q.val();
                self.sslot[k].d.next = self.sslot[k + 1].q.val();
            }
        }
        for k in 0..self._depth {
            if self.push.val() & (self.wpos.val() == self.kc[k].val()) {
                self.slot[k].d.next = self.in_flit.val();
                self.sslot[k].d.next = self.in_side.val();
            }
        }
        self.cnt_next.next = self.cnt.q.val();
        if self.pop.val() & !self.push.val() {
            self.cnt_next.next = self.cnt_m1.val();
        }
        if self.push.val() & !self.pop.val() {
            self.cnt_next.next = self.cnt.q.val() + 1;
        }
        self.cnt.d.next = self.cnt_next.val();
        self.rdy.d.next = self.cnt_next.val() < self.depth_c.val();
        if self.broken.val() {
            self.rdy.d.next = self.cnt.q.val() < self.depth_c.val();
        }
        // Synchronous reset, last so it wins.
        if self.rst.val() {
            self.cnt.d.next = 0.into();
            self.rdy.d.next = true;
        }
    }
}
