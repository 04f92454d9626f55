//! The router core (docs/architecture.md §3, \[DSTM\] §3): input FIFOs, header
//! decode, atomic reservation, the crossbar into registered outputs with
//! coordinated flow control, TAIL release_tail, Discard, local-fault
//! diversion (`Diverted`), and the error register.
//!
//! One clock edge here equals one call of the native `router::step`: the
//! same registers (`in_state`, `in_reserved`, `in_class`, `in_setup`, `out_flit`,
//! `out_valid`, `out_owner`, `prio`, `err_count`, `err_code`, and per FIFO
//! `count` and `ready`) take the same values. Outputs are registers only, so
//! no combinational path runs from any router input to any router output
//! and a fabric, wrap links included, has no combinational loop.
//!
//! Ports: `i_flit/i_valid/i_ready` per input (4 links, then injection),
//! `o_flit/o_valid/o_ready` per output (4 links, then consumption), and
//! `err_count_o/err_code_o`. `rst` is a synchronous reset to
//! `RouterState::reset()`.

use crate::arbiter::{vdef, Arbiter};
use crate::crossbar::Crossbar;
use crate::decode::{CONS_W, SETUP_W, WORM_W};
use crate::decoders::Decoders;
use crate::fifo::InputFifo;
use crate::hw::*;
use crate::popcount::{Popcount, COUNT_W};
use crate::tables::NodeTables;
use rust_hdl::prelude::*;
use wormcast_sim::config::{Hop, RouterConfig, RouterParams};
use wormcast_sim::flit;
use wormcast_sim::router::{InState, LINK_INPUTS};

/// Whether input `i` is one the fast hop's bypass serves (a link input,
/// `wormcast_sim::router::LINK_INPUTS`).
pub(crate) fn is_link_input(i: usize) -> bool {
    i < 8 && LINK_INPUTS >> i & 1 == 1
}

/// Deliberate faults for the lockstep self-test: a correct comparator must
/// catch each of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    #[default]
    None,
    /// The arbiter forgets that the first blocked input keeps the top priority.
    ArbiterPriority,
    /// `ready` from the FIFO fill before the edge instead of after it.
    ReadyBeforeEdge,
    /// The header setup counter stops one cycle early (a first HEAD
    /// requests after `setup_cycles - 1` cycles at its FIFO head).
    SetupOffByOne,
    /// The arbiter masks the blocked input's free outputs with mesh
    /// routing, as tree routing does (and not with tree routing).
    MeshMasking,
    /// Local fault information ignored: the router routes into its faulty
    /// link instead of diverting (`RouterConfig::divert_out` dropped).
    NoDiversion,
    /// A deferred strip ignored: the stripped HEAD leaves at its grant.
    StripOnGrant,
    /// One branch of a multicast dropped: an input that holds two or more
    /// outputs never loads the lowest-numbered of them (a link before a
    /// consumption channel), for any flit of the worm (trailing HEADs,
    /// BODYs, TAIL). The output stays reserved and is released by the
    /// TAIL as usual, so nothing stalls and no flit is malformed: the
    /// subtree behind the branch never sees the worm while all other
    /// traffic keeps moving. Only counting deliveries per destination
    /// catches it (the FPGA top's epoch check, `wormcast_sim::onchip`).
    DropBranch,
    /// The fast hop ignored: the RTL keeps the standard contract while the
    /// native model runs `Hop::Fast` (no bypass, no forwarded HEAD).
    StandardHop,
}

#[derive(LogicBlock)]
pub struct Router<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub i_flit: Vec<Signal<In, Bits<W>>>,
    pub i_valid: Vec<Signal<In, Bit>>,
    pub i_ready: Vec<Signal<Out, Bit>>,
    pub o_flit: Vec<Signal<Out, Bits<W>>>,
    pub o_valid: Vec<Signal<Out, Bit>>,
    pub o_ready: Vec<Signal<In, Bit>>,
    pub err_count_o: Signal<Out, Bits<ERR_COUNT_W>>,
    pub err_code_o: Signal<Out, Bits<ERR_CODE_W>>,
    /// The node's tables (`crate::tables`): tied off by the instantiating
    /// fabric, one router module for every node.
    pub t_own: Vec<Signal<In, Bits<W>>>,
    pub t_par_v: Vec<Signal<In, Bit>>,
    pub t_par_d: Vec<Signal<In, Bits<2>>>,
    pub t_ch_v: Vec<Signal<In, Bit>>,
    pub t_ch_lo: Vec<Signal<In, Bits<W>>>,
    pub t_ch_hi: Vec<Signal<In, Bits<W>>>,
    pub t_link_v: Vec<Signal<In, Bit>>,
    pub t_link_cls: Vec<Signal<In, Bits<CLASS_W>>>,
    pub t_arr_v: Vec<Signal<In, Bit>>,
    pub t_arr_cls: Vec<Signal<In, Bits<CLASS_W>>>,
    pub t_dv_out: Vec<Signal<In, Bits<O_W>>>,
    pub t_pool: Vec<Signal<In, Bits<CONS_W>>>,
    /// Per output, the inputs that can ever own it
    /// (`routing::possible_owners`): the next owner is masked with it, so
    /// the owner bits and crossbar terms of pairs that never meet are
    /// constants to synthesis (area).
    pub t_owners: Vec<Signal<In, Bits<SEL_W>>>,
    /// Per input, the outputs it can ever reserve
    /// (`routing::reachable_outputs`, `t_owners` transposed): the request
    /// into the arbiter and `in_reserved`, the send mask and the worm
    /// register's links are masked with it (area and
    /// timing: inputs that share no reachable output never conflict).
    pub t_reach: Vec<Signal<In, Bits<MASK_W>>>,
    pub t_sp_v: Vec<Signal<In, Bit>>,
    pub t_sp_d: Vec<Signal<In, Bits<2>>>,
    pub t_m_own: Vec<Signal<In, Bits<W>>>,
    pub t_m_nbr_v: Vec<Signal<In, Bit>>,
    pub t_m_nbr: Vec<Signal<In, Bits<W>>>,
    pub fifo: Vec<InputFifo<W>>,
    pub dec: Decoders<W>,
    pub arb: Arbiter,
    pub xbar: Crossbar<W>,
    /// Inputs in error this cycle.
    pub nerr: Popcount,
    pub in_state: Vec<DFF<Bits<STATE_W>>>,
    pub in_reserved: Vec<DFF<Bits<MASK_W>>>,
    /// The worm's class. No logic reads it since the trailing-HEAD class
    /// check moved to the write side (`in_worm`); it stays under its native
    /// name for the lockstep, the vectors and the waves, and synthesis
    /// removes it (as `out_owner`).
    pub in_class: Vec<DFF<Bits<CLASS_W>>>,
    /// Header setup counter (`InputRegs::setup`).
    pub in_setup: Vec<DFF<Bits<SETUP_W>>>,
    /// With a setup delay only (empty without): `in_setup` ≥
    /// `setup_cycles`, as a register, so that no comparator stands in
    /// front of the decode (timing).
    pub in_sok: Vec<DFF<Bit>>,
    /// The worm register (`decode::WORM_W`, `Decode::worm`): whether the
    /// next flit to enter the head slot is the first of a worm, and that
    /// first HEAD's links, reservation size and class, so that each later
    /// flit's trailing-HEAD outcome is decided as it enters the head slot
    /// (timing). Loaded as each flit enters the head slot
    /// (`enter`; flits enter it in the order they were pushed, see
    /// `crate::fifo`); 1 (the next flit is a first one) after a reset,
    /// which empties the FIFO. No
    /// native twin: a function of the flits that entered, and a wrong
    /// outcome shows in the lockstep as a wrong send or error.
    pub in_worm: Vec<DFF<Bits<WORM_W>>>,
    /// With a deferred strip only (`RouterParams::strip_deferred`, empty
    /// without): the first HEAD at the head was stripped at the last edge's
    /// grant and leaves now (`InputRegs::strip`). The pop then comes from
    /// this register instead of the grant, so the arbiter's path no longer
    /// ends in the FIFO's enables (timing).
    pub in_strip: Vec<DFF<Bit>>,
    pub out_flit: Vec<DFF<Bits<W>>>,
    pub out_valid: Vec<DFF<Bit>>,
    /// The owner register as the logic reads it: one-hot over the inputs
    /// (0 = no owner). `out_owner` is its encoding, kept only so that the
    /// register the lockstep, the vectors and the waves compare exists under
    /// its native name and value; no logic reads it, so synthesis removes it.
    /// Why one-hot: the crossbar below selects each
    /// output's flit with these bits directly (an AND-OR of registers, no
    /// decode, nothing late on the data path), and `owned` is one OR.
    pub out_sel: Vec<DFF<Bits<SEL_W>>>,
    pub out_owner: Vec<DFF<Bits<OWNER_W>>>,
    pub prio: DFF<Bits<PRIO_W>>,
    /// The outputs that have an owner (`out_sel` ≠ 0), as a register of
    /// its own loaded with the next owners (timing): the
    /// consumption-channel choice and the arbiter read it first thing, and
    /// as the OR of the one-hot owner bits it was a LUT level deep. No
    /// native twin: a function of `out_sel`, which the lockstep compares.
    pub owned_r: DFF<Bits<MASK_W>>,
    pub err_count: DFF<Bits<ERR_COUNT_W>>,
    pub err_code: DFF<Bits<ERR_CODE_W>>,
    /// Outputs that can take a flit at this edge (empty, or their flit leaves).
    clm: Vec<Signal<Local, Bits<MASK_W>>>,
    clm_all: Signal<Local, Bits<MASK_W>>,
    /// Outputs owned after this edge (a chain over the outputs of the
    /// next owners), loaded into `owned_r`. Each term (`osel`, and `lsel`,
    /// `rsel` below) is formed apart and the chain only ORs them, so that
    /// synthesis sees an OR it can balance instead of a chain of
    /// multiplexers, one per input or output deep (timing).
    ownm: Vec<Signal<Local, Bits<MASK_W>>>,
    osel: Vec<Signal<Local, Bits<MASK_W>>>,
    /// Outputs owned at the start of the cycle.
    ownm_all: Signal<Local, Bits<MASK_W>>,
    /// Input i's flit leaves now (all its outputs can load).
    go: Vec<Signal<Local, Bit>>,
    /// Outputs loaded at this edge (OR over the inputs that go of their
    /// `send_outs`), as a chain over the inputs; `ldm[n_in]` is the mask.
    ldm: Vec<Signal<Local, Bits<MASK_W>>>,
    lsel: Vec<Signal<Local, Bits<MASK_W>>>,
    ldm_all: Signal<Local, Bits<MASK_W>>,
    /// Inputs whose TAIL releases their outputs at this edge (one-hot
    /// bits, as `out_sel`), chained over the inputs; `rel_all` the mask.
    rel: Vec<Signal<Local, Bits<SEL_W>>>,
    rsel: Vec<Signal<Local, Bits<SEL_W>>>,
    rel_all: Signal<Local, Bits<SEL_W>>,
    /// Per output, the input granted it at this edge (one-hot; at most
    /// one is).
    gsel_all: Vec<Signal<Local, Bits<SEL_W>>>,
    /// The fast hop only (one entry an output with it): `gsel_all` for
    /// the crossbar's select.
    fsel: Vec<Signal<Local, Bits<SEL_W>>>,
    /// Per input, the outputs it sends to now, within `t_reach` (as
    /// `send_outs` is within the reservation).
    so: Vec<Signal<Local, Bits<MASK_W>>>,
    /// Next `out_sel`, before the reset.
    sel_n: Vec<Signal<Local, Bits<SEL_W>>>,
    /// `Fault::DropBranch` only (empty without): per input, its
    /// reservation without the lowest output, and the outputs it still
    /// loads (all but that lowest one when two or more are reserved).
    drop_rest: Vec<Signal<Local, Bits<MASK_W>>>,
    drop_keep: Vec<Signal<Local, Bits<MASK_W>>>,
    /// 1 and all ones (one entry each with the fault, none without, so
    /// that the router without it is the netlist it was).
    mask_one: Vec<Constant<Bits<MASK_W>>>,
    mask_all: Vec<Constant<Bits<MASK_W>>>,
    /// Input i's FIFO head leaves at this edge.
    popi: Vec<Signal<Local, Bit>>,
    /// A flit enters input i's FIFO now (`in_worm`). The FIFO
    /// computes the same signal; read from it, Verilator's lint sees a
    /// false combinational loop (UNOPTFLAT: the router's one `always`
    /// block reads it and writes the FIFO's `pop`).
    push_w: Vec<Signal<Local, Bit>>,
    /// A flit enters input i's head slot at this edge (`in_worm`).
    enter: Vec<Signal<Local, Bit>>,
    setup_inc: Vec<Signal<Local, Bits<SETUP_W>>>,
    setup_one: Constant<Bits<SETUP_W>>,
    /// `setup_cycles - 1`, one entry with a setup delay, none without.
    setup_c: Vec<Constant<Bits<SETUP_W>>>,
    /// The `in_setup` bits that hold `0..=setup_cycles` (same entries):
    /// the counter only counts below `setup_cycles`, so masking its next
    /// value changes nothing, and synthesis drops the constant-0 bits and
    /// their incrementer; the
    /// register keeps `SETUP_W` bits, the native width the lockstep compares.
    setup_m: Vec<Constant<Bits<SETUP_W>>>,
    err_sum: Signal<Local, Bits<17>>,
    /// The fast hop only (`Hop::Fast`; one entry an input with it, none
    /// without, so that the default router is the netlist it was). The
    /// FIFO bypass: link input i's FIFO is empty, a BODY or TAIL enters it now
    /// and the input holds a worm (`byp`); its outputs (`bo`, the
    /// reservation) all load now (`bgo`), and the flit is pushed and
    /// popped at once, as natively. The forwarded HEAD: the output a
    /// grant loads with the HEAD it does not strip (`fo`: the request,
    /// or only its consumption channel when it diverts), whether it can
    /// (`fok`, decided before the grant so that the grant only enables),
    /// and whether it does (`fgo`).
    byp: Vec<Signal<Local, Bit>>,
    /// 1 at a link input, 0 at an injection input (the bypass serves the
    /// links only: `router::step_edge`).
    byp_on: Vec<Constant<Bit>>,
    bo: Vec<Signal<Local, Bits<MASK_W>>>,
    bgo: Vec<Signal<Local, Bit>>,
    fo: Vec<Signal<Local, Bits<MASK_W>>>,
    fok: Vec<Signal<Local, Bit>>,
    fgo: Vec<Signal<Local, Bit>>,
    /// The consumption channels' bits of an output mask (one entry with
    /// the fast hop).
    cons_m: Vec<Constant<Bits<MASK_W>>>,
    obit: Vec<Constant<Bits<MASK_W>>>,
    in_id: Vec<Constant<Bits<OWNER_W>>>,
    in_bit: Vec<Constant<Bits<SEL_W>>>,
    no_owner: Constant<Bits<OWNER_W>>,
    /// `in_worm` after a reset: the next flit is a worm's first.
    worm_rst: Constant<Bits<WORM_W>>,
    st_idle: Constant<Bits<STATE_W>>,
    st_active: Constant<Bits<STATE_W>>,
    st_diverted: Constant<Bits<STATE_W>>,
    err_max: Constant<Bits<17>>,
    _n_in: usize,
    _n_out: usize,
    _n_cls: usize,
    _n_ch: usize,
    _n_pool: usize,
    _n_sp: usize,
    _n_nbr: usize,
    _n_mown: usize,
    _n_setup: usize,
    _n_defer: usize,
    /// 1 with `Fault::DropBranch`, else 0.
    _n_drop: usize,
    /// 1 with the fast hop (`RouterParams::hop`), else 0.
    _n_fast: usize,
    /// 1 with tree blocks in the decode (torus routing), else 0.
    _n_tree: usize,
}

/// The flit bits above a `Node` field of `nodes` addresses (the FIFO's
/// `enter_hz` checks that they are 0, as the tree block's address compare
/// needs; `crate::decode::tree`).
fn high_zero_mask(nodes: u32, format: &flit::FlitFormat) -> u64 {
    !((crate::tables::node_mask(nodes) << flit::NODE_SHIFT) | ((1u64 << flit::NODE_SHIFT) - 1))
        & format.mask()
}

impl<const W: usize> Router<W> {
    pub fn new(cfg: &RouterConfig, p: &RouterParams) -> Self {
        Self::with_fault(cfg, p, Fault::None)
    }

    /// The router of `cfg`'s node, its table ports driven with that node's
    /// tables, as a fabric ties them off (`Fault::NoDiversion` is a wrong
    /// table: the faulty outputs are left out).
    pub fn with_fault(cfg: &RouterConfig, p: &RouterParams, fault: Fault) -> Self {
        let mut c = cfg.clone();
        if fault == Fault::NoDiversion {
            c.divert_out = 0;
        }
        let mut r = Self::generic(cfg, p, fault);
        r.tie(&NodeTables::new(&c, p));
        r
    }

    /// The router module of `cfg`'s network with its table ports undriven:
    /// identical for every node of one network.
    pub fn generic(cfg: &RouterConfig, p: &RouterParams, fault: Fault) -> Self {
        assert_eq!(p.flit.width as usize, W, "flit width");
        let n_in = p.inputs();
        let n_out = p.outputs();
        let t = NodeTables::new(cfg, p);
        // The parameters the logic is built from (the setup fault shortens
        // the delay the decode and the setup registers see).
        let mut q = *p;
        if fault == Fault::SetupOffByOne {
            q.setup_cycles = q.setup_cycles.saturating_sub(1);
        }
        let n_setup = (q.setup_cycles > 0) as usize;
        let n_defer = (p.strip_deferred && fault != Fault::StripOnGrant) as usize;
        let n_drop = (fault == Fault::DropBranch) as usize;
        let n_fast = (p.hop == Hop::Fast && fault != Fault::StandardHop) as usize;
        let len = |name: &str| t.get(name).len();
        Router {
            clock: Default::default(),
            rst: Default::default(),
            i_flit: vdef(n_in),
            i_valid: vdef(n_in),
            i_ready: vdef(n_in),
            o_flit: vdef(n_out),
            o_valid: vdef(n_out),
            o_ready: vdef(n_out),
            err_count_o: Default::default(),
            err_code_o: Default::default(),
            fifo: (0..n_in)
                .map(|_| {
                    InputFifo::with_fault(
                        p.depth,
                        high_zero_mask(cfg.node_count, &p.flit),
                        fault == Fault::ReadyBeforeEdge,
                    )
                })
                .collect(),
            t_own: vdef(len("own")),
            t_par_v: vdef(len("par_v")),
            t_par_d: vdef(len("par_d")),
            t_ch_v: vdef(len("ch_v")),
            t_ch_lo: vdef(len("ch_lo")),
            t_ch_hi: vdef(len("ch_hi")),
            t_link_v: vdef(len("link_v")),
            t_link_cls: vdef(len("link_cls")),
            t_arr_v: vdef(len("arr_v")),
            t_arr_cls: vdef(len("arr_cls")),
            t_dv_out: vdef(len("dv_out")),
            t_pool: vdef(len("pool")),
            t_owners: vdef(len("owners")),
            t_reach: vdef(len("reach")),
            so: vdef(n_in),
            t_sp_v: vdef(len("sp_v")),
            t_sp_d: vdef(len("sp_d")),
            t_m_own: vdef(len("m_own")),
            t_m_nbr_v: vdef(len("m_nbr_v")),
            t_m_nbr: vdef(len("m_nbr")),
            dec: Decoders::new(cfg, &q),
            arb: Arbiter::new(
                n_in,
                fault == Fault::ArbiterPriority,
                // Mesh routing: no mask (router::step); the fault flips it.
                !p.routing.is_mesh() ^ (fault == Fault::MeshMasking),
            ),
            xbar: Crossbar::new(n_in, n_out),
            in_state: vdef(n_in),
            in_reserved: vdef(n_in),
            in_class: vdef(n_in),
            in_setup: vdef(n_in),
            in_sok: vdef(n_in * n_setup),
            in_worm: vdef(n_in),
            push_w: vdef(n_in),
            enter: vdef(n_in),
            in_strip: vdef(n_in * n_defer),
            setup_c: (0..n_setup)
                .map(|_| Constant::new((q.setup_cycles as u64 - 1).into()))
                .collect(),
            setup_m: (0..n_setup)
                .map(|_| Constant::new(crate::tables::node_mask(q.setup_cycles + 1).into()))
                .collect(),
            out_flit: vdef(n_out),
            out_valid: vdef(n_out),
            out_sel: vdef(n_out),
            out_owner: vdef(n_out),
            prio: Default::default(),
            owned_r: Default::default(),
            err_count: Default::default(),
            err_code: Default::default(),
            clm: vdef(n_out + 1),
            clm_all: Default::default(),
            ownm: vdef(n_out + 1),
            osel: vdef(n_out),
            ownm_all: Default::default(),
            go: vdef(n_in),
            ldm: vdef(n_in + 1),
            lsel: vdef(n_in),
            ldm_all: Default::default(),
            rel: vdef(n_in + 1),
            rsel: vdef(n_in),
            rel_all: Default::default(),
            gsel_all: vdef(n_out),
            fsel: vdef(n_out * n_fast),
            sel_n: vdef(n_out),
            drop_rest: vdef(n_in * n_drop),
            drop_keep: vdef(n_in * n_drop),
            mask_one: (0..n_drop).map(|_| Constant::new(1u64.into())).collect(),
            mask_all: (0..n_drop)
                .map(|_| Constant::new(((1u64 << MASK_W) - 1).into()))
                .collect(),
            in_bit: (0..n_in)
                .map(|i| Constant::new((1u64 << i).into()))
                .collect(),
            popi: vdef(n_in),
            setup_inc: vdef(n_in),
            setup_one: Constant::new(1u64.into()),
            nerr: Popcount::new(n_in),
            err_sum: Default::default(),
            byp: vdef(n_in * n_fast),
            byp_on: (0..n_in * n_fast)
                .map(|i| Constant::new(is_link_input(i)))
                .collect(),
            bo: vdef(n_in * n_fast),
            bgo: vdef(n_in * n_fast),
            fo: vdef(n_in * n_fast),
            fok: vdef(n_in * n_fast),
            fgo: vdef(n_in * n_fast),
            cons_m: (0..n_fast)
                .map(|_| Constant::new((((1u64 << MASK_W) - 1) & !0xF).into()))
                .collect(),
            obit: (0..n_out)
                .map(|o| Constant::new((1u64 << o).into()))
                .collect(),
            in_id: (0..n_in)
                .map(|i| Constant::new((i as u64).into()))
                .collect(),
            no_owner: Constant::new(NO_OWNER_RTL.into()),
            worm_rst: Constant::new(1u64.into()),
            st_idle: Constant::new(state_code(InState::Idle)),
            st_active: Constant::new(state_code(InState::Active)),
            st_diverted: Constant::new(state_code(InState::Diverted)),
            err_max: Constant::new((u16::MAX as u64).into()),
            _n_in: n_in,
            _n_out: n_out,
            _n_cls: len("own"),
            _n_ch: len("ch_v"),
            _n_pool: len("pool"),
            _n_sp: len("sp_v"),
            _n_nbr: len("m_nbr"),
            _n_mown: len("m_own"),
            _n_setup: n_setup,
            _n_defer: n_defer,
            _n_drop: n_drop,
            _n_fast: n_fast,
            _n_tree: (!p.routing.is_mesh()) as usize,
        }
    }

    /// Drives the table ports with `t`'s values (they hold until changed).
    pub fn tie(&mut self, t: &NodeTables) {
        fn set<T: Synth + From<u64>>(s: &mut [Signal<In, T>], v: &[u64]) {
            assert_eq!(s.len(), v.len(), "table length");
            for (s, &v) in s.iter_mut().zip(v) {
                s.next = v.into();
            }
        }
        fn set_bit(s: &mut [Signal<In, Bit>], v: &[u64]) {
            assert_eq!(s.len(), v.len(), "table length");
            for (s, &v) in s.iter_mut().zip(v) {
                s.next = v != 0;
            }
        }
        set(&mut self.t_own, t.get("own"));
        set_bit(&mut self.t_par_v, t.get("par_v"));
        set(&mut self.t_par_d, t.get("par_d"));
        set_bit(&mut self.t_ch_v, t.get("ch_v"));
        set(&mut self.t_ch_lo, t.get("ch_lo"));
        set(&mut self.t_ch_hi, t.get("ch_hi"));
        set_bit(&mut self.t_link_v, t.get("link_v"));
        set(&mut self.t_link_cls, t.get("link_cls"));
        set_bit(&mut self.t_arr_v, t.get("arr_v"));
        set(&mut self.t_arr_cls, t.get("arr_cls"));
        set(&mut self.t_dv_out, t.get("dv_out"));
        set(&mut self.t_pool, t.get("pool"));
        set(&mut self.t_owners, t.get("owners"));
        set(&mut self.t_reach, t.get("reach"));
        set_bit(&mut self.t_sp_v, t.get("sp_v"));
        set(&mut self.t_sp_d, t.get("sp_d"));
        set(&mut self.t_m_own, t.get("m_own"));
        set_bit(&mut self.t_m_nbr_v, t.get("m_nbr_v"));
        set(&mut self.t_m_nbr, t.get("m_nbr"));
    }
}

impl<const W: usize> Logic for Router<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prio, owned_r, err_count, err_code);
        self.err_count_o.next = self.err_count.q.val();
        self.err_code_o.next = self.err_code.q.val();

        // Output registers: a flit leaves when downstream is ready; an output
        // can load at this edge if it is empty or its flit leaves now.
        self.clm[0].next = 0.into();
        for o in 0..self._n_out {
            self.out_flit[o].clock.next = self.clock.val();
            self.out_flit[o].d.next = self.out_flit[o].q.val();
            self.out_valid[o].clock.next = self.clock.val();
            self.out_valid[o].d.next = self.out_valid[o].q.val();
            self.out_owner[o].clock.next = self.clock.val();
            self.out_sel[o].clock.next = self.clock.val();
            self.o_flit[o].next = self.out_flit[o].q.val();
            self.o_valid[o].next = self.out_valid[o].q.val();
            if self.out_valid[o].q.val() & self.o_ready[o].val() {
                self.out_valid[o].d.next = false;
            }
            if !self.out_valid[o].q.val() | self.o_ready[o].val() {
                self.clm[o + 1].next = self.clm[o].val() | self.obit[o].val();
            } else {
                self.clm[o + 1].next = self.clm[o].val();
            }
        }
        // The chain's last element (last write wins, in Rust and Verilog).
        self.clm_all.next = 0.into();
        for o in 0..self._n_out {
            self.clm_all.next = self.clm[o + 1].val();
        }
        self.ownm_all.next = self.owned_r.q.val();

        self.arb.owned.next = self.ownm_all.val();
        self.dec.owned.next = self.ownm_all.val().get_bits::<CONS_W>(4);
        // The node's tables, to every decoder.
        for j in 0..self._n_cls {
            self.dec.own[j].next = self.t_own[j].val();
            self.dec.par_v[j].next = self.t_par_v[j].val();
            self.dec.par_d[j].next = self.t_par_d[j].val();
        }
        for j in 0..self._n_ch {
            self.dec.ch_v[j].next = self.t_ch_v[j].val();
            self.dec.ch_lo[j].next = self.t_ch_lo[j].val();
            self.dec.ch_hi[j].next = self.t_ch_hi[j].val();
        }
        for j in 0..4 {
            self.dec.link_v[j].next = self.t_link_v[j].val();
            self.dec.link_cls[j].next = self.t_link_cls[j].val();
        }
        for j in 0..self._n_nbr {
            self.dec.m_nbr_v[j].next = self.t_m_nbr_v[j].val();
            self.dec.m_nbr[j].next = self.t_m_nbr[j].val();
        }
        self.dec.dv_out[0].next = self.t_dv_out[0].val();
        for j in 0..self._n_mown {
            self.dec.m_own[j].next = self.t_m_own[j].val();
        }
        for j in 0..self._n_in {
            self.dec.arr_v[j].next = self.t_arr_v[j].val();
            self.dec.arr_cls[j].next = self.t_arr_cls[j].val();
        }
        for j in 0..self._n_pool {
            self.dec.pool[j].next = self.t_pool[j].val();
        }
        for j in 0..self._n_sp {
            self.dec.sp_v[j].next = self.t_sp_v[j].val();
            self.dec.sp_d[j].next = self.t_sp_d[j].val();
        }
        self.arb.prio.next = self.prio.q.val();
        self.prio.d.next = self.arb.prio_next.val();

        self.ldm[0].next = 0.into();
        self.rel[0].next = 0.into();
        for i in 0..self._n_in {
            self.in_state[i].clock.next = self.clock.val();
            self.in_state[i].d.next = self.in_state[i].q.val();
            self.in_reserved[i].clock.next = self.clock.val();
            self.in_reserved[i].d.next = self.in_reserved[i].q.val();
            self.in_class[i].clock.next = self.clock.val();
            self.in_class[i].d.next = self.in_class[i].q.val();
            self.in_setup[i].clock.next = self.clock.val();
            self.in_setup[i].d.next = self.in_setup[i].q.val();

            self.fifo[i].clock.next = self.clock.val();
            self.fifo[i].rst.next = self.rst.val();
            self.fifo[i].in_flit.next = self.i_flit[i].val();
            self.fifo[i].in_valid.next = self.i_valid[i].val();
            self.i_ready[i].next = self.fifo[i].ready.val();

            self.dec.head[i].next = self.fifo[i].head.val();
            self.dec.wflit[i].next = self.fifo[i].enter_flit.val();
            for k in 0..self._n_tree {
                self.dec.whz[i + k].next = self.fifo[i].enter_hz.val();
            }
            self.dec.hside[i].next = self.fifo[i].head_side.val();
            self.fifo[i].in_side.next = self.dec.side[i].val();
            self.dec.nonempty[i].next = self.fifo[i].nonempty.val();
            // A deferred strip: the stripped HEAD only leaves, so the
            // decode sees no flit (no request, send, drop or error). (`k` is
            // 0: the loop only emits this with a deferred strip.)
            for k in 0..self._n_defer {
                self.dec.nonempty[i].next =
                    self.fifo[i].nonempty.val() & !self.in_strip[i + k].q.val();
            }
            self.dec.state[i].next = self.in_state[i].q.val();
            self.dec.reserved[i].next = self.in_reserved[i].q.val();
            self.in_worm[i].clock.next = self.clock.val();
            self.dec.worm[i].next = self.in_worm[i].q.val();
            self.dec.reach[i].next = self.t_reach[i].val().get_bits::<O_W>(0);
            self.in_worm[i].d.next = self.in_worm[i].q.val();
            self.push_w[i].next = self.i_valid[i].val() & self.fifo[i].ready.val();
            // Masked with what the input can reach (`t_reach`):
            // nothing a first HEAD that may request asks for, but
            // inputs that share no reachable output then never conflict,
            // a constant to synthesis. Written here, on the arbiter's
            // input, and not in the decode: the same function placed 74
            // against 65 MHz (docs/hardware.md 3l); and as one expression
            // per use, not a shared local, which Verilator's lint reports
            // as a combinational loop through the arbiter.
            self.arb.req[i].next = self.dec.req[i].val() & self.t_reach[i].val();
            // Who requests: an idle input whose head is a well-formed first
            // HEAD, its setup delay over (`decode` module doc).
            self.arb.rq[i].next =
                (self.in_state[i].q.val() == self.st_idle.val()) & self.dec.hd_ok[i].val();
            for _k in 0..self._n_setup {
                self.arb.rq[i].next = (self.in_state[i].q.val() == self.st_idle.val())
                    & self.dec.hd_ok[i].val()
                    & self.in_sok[i].q.val();
            }

            // Coordinated flow control: all outputs of the flit, or none.
            self.so[i].next = self.dec.send_outs[i].val() & self.t_reach[i].val();
            self.go[i].next = self.dec.send[i].val()
                & ((self.so[i].val() & self.clm_all.val()) == self.so[i].val());
            self.popi[i].next = self.dec.drop[i].val()
                | self.dec.err[i].val()
                | self.go[i].val()
                | (self.arb.grant[i].val() & self.dec.strip[i].val());
            for k in 0..self._n_defer {
                self.in_strip[i + k].clock.next = self.clock.val();
                self.in_strip[i + k].d.next = self.arb.grant[i].val() & self.dec.strip[i].val();
                self.popi[i].next = self.dec.drop[i].val()
                    | self.dec.err[i].val()
                    | self.go[i].val()
                    | self.in_strip[i + k].q.val();
            }
            // The fast hop (`k` is 0: only with it). Both shortcuts pop:
            // a bypassed flit is pushed and popped at this edge, a
            // forwarded HEAD leaves at its grant.
            for k in 0..self._n_fast {
                self.byp[i + k].next = !self.fifo[i].nonempty.val()
                    & self.push_w[i].val()
                    // Active (1) or Diverted (3); BODY (1) or TAIL (2).
                    & self.in_state[i].q.val().get_bit(0)
                    & (self.i_flit[i].val().get_bit(0) ^ self.i_flit[i].val().get_bit(1))
                    & self.byp_on[i + k].val();
                self.bo[i + k].next = self.in_reserved[i].q.val() & self.t_reach[i].val();
                self.bgo[i + k].next = self.byp[i + k].val()
                    & ((self.bo[i + k].val() & self.clm_all.val()) == self.bo[i + k].val());
                self.fo[i + k].next = self.dec.req[i].val() & self.t_reach[i].val();
                if self.dec.divert[i].val() {
                    self.fo[i + k].next =
                        self.dec.req[i].val() & self.t_reach[i].val() & self.cons_m[k].val();
                }
                self.fok[i + k].next = !self.dec.strip[i].val()
                    & ((self.fo[i + k].val() & self.clm_all.val()) == self.fo[i + k].val());
                self.fgo[i + k].next = self.arb.grant[i].val() & self.fok[i + k].val();
                self.popi[i].next = self.dec.drop[i].val()
                    | self.dec.err[i].val()
                    | self.go[i].val()
                    | (self.arb.grant[i].val() & self.dec.strip[i].val())
                    | self.bgo[i + k].val()
                    | self.fgo[i + k].val();
                for j in 0..self._n_defer {
                    self.popi[i].next = self.dec.drop[i].val()
                        | self.dec.err[i].val()
                        | self.go[i].val()
                        | self.in_strip[i + j].q.val()
                        | self.bgo[i + k].val()
                        | self.fgo[i + k].val();
                }
            }
            self.fifo[i].pop.next = self.popi[i].val();
            // A flit enters the head slot: the second flit or the one
            // pushed now after a pop, the one pushed now into an empty FIFO.
            self.enter[i].next = (self.popi[i].val()
                & (self.fifo[i].has2.val() | self.push_w[i].val()))
                | (!self.fifo[i].nonempty.val() & self.push_w[i].val());
            if self.enter[i].val() {
                self.in_worm[i].d.next = self.dec.worm_n[i].val();
            }
            // Header setup counter: up while a first HEAD waits, 0 on a pop.
            self.setup_inc[i].next = self.in_setup[i].q.val() + self.setup_one.val();
            if self.dec.setup_wait[i].val() {
                self.in_setup[i].d.next = self.setup_inc[i].val();
                for k in 0..self._n_setup {
                    self.in_setup[i].d.next = self.setup_inc[i].val() & self.setup_m[k].val();
                }
            }
            if self.popi[i].val() {
                self.in_setup[i].d.next = 0.into();
            }

            // The outputs this input loads and releases (the crossbar and
            // the owner registers are written below, over all inputs).
            self.lsel[i].next = 0.into();
            if self.go[i].val() {
                self.lsel[i].next = self.so[i].val();
            }
            // `Fault::DropBranch`: the lowest reserved output never loads
            // when two or more are reserved (`k` is 0: only with the fault).
            for k in 0..self._n_drop {
                self.drop_rest[i + k].next = self.in_reserved[i].q.val()
                    & (self.in_reserved[i].q.val() - self.mask_one[k].val());
                self.drop_keep[i + k].next = self.mask_all[k].val();
                if self.drop_rest[i + k].val().any() {
                    self.drop_keep[i + k].next =
                        !(self.in_reserved[i].q.val() ^ self.drop_rest[i + k].val());
                }
                self.lsel[i].next = 0.into();
                if self.go[i].val() {
                    self.lsel[i].next = self.so[i].val() & self.drop_keep[i + k].val();
                }
            }
            for k in 0..self._n_fast {
                if self.bgo[i + k].val() {
                    self.lsel[i].next = self.bo[i + k].val();
                }
                if self.fgo[i + k].val() {
                    self.lsel[i].next = self.fo[i + k].val();
                }
            }
            self.ldm[i + 1].next = self.ldm[i].val() | self.lsel[i].val();
            self.rsel[i].next = 0.into();
            if self.go[i].val() & self.dec.release_tail[i].val() {
                self.rsel[i].next = self.in_bit[i].val();
                self.in_reserved[i].d.next = 0.into();
                self.in_state[i].d.next = self.st_idle.val();
            }
            // A bypassed TAIL releases (the decode's `release_tail` reads
            // the FIFO head, which an empty FIFO does not have).
            for k in 0..self._n_fast {
                if self.bgo[i + k].val()
                    & self.i_flit[i].val().get_bit(1)
                    & !self.i_flit[i].val().get_bit(0)
                {
                    self.rsel[i].next = self.in_bit[i].val();
                    self.in_reserved[i].d.next = 0.into();
                    self.in_state[i].d.next = self.st_idle.val();
                }
            }
            self.rel[i + 1].next = self.rel[i].val() | self.rsel[i].val();
            if self.dec.drop[i].val() | self.dec.err[i].val() {
                self.in_state[i].d.next = self.dec.drop_state[i].val();
            }
            self.nerr.bit[i].next = self.dec.err[i].val();
            if self.dec.err[i].val() {
                self.err_code.d.next = self.dec.code[i].val();
            }
            // Atomic reservation: the grant takes every requested output.
            if self.arb.grant[i].val() {
                if self.dec.divert[i].val() {
                    self.in_state[i].d.next = self.st_diverted.val();
                } else {
                    self.in_state[i].d.next = self.st_active.val();
                }
                self.in_reserved[i].d.next = self.dec.req[i].val() & self.t_reach[i].val();
                // A link input reserves only for its link's class
                // (`routing::reachable_outputs`): the constant, so that a
                // link input's class register is one flip-flop or none.
                if self.t_arr_v[i].val() {
                    self.in_class[i].d.next = self.t_arr_cls[i].val();
                } else {
                    self.in_class[i].d.next = self.dec.hclass[i].val();
                }
            }
        }
        // Crossbar and owners. Only an output's owner sends to it
        // (`send_outs` ⊆ `in_reserved`, and `in_reserved[i]` holds output o
        // iff input i owns it), so the flit an output loads is its owner's,
        // selected by the one-hot owner register alone; the handshake only
        // enables the load.
        //
        // Next owner: kept unless its input's TAIL releases now, or the
        // input granted the output now. Written per input (`rel_all`: the
        // inputs releasing) and not, as natively, per output (the outputs a
        // release frees), because an input releases exactly the outputs it
        // owns; and a grant takes only outputs nobody owns, at most one input
        // each (the arbiter's taken mask), so a grant and a release never
        // meet on one output. Each owner bit is then one LUT (area).
        // The mask `t_owners` (the inputs that can ever own the output, a
        // constant per node) changes nothing the native model can do
        // (`routing::reachable_outputs`), but turns the owner bits of the
        // pairs that never meet into constant zeros, and with them their
        // crossbar terms.
        self.ldm_all.next = 0.into();
        self.rel_all.next = 0.into();
        for i in 0..self._n_in {
            self.xbar.flit[i].next = self.dec.send_flit[i].val();
            // The fast hop: an empty FIFO's link input sends only the
            // flit arriving now (the bypass).
            for k in 0..self._n_fast {
                if !self.fifo[i].nonempty.val() & self.byp_on[i + k].val() {
                    self.xbar.flit[i].next = self.i_flit[i].val();
                }
            }
            self.ldm_all.next = self.ldm[i + 1].val();
            self.rel_all.next = self.rel[i + 1].val();
        }
        for o in 0..self._n_out {
            self.gsel_all[o].next = 0.into();
            for i in 0..self._n_in {
                if self.arb.grant[i].val()
                    & self.dec.req[i].val().get_bit(o)
                    & self.t_reach[i].val().get_bit(o)
                {
                    self.gsel_all[o].next = self.in_bit[i].val();
                }
            }
        }
        self.ownm[0].next = 0.into();
        for o in 0..self._n_out {
            self.xbar.sel[o].next = self.out_sel[o].q.val();
            // The fast hop: an output granted now selects its new owner
            // (it had none), whose HEAD it loads if that is forwarded.
            // `fsel` is `gsel_all` again, which synthesis merges: read
            // from `gsel_all`, which the owner registers also read,
            // Verilator's lint sees a false combinational loop (UNOPTFLAT)
            // from the crossbar's output back to its select; written as
            // one `if` per input into the select itself, the same
            // function took 86 more SB_LUT4 under `dor` and 139 under
            // negative-first.
            for k in 0..self._n_fast {
                self.fsel[o + k].next = 0.into();
                for i in 0..self._n_in {
                    if self.arb.grant[i].val()
                        & self.dec.req[i].val().get_bit(o)
                        & self.t_reach[i].val().get_bit(o)
                    {
                        self.fsel[o + k].next = self.in_bit[i].val();
                    }
                }
                self.xbar.sel[o].next = self.out_sel[o].q.val() | self.fsel[o + k].val();
            }
            self.sel_n[o].next = ((self.out_sel[o].q.val() & !self.rel_all.val())
                | self.gsel_all[o].val())
                & self.t_owners[o].val();
            self.osel[o].next = 0.into();
            if self.sel_n[o].val().any() {
                self.osel[o].next = self.obit[o].val();
            }
            self.ownm[o + 1].next = self.ownm[o].val() | self.osel[o].val();
            self.owned_r.d.next = self.ownm[o + 1].val();
            if self.ldm_all.val().get_bit(o) {
                self.out_flit[o].d.next = self.xbar.out[o].val();
                self.out_valid[o].d.next = true;
            }
            self.out_sel[o].d.next = self.sel_n[o].val();
            self.out_owner[o].d.next = self.no_owner.val();
            for i in 0..self._n_in {
                if self.sel_n[o].val().get_bit(i) {
                    self.out_owner[o].d.next = self.in_id[i].val();
                }
            }
        }
        // err_count saturates (one step per malformed input, as natively).
        self.err_sum.next = bit_cast::<17, ERR_COUNT_W>(self.err_count.q.val())
            + bit_cast::<17, COUNT_W>(self.nerr.count.val());
        // Above the maximum exactly when the carry (bit 16) is set, both
        // addends being below 2^16: a bit test, where `> err_max` was a
        // second carry chain in `synth_xilinx` (docs/hardware.md 3s).
        if self.err_sum.val().get_bit(16) {
            self.err_count.d.next = bit_cast::<ERR_COUNT_W, 17>(self.err_max.val());
        } else {
            self.err_count.d.next = bit_cast::<ERR_COUNT_W, 17>(self.err_sum.val());
        }

        // Synchronous reset, last so it wins.
        if self.rst.val() {
            for i in 0..self._n_in {
                self.in_state[i].d.next = self.st_idle.val();
                self.in_reserved[i].d.next = 0.into();
                self.in_class[i].d.next = 0.into();
                self.in_setup[i].d.next = 0.into();
                self.in_worm[i].d.next = self.worm_rst.val();
                for k in 0..self._n_defer {
                    self.in_strip[i + k].d.next = false;
                }
            }
            for o in 0..self._n_out {
                self.out_flit[o].d.next = 0.into();
                self.out_valid[o].d.next = false;
                self.out_sel[o].d.next = 0.into();
                self.out_owner[o].d.next = self.no_owner.val();
            }
            self.prio.d.next = 0.into();
            self.owned_r.d.next = 0.into();
            self.err_count.d.next = 0.into();
            self.err_code.d.next = 0.into();
        }
        // The setup registers (with a delay only; none without, so that
        // the router without one is the netlist it was). `in_sok` follows
        // the counter: it holds while the counter holds, becomes 1 when a
        // wait takes the counter from `setup_cycles - 1` to `setup_cycles`
        // (it only counts below that), and 0 with the counter on a pop or a
        // reset; one equality with a constant, and the pop only clears it.
        for i in 0..self._n_in {
            for k in 0..self._n_setup {
                self.in_sok[i].clock.next = self.clock.val();
                self.dec.sok[i].next = self.in_sok[i].q.val();
                self.in_sok[i].d.next = self.in_sok[i].q.val();
                if self.dec.setup_wait[i].val() {
                    self.in_sok[i].d.next = self.in_setup[i].q.val() == self.setup_c[k].val();
                }
                if self.popi[i].val() | self.rst.val() {
                    self.in_sok[i].d.next = false;
                }
            }
        }
    }
}
