//! Up/down tree routing of one input (\[DSTM\] §3.1.2 and §3.2.2; native
//! `TreeTable::route` in `sim/src/trees` and `routing::first_head` in
//! `sim/src/router/routing.rs`): the routing sub-block of a torus router,
//! with `tree` and with `spam` routing (an S=1 SPAM header goes down the
//! tree).
//!
//! Why a block of its own: the native side keeps one file
//! per routing function, and the RTL now has the same shape, a shared decode
//! skeleton ([`super::Decode`]) and one sub-block per routing function, so
//! a router carries exactly the routing logic its function uses (a mesh
//! router has no tree tables and no child-range comparators at all).
//!
//! Combinational, on the flit entering the FIFO's head slot (the pre-decode half): the
//! table of the header's class (a mux over classes of the node's tied-off
//! tables), the four child-range compares, the tree's port for `Node` (the
//! first child whose range holds it, else the parent port), and whether
//! that port is the parent's (an S=1 header must not go up).
//!
//! Which class's table (area): at a link input the
//! table of the link's class, a constant per node, instead of a mux by the
//! header's class, unless the node has faulty outputs. A header of another
//! class fails the class check, which comes first in both
//! `routing::first_head` and `routing::trailing_head` (a trailing HEAD's
//! class must be its worm's, and a link input's worm has the link's
//! class), so no outcome reads this block's answer for it. Only
//! `routing::diverted_head` routes a HEAD by its own class without that
//! check, and a node without faulty outputs never diverts.

use crate::arbiter::vdef;
use crate::compare::LeBank;
use crate::hw::*;
use rust_hdl::prelude::*;
use wormcast_sim::config::mesh_table::x_bits;
use wormcast_sim::flit;

#[derive(LogicBlock)]
pub struct TreeRoute<const W: usize> {
    /// The flit entering the head slot (`InputFifo::enter_flit`): the header's `Node` and class.
    pub wflit: Signal<In, Bits<W>>,
    hnode: Signal<Local, Bits<W>>,
    hcls: Signal<Local, Bits<CLASS_W>>,
    /// The class whose table is read (see the module doc).
    lcls: Signal<Local, Bits<CLASS_W>>,
    /// This input's arrival class and the node's faulty outputs (tied-off
    /// tables), and whether the input is a link.
    pub arr_cls: Signal<In, Bits<CLASS_W>>,
    pub dv_out: Signal<In, Bits<O_W>>,
    link: Constant<Bit>,
    node_shift: Constant<Bits<8>>,
    class_shift: Constant<Bits<8>>,
    /// The node's tree tables (`crate::tables`; index c, or c * 4 + d for
    /// child ports), tied off per instance.
    pub own: Vec<Signal<In, Bits<W>>>,
    pub par_v: Vec<Signal<In, Bit>>,
    pub par_d: Vec<Signal<In, Bits<2>>>,
    pub ch_v: Vec<Signal<In, Bit>>,
    pub ch_lo: Vec<Signal<In, Bits<W>>>,
    pub ch_hi: Vec<Signal<In, Bits<W>>>,
    /// Bit d: `Node` lies below the child on port d.
    pub below: Signal<Out, Bits<O_W>>,
    /// Bit d: port d leads to a child of the header's class.
    pub child: Signal<Out, Bits<O_W>>,
    /// `Node` is this router's own post-order number in the class's tree,
    /// and `Node` is a node of the network (below the node count).
    pub own_hit: Signal<Out, Bit>,
    pub node_ok: Signal<Out, Bit>,
    /// The low `b` bits of an address, `b` = the bits of `node_count - 1`:
    /// every label in the tables is below `node_count`, so a `Node` with a
    /// bit set above them is out of range, below no child and nobody's own
    /// number, and every compare needs only the low `b` bits (area: 4-bit instead of 22-bit comparators on a 4×4 torus with
    /// 32-bit flits). `NodeTables::new` asserts the tables fit.
    nmask: Constant<Bits<W>>,
    /// `Node`'s bits above the address width are all 0: the FIFO's
    /// `enter_hz`, computed as the flit was pushed (`crate::fifo`).
    pub hz: Signal<In, Bit>,
    /// `Node`'s low bits, those of the address width.
    hl: Signal<Local, Bits<W>>,
    /// The tree's port for `Node`: valid (invalid only above the root) and
    /// port; `up` when that port is the parent port.
    pub rt_v: Signal<Out, Bit>,
    pub rt_d: Signal<Out, Bits<2>>,
    pub up: Signal<Out, Bit>,

    t_own: Signal<Local, Bits<W>>,
    t_par_v: Signal<Local, Bit>,
    t_par_d: Signal<Local, Bits<2>>,
    t_ch_v: Vec<Signal<Local, Bit>>,
    bl: Vec<Signal<Local, Bit>>,
    /// The compares as logic ([`crate::compare`]): pair 0 `Node` <= the
    /// last label (the range check); per class c and child port d, pairs
    /// 1 + 8c + 2d (low bound <= `Node`) and 2 + 8c + 2d (`Node` <= high
    /// bound). Every class's bounds are compared and the answers chosen
    /// by class, not the chosen bounds compared: the bank's inputs are then
    /// the block's inputs, not locals, which Verilator's lint would
    /// otherwise read as a combinational loop through the block
    /// (UNOPTFLAT). Against tied-off bounds each compare is a function of
    /// the label bits alone, so synthesis gives the same logic.
    cmp: LeBank<W>,
    /// Child port d's range holds `Node`, in the class's tree.
    t_in: Vec<Signal<Local, Bit>>,
    n_last: Constant<Bits<W>>,
    z4: Constant<Bits<O_W>>,
    _classes: usize,
}

impl<const W: usize> TreeRoute<W> {
    /// The block of input `input` of a router of a network of `nodes`
    /// nodes with `classes` trees.
    pub fn new(classes: usize, nodes: u32, input: usize) -> Self {
        TreeRoute {
            wflit: Default::default(),
            hnode: Default::default(),
            hcls: Default::default(),
            lcls: Default::default(),
            arr_cls: Default::default(),
            dv_out: Default::default(),
            link: Constant::new(input < 4),
            node_shift: Constant::new((flit::NODE_SHIFT as u64).into()),
            class_shift: Constant::new((flit::CLASS_SHIFT as u64).into()),
            own: vdef(classes),
            par_v: vdef(classes),
            par_d: vdef(classes),
            ch_v: vdef(classes * 4),
            ch_lo: vdef(classes * 4),
            ch_hi: vdef(classes * 4),
            below: Default::default(),
            child: Default::default(),
            own_hit: Default::default(),
            node_ok: Default::default(),
            nmask: Constant::new(crate::tables::node_mask(nodes).into()),
            hz: Default::default(),
            hl: Default::default(),
            rt_v: Default::default(),
            rt_d: Default::default(),
            up: Default::default(),
            t_own: Default::default(),
            t_par_v: Default::default(),
            t_par_d: Default::default(),
            t_ch_v: vdef(4),
            bl: vdef(4),
            cmp: LeBank::new(1 + classes * 8, x_bits(nodes) as usize),
            t_in: vdef(4),
            n_last: Constant::new((nodes.max(1) as u64 - 1).into()),
            z4: Constant::new(0u64.into()),
            _classes: classes,
        }
    }
}

impl<const W: usize> Logic for TreeRoute<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hnode.next = self.wflit.val() >> self.node_shift.val();
        self.hl.next = self.hnode.val() & self.nmask.val();
        self.hcls.next = self
            .wflit
            .val()
            .get_bits::<CLASS_W>(self.class_shift.val().index());
        self.lcls.next = self.hcls.val();
        if self.link.val() & (self.dv_out.val() == 0) {
            self.lcls.next = self.arr_cls.val();
        }
        // `Node`'s low bits, from the input itself (see `cmp`).
        self.cmp.a[0].next = (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
        self.cmp.b[0].next = self.n_last.val();
        for c in 0..self._classes {
            for d in 0..4 {
                self.cmp.a[c * 8 + d * 2 + 1].next = self.ch_lo[c * 4 + d].val() & self.nmask.val();
                self.cmp.b[c * 8 + d * 2 + 1].next =
                    (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
                self.cmp.a[c * 8 + d * 2 + 2].next =
                    (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
                self.cmp.b[c * 8 + d * 2 + 2].next = self.ch_hi[c * 4 + d].val() & self.nmask.val();
            }
        }
        // The table of that class (a mux over classes).
        self.t_own.next = 0.into();
        self.t_par_v.next = false;
        self.t_par_d.next = 0.into();
        for d in 0..4 {
            self.t_ch_v[d].next = false;
            self.t_in[d].next = false;
        }
        for c in 0..self._classes {
            if self.lcls.val().index() == c {
                self.t_own.next = self.own[c].val();
                self.t_par_v.next = self.par_v[c].val();
                self.t_par_d.next = self.par_d[c].val();
                for d in 0..4 {
                    self.t_ch_v[d].next = self.ch_v[c * 4 + d].val();
                    self.t_in[d].next =
                        self.cmp.le[c * 8 + d * 2 + 1].val() & self.cmp.le[c * 8 + d * 2 + 2].val();
                }
            }
        }
        for d in 0..4 {
            self.bl[d].next = self.t_ch_v[d].val() & self.hz.val() & self.t_in[d].val();
        }
        self.below.next = self
            .z4
            .val()
            .replace_bit(0, self.bl[0].val())
            .replace_bit(1, self.bl[1].val())
            .replace_bit(2, self.bl[2].val())
            .replace_bit(3, self.bl[3].val());
        self.child.next = self
            .z4
            .val()
            .replace_bit(0, self.t_ch_v[0].val())
            .replace_bit(1, self.t_ch_v[1].val())
            .replace_bit(2, self.t_ch_v[2].val())
            .replace_bit(3, self.t_ch_v[3].val());
        self.own_hit.next =
            self.hz.val() & (self.hl.val() == (self.t_own.val() & self.nmask.val()));
        self.node_ok.next = self.hz.val() & self.cmp.le[0].val();
        // TreeTable::route: the first child port (O1..O4) whose range holds
        // Node, else the parent port (invalid at the root).
        if self.bl[0].val() {
            self.rt_v.next = true;
            self.rt_d.next = 0.into();
        } else if self.bl[1].val() {
            self.rt_v.next = true;
            self.rt_d.next = 1.into();
        } else if self.bl[2].val() {
            self.rt_v.next = true;
            self.rt_d.next = 2.into();
        } else if self.bl[3].val() {
            self.rt_v.next = true;
            self.rt_d.next = 3.into();
        } else {
            self.rt_v.next = self.t_par_v.val();
            self.rt_d.next = self.t_par_d.val();
        }
        self.up.next = self.t_par_v.val() & (self.rt_d.val() == self.t_par_d.val());
    }
}
