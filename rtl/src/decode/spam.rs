//! SPAM routing of one input (\[DSTM\] §2, docs/references.md §A; native
//! `routing::spam_first_head` in `sim/src/router/routing.rs` and the table
//! of `sim/src/router/spam.rs`): the routing sub-block a SPAM router adds
//! to the tree block (an S=1 header goes down the tree).
//!
//! The phase of a worm is a static property of its input port
//! (`SpamTable::in_phase`), so each input holds only the table column of
//! its phase: per target node a valid bit and a 2-bit port (N × 3 bits,
//! tied off per instance). rust-hdl cannot index by a signal, so the entry
//! is selected by comparing `Node` with every entry number. A missing entry
//! means the worm would have to go up again (`DownPhaseUp`, decided by the
//! skeleton).

use crate::arbiter::vdef;
use rust_hdl::prelude::*;
use wormcast_sim::flit;

#[derive(LogicBlock)]
pub struct SpamRoute<const W: usize> {
    /// The flit entering the head slot (`InputFifo::enter_flit`): the header's `Node`.
    pub wflit: Signal<In, Bits<W>>,
    hnode: Signal<Local, Bits<W>>,
    node_shift: Constant<Bits<8>>,
    /// This input's SPAM column, per target node.
    pub sp_v: Vec<Signal<In, Bit>>,
    pub sp_d: Vec<Signal<In, Bits<2>>>,
    /// The entry of `Node`: valid and port.
    pub ev: Signal<Out, Bit>,
    pub ed: Signal<Out, Bits<2>>,
    _n: usize,
}

impl<const W: usize> SpamRoute<W> {
    /// The block of a network of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        SpamRoute {
            wflit: Default::default(),
            hnode: Default::default(),
            node_shift: Constant::new((flit::NODE_SHIFT as u64).into()),
            sp_v: vdef(nodes),
            sp_d: vdef(nodes),
            ev: Default::default(),
            ed: Default::default(),
            _n: nodes,
        }
    }
}

impl<const W: usize> Logic for SpamRoute<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hnode.next = self.wflit.val() >> self.node_shift.val();
        self.ev.next = false;
        self.ed.next = 0.into();
        for n in 0..self._n {
            if self.hnode.val().index() == n {
                self.ev.next = self.sp_v[n].val();
                self.ed.next = self.sp_d[n].val();
            }
        }
    }
}
