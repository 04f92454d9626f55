//! Mesh routing functions of one input (native `MeshConsts::route` in
//! `sim/src/router/mesh.rs`; docs/history/decisions-log.md "Mesh
//! routing in the RTL"): the routing sub-block of a mesh router, one per input.
//!
//! * [`HamRoute`]: Hamiltonian R (\[PATHOPT\] §2.1), for dual-path and
//!   multi-path worms: among the neighbours whose label lies between this
//!   router's and `Node`'s, the one closest to `Node`.
//! * [`GridRoute`]: `dor` (XY) and `negative_first` (\[BRCP\] §3.1, BRCP),
//!   on packed addresses split into x and y with a mask and a constant
//!   shift; only the chosen function's port order is emitted.
//!
//! Only comparators against per-router constants (the own address and the
//! neighbour labels are tied-off table inputs; label count, field widths
//! and mesh sides are generation-time constants), no divider. Outputs, for
//! the skeleton ([`super::Decode`]): `Node` is in range (`ok`), is this
//! router (`here`), and the function's port (`d`).

use crate::arbiter::vdef;
use crate::compare::LeBank;
use rust_hdl::prelude::*;
use wormcast_sim::config::mesh_table::x_bits;
use wormcast_sim::flit;
use wormcast_sim::router::mesh::MeshConsts;

#[derive(LogicBlock)]
pub struct HamRoute<const W: usize> {
    /// The flit entering the head slot (`InputFifo::enter_flit`): the header's `Node` (a Hamiltonian
    /// label).
    pub wflit: Signal<In, Bits<W>>,
    hnode: Signal<Local, Bits<W>>,
    node_shift: Constant<Bits<8>>,
    /// This router's label and, per port, the neighbour's (valid, label).
    pub m_own: Signal<In, Bits<W>>,
    pub m_nbr_v: Vec<Signal<In, Bit>>,
    pub m_nbr: Vec<Signal<In, Bits<W>>>,
    pub ok: Signal<Out, Bit>,
    pub here: Signal<Out, Bit>,
    pub d: Signal<Out, Bits<2>>,
    /// Low bits that hold every label, `Node` has none above them, and
    /// those bits: as in [`super::tree::TreeRoute`], a `Node` with a higher
    /// bit set is out of range, and the port of an out-of-range `Node` is
    /// never read (the range error comes first), so the comparators need
    /// only the low bits (area).
    nmask: Constant<Bits<W>>,
    hz: Signal<Local, Bit>,
    hl: Signal<Local, Bits<W>>,
    /// Toward a larger label.
    up: Signal<Local, Bit>,
    /// The neighbour on port d fits (label between own and target) / is
    /// the chosen one.
    fit: Vec<Signal<Local, Bit>>,
    sel: Vec<Signal<Local, Bit>>,
    /// The compares of `Node` as logic ([`crate::compare`]): pair 0
    /// `Node` <= own label, 2d + 1 neighbour d's label <= `Node`, 2d + 2
    /// `Node` <= neighbour d's label, 9 `Node` <= the last label.
    cmp: LeBank<W>,
    n_last: Constant<Bits<W>>,
}

impl<const W: usize> HamRoute<W> {
    pub fn new(mc: &MeshConsts) -> Self {
        HamRoute {
            wflit: Default::default(),
            hnode: Default::default(),
            node_shift: Constant::new((flit::NODE_SHIFT as u64).into()),
            m_own: Default::default(),
            m_nbr_v: vdef(4),
            m_nbr: vdef(4),
            ok: Default::default(),
            here: Default::default(),
            d: Default::default(),
            nmask: Constant::new(crate::tables::node_mask(mc.n).into()),
            hz: Default::default(),
            hl: Default::default(),
            up: Default::default(),
            fit: vdef(4),
            sel: vdef(4),
            cmp: LeBank::new(10, x_bits(mc.n) as usize),
            n_last: Constant::new((mc.n.max(1) as u64 - 1).into()),
        }
    }
}

impl<const W: usize> Logic for HamRoute<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hnode.next = self.wflit.val() >> self.node_shift.val();
        self.hz.next = (self.hnode.val() & !self.nmask.val()) == 0;
        self.hl.next = self.hnode.val() & self.nmask.val();
        // Toward a larger label the neighbour with the largest label
        // <= L(v), else the one with the smallest label >= L(v); labels are
        // distinct, so one port wins.
        // The bank reads `Node` from the input itself, not from `hl`: a
        // local feeding it reads to Verilator's lint as a combinational
        // loop through this block (UNOPTFLAT; as in `TreeRoute`).
        self.cmp.a[0].next = (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
        self.cmp.b[0].next = self.m_own.val() & self.nmask.val();
        self.up.next = !self.cmp.le[0].val();
        for d in 0..4 {
            self.cmp.a[d * 2 + 1].next = self.m_nbr[d].val() & self.nmask.val();
            self.cmp.b[d * 2 + 1].next =
                (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
            self.cmp.a[d * 2 + 2].next =
                (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
            self.cmp.b[d * 2 + 2].next = self.m_nbr[d].val() & self.nmask.val();
            self.fit[d].next = self.m_nbr_v[d].val()
                & ((self.up.val() & self.cmp.le[d * 2 + 1].val())
                    | (!self.up.val() & self.cmp.le[d * 2 + 2].val()));
        }
        self.cmp.a[9].next = (self.wflit.val() >> self.node_shift.val()) & self.nmask.val();
        self.cmp.b[9].next = self.n_last.val();
        for d in 0..4 {
            self.sel[d].next = self.fit[d].val();
            for e in 0..4 {
                if self.fit[e].val()
                    & ((self.up.val() & (self.m_nbr[e].val() > self.m_nbr[d].val()))
                        | (!self.up.val() & (self.m_nbr[e].val() < self.m_nbr[d].val())))
                {
                    self.sel[d].next = false;
                }
            }
        }
        self.ok.next = self.hz.val() & self.cmp.le[9].val();
        self.here.next = self.hz.val() & (self.hl.val() == (self.m_own.val() & self.nmask.val()));
        self.d.next = 0.into();
        if self.sel[0].val() {
            self.d.next = 0.into();
        } else if self.sel[1].val() {
            self.d.next = 1.into();
        } else if self.sel[2].val() {
            self.d.next = 2.into();
        } else if self.sel[3].val() {
            self.d.next = 3.into();
        }
    }
}

#[derive(LogicBlock)]
pub struct GridRoute<const W: usize> {
    /// The flit entering the head slot (`InputFifo::enter_flit`): the header's `Node` (a packed address,
    /// y above x).
    pub wflit: Signal<In, Bits<W>>,
    hnode: Signal<Local, Bits<W>>,
    node_shift: Constant<Bits<8>>,
    /// This router's packed address.
    pub m_own: Signal<In, Bits<W>>,
    pub ok: Signal<Out, Bit>,
    pub here: Signal<Out, Bit>,
    pub d: Signal<Out, Bits<2>>,
    /// Packed addresses: x field width (shift), x mask, K−1, M−1.
    m_xb: Constant<Bits<8>>,
    m_xmask: Constant<Bits<W>>,
    m_kmax: Constant<Bits<W>>,
    m_mmax: Constant<Bits<W>>,
    /// Low bits that hold every y (M−1 fits): a `Node` with a y bit above
    /// them is out of range, and only the low bits are compared (as in
    /// [`HamRoute`]).
    m_ymask: Constant<Bits<W>>,
    yz: Signal<Local, Bit>,
    yfull: Signal<Local, Bits<W>>,
    /// The compares as logic ([`crate::compare`]), on the wider of the x
    /// and y fields: pairs 0 own x <= x, 1 own y <= y, 2 x <= own x, 3
    /// y <= own y, 4 x <= K−1, 5 y <= M−1.
    cmp: LeBank<W>,
    /// 1 for the function this router uses, else 0: loop bounds that emit
    /// only its port order.
    _n_nf: usize,
    _n_dor: usize,
}

impl<const W: usize> GridRoute<W> {
    /// `negative_first` when `nf`, else `dor`.
    pub fn new(mc: &MeshConsts, nf: bool) -> Self {
        GridRoute {
            wflit: Default::default(),
            hnode: Default::default(),
            node_shift: Constant::new((flit::NODE_SHIFT as u64).into()),
            m_own: Default::default(),
            ok: Default::default(),
            here: Default::default(),
            d: Default::default(),
            m_xb: Constant::new((mc.xb as u64).into()),
            m_xmask: Constant::new(((1u64 << mc.xb) - 1).into()),
            m_kmax: Constant::new((mc.kmax as u64).into()),
            m_mmax: Constant::new((mc.mmax as u64).into()),
            m_ymask: Constant::new(crate::tables::node_mask(mc.mmax + 1).into()),
            yz: Default::default(),
            yfull: Default::default(),
            cmp: LeBank::new(6, (mc.xb as usize).max(x_bits(mc.mmax + 1) as usize)),
            _n_nf: nf as usize,
            _n_dor: !nf as usize,
        }
    }
}

impl<const W: usize> Logic for GridRoute<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hnode.next = self.wflit.val() >> self.node_shift.val();
        // x and y by a mask and a shift (in the bank's inputs), a range
        // check, then the port.
        self.yfull.next = self.hnode.val() >> self.m_xb.val();
        self.yz.next = (self.yfull.val() & !self.m_ymask.val()) == 0;
        // The bank reads the fields from the inputs themselves, not from
        // the locals above (as in `HamRoute`).
        self.cmp.a[0].next = self.m_own.val() & self.m_xmask.val();
        self.cmp.b[0].next = (self.wflit.val() >> self.node_shift.val()) & self.m_xmask.val();
        self.cmp.a[1].next = (self.m_own.val() >> self.m_xb.val()) & self.m_ymask.val();
        self.cmp.b[1].next =
            ((self.wflit.val() >> self.node_shift.val()) >> self.m_xb.val()) & self.m_ymask.val();
        self.cmp.a[2].next = (self.wflit.val() >> self.node_shift.val()) & self.m_xmask.val();
        self.cmp.b[2].next = self.m_own.val() & self.m_xmask.val();
        self.cmp.a[3].next =
            ((self.wflit.val() >> self.node_shift.val()) >> self.m_xb.val()) & self.m_ymask.val();
        self.cmp.b[3].next = (self.m_own.val() >> self.m_xb.val()) & self.m_ymask.val();
        self.cmp.a[4].next = (self.wflit.val() >> self.node_shift.val()) & self.m_xmask.val();
        self.cmp.b[4].next = self.m_kmax.val();
        self.cmp.a[5].next =
            ((self.wflit.val() >> self.node_shift.val()) >> self.m_xb.val()) & self.m_ymask.val();
        self.cmp.b[5].next = self.m_mmax.val();
        self.ok.next = self.yz.val() & self.cmp.le[4].val() & self.cmp.le[5].val();
        self.here.next = false;
        self.d.next = 0.into();
        for _k in 0..self._n_nf {
            // Negative-first: -X, -Y, then +X, +Y.
            if !self.cmp.le[0].val() {
                self.d.next = 1.into();
            } else if !self.cmp.le[1].val() {
                self.d.next = 3.into();
            } else if !self.cmp.le[2].val() {
                self.d.next = 0.into();
            } else if !self.cmp.le[3].val() {
                self.d.next = 2.into();
            } else {
                self.here.next = true;
            }
        }
        for _k in 0..self._n_dor {
            // Dimension-ordered XY: X until the column matches, then Y.
            if !self.cmp.le[2].val() {
                self.d.next = 0.into();
            } else if !self.cmp.le[0].val() {
                self.d.next = 1.into();
            } else if !self.cmp.le[3].val() {
                self.d.next = 2.into();
            } else if !self.cmp.le[1].val() {
                self.d.next = 3.into();
            } else {
                self.here.next = true;
            }
        }
    }
}
