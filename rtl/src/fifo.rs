//! The input buffer of one router input (ARCHITECTURE §3 "Link protocol"):
//! a ring of `depth` flits with a read pointer `rd` and a fill `count`, plus
//! the registered `ready` sent upstream.
//!
//! Same contract as the native `router::fifo::Fifo` and the accept step of
//! `router::step`: a flit is pushed at an edge when the upstream `valid` and
//! this input's registered `ready` are both 1; a pop and a push may happen in
//! the same cycle; `ready` after the edge is `count after the edge < depth`,
//! so it never over-commits and needs no credit counter.
//!
//! Hardware choice: the ring has exactly `depth` slots and `rd` wraps at
//! `depth`, where the native model keeps a fixed `MAX_DEPTH` array and wraps
//! there. The flits seen at the head, `count` and `ready` are identical; only
//! the value of `rd` can differ, so lockstep compares `count`, not `rd`.

use rust_hdl::prelude::*;
use wormcast_sim::config::MAX_DEPTH;

/// Width of `rd` (an index below `MAX_DEPTH` = 8).
pub const RD_W: usize = 3;
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
    /// Drop the head flit at this edge (the router core decided it left).
    pub pop: Signal<In, Bit>,
    /// The oldest flit (meaningful when `count` > 0).
    pub head: Signal<Out, Bits<W>>,
    /// Flits held (register `count`).
    pub count: Signal<Out, Bits<COUNT_W>>,
    /// Registered ready to the upstream sender (register `ready`).
    pub ready: Signal<Out, Bit>,
    slot: Vec<DFF<Bits<W>>>,
    rd: DFF<Bits<RD_W>>,
    cnt: DFF<Bits<COUNT_W>>,
    rdy: DFF<Bit>,
    push: Signal<Local, Bit>,
    wr_sum: Signal<Local, Bits<COUNT_W>>,
    wr: Signal<Local, Bits<COUNT_W>>,
    rd_inc: Signal<Local, Bits<COUNT_W>>,
    cnt_next: Signal<Local, Bits<COUNT_W>>,
    depth_c: Constant<Bits<COUNT_W>>,
    /// Deliberate fault for the lockstep self-test: `ready` from the fill
    /// before the edge (over-commits).
    broken: Constant<Bit>,
    _depth: usize,
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
            pop: Default::default(),
            head: Default::default(),
            count: Default::default(),
            ready: Default::default(),
            slot: (0..depth).map(|_| DFF::default()).collect(),
            rd: Default::default(),
            cnt: Default::default(),
            rdy: Default::default(),
            push: Default::default(),
            wr_sum: Default::default(),
            wr: Default::default(),
            rd_inc: Default::default(),
            cnt_next: Default::default(),
            depth_c: Constant::new((depth as u64).into()),
            broken: Constant::new(broken),
            _depth: depth,
        }
    }
}

impl<const W: usize> Logic for InputFifo<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, cnt, rdy);
        for k in 0..self._depth {
            self.slot[k].clock.next = self.clock.val();
            self.slot[k].d.next = self.slot[k].q.val();
        }
        self.count.next = self.cnt.q.val();
        self.ready.next = self.rdy.q.val();
        // Head of the ring: loop over slots, never index by a signal.
        self.head.next = 0.into();
        for k in 0..self._depth {
            if self.rd.q.val().index() == k {
                self.head.next = self.slot[k].q.val();
            }
        }
        self.push.next = self.in_valid.val() & self.rdy.q.val();
        // Write slot = (rd + count) mod depth: a pop and a push in one cycle
        // leave it where it was, as in the native ring.
        self.wr_sum.next = bit_cast::<COUNT_W, RD_W>(self.rd.q.val()) + self.cnt.q.val();
        if self.wr_sum.val() >= self.depth_c.val() {
            self.wr.next = self.wr_sum.val() - self.depth_c.val();
        } else {
            self.wr.next = self.wr_sum.val();
        }
        if self.push.val() {
            for k in 0..self._depth {
                if self.wr.val().index() == k {
                    self.slot[k].d.next = self.in_flit.val();
                }
            }
        }
        self.rd_inc.next = bit_cast::<COUNT_W, RD_W>(self.rd.q.val()) + 1;
        if self.pop.val() {
            if self.rd_inc.val() == self.depth_c.val() {
                self.rd.d.next = 0.into();
            } else {
                self.rd.d.next = bit_cast::<RD_W, COUNT_W>(self.rd_inc.val());
            }
        }
        self.cnt_next.next = self.cnt.q.val();
        if self.pop.val() & !self.push.val() {
            self.cnt_next.next = self.cnt.q.val() - 1;
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
            self.rd.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.rdy.d.next = true;
        }
    }
}
