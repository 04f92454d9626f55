//! Header decode of one input (docs/architecture.md §3 "Input port"): the shared
//! skeleton of every routing function. The routing function itself is a
//! sub-block per input, one file per function as on the native side
//! (so that synthesis sees only the blocks a router uses): [`tree`] (up/down tree routing, \[DSTM\] §3.1.2 and
//! §3.2.2), [`spam`] (the SPAM baseline, \[DSTM\] §2, docs/references.md §A;
//! a SPAM router has the tree block too, for S=1 headers) and [`mesh`]
//! (`hamiltonian`, \[PATHOPT\] §2.1; `dor`; `negative_first`, \[BRCP\]
//! §3.1; docs/references.md §B). A router instantiates only the blocks its
//! routing function uses ([`crate::decoders::Decoders`] wires them), so a
//! torus router carries no mesh logic and a mesh router no tree tables.
//!
//! Purely combinational, in two halves. The pre-decode reads the flit
//! entering the FIFO's head slot (`wflit`, `InputFifo::enter_flit`: the
//! second flit or the upstream one, chosen by the fill), which the
//! routing block reads too (it takes
//! `Node` from `wflit` itself, so no path runs from the skeleton into the
//! block and back, a false loop Verilator's lint reports as UNOPTFLAT),
//! and from the block's answer and the node's constant tables makes the
//! first-HEAD checks and outcome, or for a later flit of a worm its
//! trailing-HEAD outcome against the worm's first HEAD (`worm`). Its
//! result (`side`, `SIDE_W` bits) is stored beside the head (timing:
//! the table compares and the trailing rules leave the paths from
//! the FIFO head through the arbiter and through the send handshake, which
//! had set the router's clock). The second half reads the head, its stored
//! pre-decode and the input's registers, and decides the input's action
//! this cycle exactly as the native `router::decide`,
//! `routing::first_head` and `routing::trailing_head` do, malformed checks
//! in the same priority order, so both models raise the same `err_code`
//! for the same flit. What depends on registers stays in the second half:
//! the setup delay, the consumption-channel choice (from the channels
//! owned this cycle) and a diverted worm's HEADs (`Diverted`, faulty
//! outputs only). The router core applies the action.
//!
//! Per-node tables (link classes, consumption pools, faulty outputs; the
//! routing blocks' own tables) are `In` signals, tied off per instance by
//! whoever instantiates the router (`crate::tables`), so every node shares
//! one router module; network-wide values (routing function, classes,
//! address space, setup delay) are `Constant`s, i.e. `localparam`s in the
//! Verilog.
//!
//! Mesh split points (`sim/src/router/mesh.rs`, docs/history/decisions-log.md
//! "Mesh routing in the RTL"): a C=1 header takes its arrival group's pool
//! (a constant of the input); a trailing HEAD follows `mesh::trailing_head`
//! (one reserved link: that link; several: the function's port if
//! reserved; no `head_for_me_after_split`).
//!
//! Header setup delay (`RouterParams::setup_cycles`): a first HEAD at an
//! idle input raises `setup_wait` instead of requesting while the input's
//! `setup` counter is below `setup_cycles`; the router core counts `setup` up
//! on `setup_wait` and clears it on every pop, as `router::step` does.
//!
//! The request is pre-decoded (timing): it is the head's
//! stored pre-decode (`req`, read only when it may request), and whether
//! it may request (the arbiter's `rq`: idle, setup done, a well-formed
//! first HEAD at the head, `hd_ok`) is one LUT of registers in the router
//! (`Router::update`), instead of the state, the counter's comparison and
//! the head's kind and checks in the cycle the arbiter uses it. The
//! arbiter takes the two apart (`crate::arbiter`): `rq` says who
//! requests, the ungated request only what. (From 3i to 3p of
//! docs/hardware.md `rq` was a register of its own, `in_rq`, loaded one
//! edge early; once the checks were stored beside the head its next-state
//! logic was area only, 23 Xilinx LUTs as built, 3q.)
//!
//! Consumption (`routing::consumption_choice`): a C=1 header requests the
//! lowest free channel of its class's pool, else the lowest of the pool,
//! from the `owned` mask of this cycle.
//!
//! Local fault information (\[DSTM\] §7, `routing::diversion`): with tree
//! routing, a first HEAD whose branch would cross a faulty output of the
//! router's `divert_out` mask (a tied-off table input; 0 = no fault,
//! which synthesis folds away) is not stripped and requests the
//! consumption channel of its class, plus the healthy O ports when it is a
//! split point here (`divert`); in the `Diverted` state a HEAD below a
//! reserved link follows it and every other HEAD goes to the channel
//! (`routing::diverted_head`), until the TAIL releases the worm.

pub mod mesh;
pub mod spam;
pub mod tree;

use crate::arbiter::vdef;
use crate::hw::*;
use crate::tables::TableShape;
use rust_hdl::prelude::*;
use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};
use wormcast_sim::flit;
use wormcast_sim::router::{InState, RouterError};

pub use crate::hw::{CONS_W, SETUP_W};

// The consumption choice is a priority chain over four channels.
const _: () = assert!(CONS_W == 4 && MASK_W == 4 + CONS_W);

/// Width of a flit's pre-decode, stored beside the head in the input FIFO
/// ([`Decode::side`]). Layout, bit 0 up, for the first flit of a worm
/// (the one its input meets idle): first-HEAD error (1); its code if it is
/// an error, else its link request O1..O4 (4); consumption request bit 0
/// (1); divert (1); strip (1); `below` per child port (4); consumption
/// request bits 1..3 (3); "may request" (1, bit `SIDE_RQ`: a HEAD without
/// a first-HEAD error). The consumption request is the class's pool if
/// the HEAD consumes here, else 0. For every later flit bits 0..5 hold its
/// trailing-HEAD outcome instead ([`Decode::worm`]): error (1); its code,
/// else the one link a split sends it to (4); split (1).
///
/// Why the code and the link request share bits (area): a first
/// HEAD either raises an error, whose code is all the head needs, or
/// requests links, and never both; one field saves four flip-flops a slot
/// and their head multiplexers. Why the two outcomes share bits: which one
/// a flit needs is known when it enters the head slot (see `Decode::worm`), and a
/// first flit that the head meets `Active` (a HEAD forwarded unstripped)
/// always sends to everything its input reserved, which its first-HEAD
/// fields already say: no error, no consumption request, so "no split".
/// Why the pool and not a consume bit (timing): the head's request is then
/// registers and the choice among owned channels, with no class lookup in
/// front of the arbiter; a bit a node's pools never use is a constant 0
/// and synthesis drops its flip-flops.
pub const SIDE_W: usize = 16;
/// The "may request" bit of `SIDE_W` (`hd_ok`), so that registers alone
/// say whether the arbiter has a request
/// (timing; see `Decode::req`). A HEAD without a
/// first-HEAD error always requests something: its links, or its class's
/// consumption pool, which is never empty (`RouterParams::pool_of`); a
/// HEAD for this node with neither is the `NoOutput` error. So "no error"
/// is "a request", as the native arbiter's `req != 0` reads it.
pub const SIDE_RQ: usize = 15;
// rust-hdl's generated Verilog spells indices as literals: the code writes
// 15 where it means `SIDE_RQ`.
const _: () = assert!(SIDE_RQ == 15 && SIDE_RQ + 1 == SIDE_W);

/// Width of an input's worm register (`Router::in_worm`, [`Decode::worm`]).
/// Layout, bit 0 up: the next flit to enter the head slot is the first of a worm (1); the
/// first HEAD's link request (4); it reserves more than one output (1);
/// more than one link (1); its class (`CLASS_W`).
pub const WORM_W: usize = 7 + CLASS_W;
const _: () = assert!(ERR_CODE_W == O_W);

#[derive(LogicBlock)]
pub struct Decode<const W: usize> {
    /// FIFO head and whether the FIFO holds a flit.
    pub head: Signal<In, Bits<W>>,
    /// The flit entering the FIFO's head slot if slot 0 loads this cycle,
    /// and its pre-decode, loaded beside it: the
    /// routing function of a flit depends only on the flit, the node's
    /// constant tables and the worm register, so it is computed while the
    /// flit enters the head slot, off the path from the head through the
    /// arbiter. `hside` is the head's pre-decode.
    pub wflit: Signal<In, Bits<W>>,
    pub side: Signal<Out, Bits<SIDE_W>>,
    pub hside: Signal<In, Bits<SIDE_W>>,
    /// The input's worm register (`Router::in_worm`, `WORM_W` layout),
    /// and its next value when `wflit` enters the head slot (flits enter
    /// it in the order they were pushed, `crate::fifo`). Every flit but a
    /// worm's first is a trailing flit of the worm whose first flit
    /// entered last (an input is idle exactly after a TAIL, so the first
    /// flit to enter after one is the flit the head will meet idle), and a
    /// trailing HEAD's outcome (`routing::trailing_head`) depends on the
    /// flit and on what its worm's first HEAD reserved, whose link part and
    /// size are that HEAD's pre-decode. So the outcome is decided as the
    /// flit enters the head slot and stored beside it (timing): the
    /// class, range and split checks and the child-port choice leave the
    /// path from the FIFO head through the send handshake to the output
    /// registers' enables, which had set the router's clock.
    pub worm: Signal<In, Bits<WORM_W>>,
    pub worm_n: Signal<Out, Bits<WORM_W>>,
    /// The links this input can ever reserve (`routing::reachable_outputs`,
    /// a constant per node, the router's `t_reach`): the worm register
    /// keeps only those of its first HEAD's links, which changes nothing
    /// for a worm that reserves (its links lie within them) or for one
    /// that does not (an error: its input discards the worm without
    /// reading them), but lets synthesis drop the other link bits and the
    /// trailing-HEAD logic that reads them (area;
    /// docs/hardware.md 3l). The request is masked on the arbiter's input
    /// (`Router`), not here.
    pub reach: Signal<In, Bits<O_W>>,
    pub nonempty: Signal<In, Bit>,
    /// The input's registers `state`, `reserved`.
    pub state: Signal<In, Bits<STATE_W>>,
    pub reserved: Signal<In, Bits<MASK_W>>,
    /// Consumption channels owned at the start of the cycle (bit j =
    /// output 4 + j), for the consumption-pool choice.
    pub owned: Signal<In, Bits<CONS_W>>,
    /// With a setup delay only (one entry; none without, so that the
    /// router without one is the netlist it was): the input's setup
    /// counter has reached `setup_cycles` (router register `in_sok`) ...
    pub sok: Vec<Signal<In, Bit>>,
    /// The head is a well-formed first HEAD (non-empty, `SIDE_RQ`): with
    /// the input idle and the setup delay over, the arbiter's `rq`.
    pub hd_ok: Signal<Out, Bit>,
    /// A first HEAD is paying the setup delay: count `setup` up.
    pub setup_wait: Signal<Out, Bit>,
    /// The head's request: what a first HEAD that may request (the
    /// arbiter's `rq`) requests, undefined otherwise; strip-on-grant, worm
    /// class (`strip`, `divert` and `hclass` are meaningful only with a
    /// grant, which needs `rq`).
    pub req: Signal<Out, Bits<MASK_W>>,
    pub strip: Signal<Out, Bit>,
    /// The request is a diversion: the grant enters `Diverted`.
    pub divert: Signal<Out, Bit>,
    pub hclass: Signal<Out, Bits<CLASS_W>>,
    /// Send `send_flit` to all of `send_outs` when they can all load;
    /// `release_tail` frees the reservation (TAIL). The last three are
    /// meaningful only with `send`.
    pub send: Signal<Out, Bit>,
    pub send_flit: Signal<Out, Bits<W>>,
    pub send_outs: Signal<Out, Bits<MASK_W>>,
    pub release_tail: Signal<Out, Bit>,
    /// Pop the head unconditionally and move to `drop_state` (meaningful
    /// only with `drop` or `err`).
    pub drop: Signal<Out, Bit>,
    pub drop_state: Signal<Out, Bits<STATE_W>>,
    /// Malformed: count it, with this code (meaningful only with `err`),
    /// and move to `drop_state`.
    pub err: Signal<Out, Bit>,
    pub code: Signal<Out, Bits<ERR_CODE_W>>,

    // Pre-decode of `wflit`: the first-HEAD outcome without the setup
    // delay and the consumption-channel choice (both depend on registers).
    p_err: Signal<Local, Bit>,
    p_code: Signal<Local, Bits<ERR_CODE_W>>,
    p_links: Signal<Local, Bits<O_W>>,
    p_cons: Signal<Local, Bit>,
    p_div: Signal<Local, Bit>,
    p_strip: Signal<Local, Bit>,
    side_v: Signal<Local, Bits<SIDE_W>>,
    one4: Constant<Bits<O_W>>,
    // The worm register, unpacked, and its next value's fields: the
    // first HEAD's reservation has more than one output (`n_multi`, with
    // its consumption channel `n_cons` if its class has a pool) or more
    // than one link (`n_lmulti`).
    w_first: Signal<Local, Bit>,
    w_links: Signal<Local, Bits<O_W>>,
    /// The first HEAD's links the worm register keeps (within `reach`).
    p_rl: Signal<Local, Bits<O_W>>,
    w_multi: Signal<Local, Bit>,
    w_lmulti: Signal<Local, Bit>,
    w_cls: Signal<Local, Bits<CLASS_W>>,
    w_pool: Signal<Local, Bits<CONS_W>>,
    /// A first HEAD's consumption request: its class's pool if it
    /// consumes, else 0 (stored beside it; see `SIDE_W`).
    p_pool: Signal<Local, Bits<CONS_W>>,
    /// Its bits one by one, and the "may request" bit (`SIDE_RQ`), as
    /// plain signals so that packing them is one Verilog idiom.
    p_pb: Vec<Signal<Local, Bit>>,
    p_rq: Signal<Local, Bit>,
    n_cons: Signal<Local, Bit>,
    n_lmulti: Signal<Local, Bit>,
    n_multi: Signal<Local, Bit>,
    w_tail: Signal<Local, Bit>,
    // The trailing-HEAD outcome of `wflit`: error and code, a split's
    // link (one-hot), split (else: to everything reserved).
    t_err: Signal<Local, Bit>,
    t_code: Signal<Local, Bits<ERR_CODE_W>>,
    t_links: Signal<Local, Bits<O_W>>,
    t_split: Signal<Local, Bit>,
    /// Mesh: the function's port of `wflit` is one of the reserved links
    /// and the worm is not for this node.
    t_mres: Signal<Local, Bit>,
    // The head's pre-decode, unpacked (`SIDE_W`: the error, code and
    // links, and `q_cons`, which is the split bit in a trailing flit's
    // outcome), and the head's own fields.
    q_err: Signal<Local, Bit>,
    q_code: Signal<Local, Bits<ERR_CODE_W>>,
    q_links: Signal<Local, Bits<O_W>>,
    q_cons: Signal<Local, Bit>,
    q_div: Signal<Local, Bit>,
    q_strip: Signal<Local, Bit>,
    q_below: Vec<Signal<Local, Bit>>,
    h_cls: Signal<Local, Bits<CLASS_W>>,
    // Header fields (of `wflit`; `kind` of the head).
    kind: Signal<Local, Bits<KIND_W>>,
    hc: Signal<Local, Bit>,
    ho: Signal<Local, Bits<O_W>>,
    hs: Signal<Local, Bit>,
    hcls: Signal<Local, Bits<CLASS_W>>,
    /// The class of the link checks and the pool (`hcls`, or at a link
    /// input the link's).
    lcls: Signal<Local, Bits<CLASS_W>>,
    /// The routing sub-block's answer, one entry per block this router
    /// has (none otherwise): the tree block's `below`, `child`, port
    /// (valid, port, is the parent port) and own hit ([`tree::TreeRoute`]);
    /// the SPAM entry of `Node` ([`spam::SpamRoute`]); the mesh function's
    /// range check, own hit and port ([`mesh`]).
    pub tr_below: Vec<Signal<In, Bits<O_W>>>,
    pub tr_child: Vec<Signal<In, Bits<O_W>>>,
    pub tr_v: Vec<Signal<In, Bit>>,
    pub tr_d: Vec<Signal<In, Bits<2>>>,
    pub tr_up: Vec<Signal<In, Bit>>,
    pub tr_own_hit: Vec<Signal<In, Bit>>,
    pub tr_node_ok: Vec<Signal<In, Bit>>,
    pub sp_v_i: Vec<Signal<In, Bit>>,
    pub sp_d_i: Vec<Signal<In, Bits<2>>>,
    pub m_ok_i: Vec<Signal<In, Bit>>,
    pub m_here_i: Vec<Signal<In, Bit>>,
    pub m_d_i: Vec<Signal<In, Bits<2>>>,
    /// The header's class exists.
    class_ok: Signal<Local, Bit>,
    /// The head's consumption request (`p_pool` of a first HEAD; bit j =
    /// channel j) and the choice.
    q_pool: Signal<Local, Bits<CONS_W>>,
    /// Its bits 1..3 and 0 as stored (`SIDE_W`).
    q_ph: Signal<Local, Bits<3>>,
    q_p0: Signal<Local, Bit>,
    c_free: Signal<Local, Bits<CONS_W>>,
    c_pick: Signal<Local, Bits<CONS_W>>,
    s_wait: Signal<Local, Bit>,
    t_cons: Signal<Local, Bits<MASK_W>>,
    /// Port d leads to a child of the header's class.
    t_ch_v: Vec<Signal<Local, Bit>>,
    /// `Node` lies below the child on port d.
    below: Vec<Signal<Local, Bit>>,
    /// Link on port d exists and has the header's class.
    lok: Vec<Signal<Local, Bit>>,
    own_hit: Signal<Local, Bit>,
    node_ok: Signal<Local, Bit>,
    arr_cls_ok: Signal<Local, Bit>,
    rt_v: Signal<Local, Bit>,
    rt_d: Signal<Local, Bits<2>>,
    rt_up: Signal<Local, Bit>,
    /// SPAM entry of `Node` for this input's phase.
    sp_ev: Signal<Local, Bit>,
    sp_ed: Signal<Local, Bits<2>>,
    /// The routing decision for a header not for this node: valid, port,
    /// error code when not valid, S=1 header that would go up, link ok.
    f_v: Signal<Local, Bit>,
    f_d: Signal<Local, Bits<2>>,
    f_err: Signal<Local, Bits<ERR_CODE_W>>,
    f_up: Signal<Local, Bit>,
    f_lok: Signal<Local, Bit>,
    o_bad: Signal<Local, Bit>,
    /// An O bit on a healthy (not faulty) port fails its link check.
    o_bad_h: Signal<Local, Bit>,
    /// Chains over the reserved bits: `r_seen[k]` = one of bits 0..k is
    /// set, `r_two[k]` = two of them are; `multi` = `r_two[8]` (`MASK_W`
    /// is 8; rust-hdl needs literal indices).
    /// Why a chain and not `x & (x - 1) != 0` (timing): the
    /// subtraction maps to a carry chain on the router's longest path
    /// (reservation → trailing-HEAD decision → `go`); this is a few LUTs.
    r_seen: Vec<Signal<Local, Bit>>,
    r_two: Vec<Signal<Local, Bit>>,
    multi: Signal<Local, Bit>,
    /// Local fault information: the header's output is faulty.
    dv_port: Signal<Local, Bit>,
    dv_hit: Signal<Local, Bit>,
    /// Faulty outputs (`RouterConfig::divert_out`, tree routing only), and
    /// whether there are any; diversion exists with tree routing only.
    pub dv_out: Signal<In, Bits<O_W>>,
    dv_on: Signal<Local, Bit>,
    dv_en: Constant<Bit>,

    /// Per class: consumption pool, bit j = channel j (output 4 + j),
    /// tied off per node (`crate::tables`).
    pub pool: Vec<Signal<In, Bits<CONS_W>>>,
    /// SPAM routing (else tree).
    spam: Constant<Bit>,
    // Per link port d.
    pub link_v: Vec<Signal<In, Bit>>,
    pub link_cls: Vec<Signal<In, Bits<CLASS_W>>>,
    // This input.
    arr_is_link: Constant<Bit>,
    pub arr_v: Signal<In, Bit>,
    pub arr_cls: Signal<In, Bits<CLASS_W>>,
    arr_d: Constant<Bits<2>>,
    // Flit layout (sim/src/flit.rs).
    c_bit: Constant<Bits<8>>,
    o_shift: Constant<Bits<8>>,
    s_bit: Constant<Bits<8>>,
    class_shift: Constant<Bits<8>>,
    s_mask: Constant<Bits<W>>,
    k_head: Constant<Bits<KIND_W>>,
    k_body: Constant<Bits<KIND_W>>,
    k_tail: Constant<Bits<KIND_W>>,
    st_idle: Constant<Bits<STATE_W>>,
    st_active: Constant<Bits<STATE_W>>,
    st_discard: Constant<Bits<STATE_W>>,
    st_diverted: Constant<Bits<STATE_W>>,
    link_mask: Constant<Bits<MASK_W>>,
    one: Constant<Bits<MASK_W>>,
    // Error codes (router/error.rs).
    e_body_at_idle: Constant<Bits<ERR_CODE_W>>,
    e_for_me_after_split: Constant<Bits<ERR_CODE_W>>,
    e_down_phase_up: Constant<Bits<ERR_CODE_W>>,
    e_back_to_arrival: Constant<Bits<ERR_CODE_W>>,
    e_no_output: Constant<Bits<ERR_CODE_W>>,
    e_bad_link: Constant<Bits<ERR_CODE_W>>,
    e_trailing_at_consumer: Constant<Bits<ERR_CODE_W>>,
    e_below_no_branch: Constant<Bits<ERR_CODE_W>>,
    e_node_range: Constant<Bits<ERR_CODE_W>>,
    e_bad_class: Constant<Bits<ERR_CODE_W>>,
    e_reserved_kind: Constant<Bits<ERR_CODE_W>>,
    // Mesh routing (router/mesh.rs), generation-time choice: `mesh` on,
    // `ham` Hamiltonian R, `nf` negative-first (else dor).
    mesh: Constant<Bit>,

    // The mesh function's answer (from the input vectors above).
    m_here: Signal<Local, Bit>,
    m_d: Signal<Local, Bits<2>>,
    _classes: usize,
    /// 1 where the router has the tree / SPAM / a mesh routing block, else
    /// 0: loop bounds over the input vectors of that block's answer.
    _n_tree: usize,
    _n_spam: usize,
    _n_mesh: usize,
    /// 1 with a header setup delay, else 0.
    _n_setup: usize,
}

fn ec(e: RouterError) -> Constant<Bits<ERR_CODE_W>> {
    Constant::new((e.code() as u64).into())
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl<const W: usize> Decode<W> {
    /// The decoder of input `input` of a router of the network `cfg`
    /// belongs to: only network-wide values of `cfg` are read (node count,
    /// mesh address space), never its tables, which arrive on the `In`
    /// table signals (`crate::tables`).
    pub fn new(cfg: &RouterConfig, p: &RouterParams, input: usize) -> Self {
        assert_eq!(p.flit.width as usize, W, "flit width");
        let sh = TableShape::new(cfg, p);
        let classes = sh.classes;
        let mesh = p.routing.is_mesh() as usize;
        let tree = 1 - mesh;
        let is_link = input < 4;
        let n_setup = (p.setup_cycles > 0) as usize;
        let spam = p.routing == RoutingKind::Spam;
        Decode {
            head: Default::default(),
            wflit: Default::default(),
            side: Default::default(),
            hside: Default::default(),
            worm: Default::default(),
            reach: Default::default(),
            p_rl: Default::default(),
            worm_n: Default::default(),
            w_first: Default::default(),
            w_links: Default::default(),
            w_multi: Default::default(),
            w_lmulti: Default::default(),
            w_cls: Default::default(),
            w_pool: Default::default(),
            p_pool: Default::default(),
            p_pb: vdef(CONS_W),
            p_rq: Default::default(),
            n_cons: Default::default(),
            n_lmulti: Default::default(),
            n_multi: Default::default(),
            w_tail: Default::default(),
            t_err: Default::default(),
            t_code: Default::default(),
            t_links: Default::default(),
            t_split: Default::default(),
            t_mres: Default::default(),
            p_err: Default::default(),
            p_code: Default::default(),
            p_links: Default::default(),
            p_cons: Default::default(),
            p_div: Default::default(),
            p_strip: Default::default(),
            side_v: Default::default(),
            one4: k::<O_W>(1),
            q_err: Default::default(),
            q_code: Default::default(),
            q_links: Default::default(),
            q_cons: Default::default(),
            q_div: Default::default(),
            q_strip: Default::default(),
            q_below: vdef(4),
            h_cls: Default::default(),
            nonempty: Default::default(),
            state: Default::default(),
            reserved: Default::default(),
            owned: Default::default(),
            sok: vdef(n_setup),
            hd_ok: Default::default(),
            setup_wait: Default::default(),
            req: Default::default(),
            strip: Default::default(),
            divert: Default::default(),
            hclass: Default::default(),
            send: Default::default(),
            send_flit: Default::default(),
            send_outs: Default::default(),
            release_tail: Default::default(),
            drop: Default::default(),
            drop_state: Default::default(),
            err: Default::default(),
            code: Default::default(),
            kind: Default::default(),
            hc: Default::default(),
            ho: Default::default(),
            hs: Default::default(),
            hcls: Default::default(),
            lcls: Default::default(),
            tr_below: vdef(tree),
            tr_child: vdef(tree),
            tr_v: vdef(tree),
            tr_d: vdef(tree),
            tr_up: vdef(tree),
            tr_own_hit: vdef(tree),
            tr_node_ok: vdef(tree),
            sp_v_i: vdef(spam as usize),
            sp_d_i: vdef(spam as usize),
            m_ok_i: vdef(mesh),
            m_here_i: vdef(mesh),
            m_d_i: vdef(mesh),
            class_ok: Default::default(),
            q_pool: Default::default(),
            q_ph: Default::default(),
            q_p0: Default::default(),
            c_free: Default::default(),
            c_pick: Default::default(),
            s_wait: Default::default(),
            t_cons: Default::default(),
            t_ch_v: (0..4).map(|_| Default::default()).collect(),
            below: (0..4).map(|_| Default::default()).collect(),
            lok: (0..4).map(|_| Default::default()).collect(),
            own_hit: Default::default(),
            node_ok: Default::default(),
            arr_cls_ok: Default::default(),
            rt_v: Default::default(),
            rt_d: Default::default(),
            rt_up: Default::default(),
            sp_ev: Default::default(),
            sp_ed: Default::default(),
            f_v: Default::default(),
            f_d: Default::default(),
            f_err: Default::default(),
            f_up: Default::default(),
            f_lok: Default::default(),
            o_bad: Default::default(),
            o_bad_h: Default::default(),
            r_seen: vdef(MASK_W),
            r_two: vdef(MASK_W + 1),
            multi: Default::default(),
            dv_port: Default::default(),
            dv_hit: Default::default(),
            dv_out: Default::default(),
            dv_on: Default::default(),
            dv_en: Constant::new(p.routing == RoutingKind::Tree),
            pool: vdef(classes),
            spam: Constant::new(spam),
            link_v: vdef(4),
            link_cls: vdef(4),
            arr_is_link: Constant::new(is_link),
            arr_v: Default::default(),
            arr_cls: Default::default(),
            arr_d: k::<2>(if is_link { input as u64 } else { 0 }),
            c_bit: k::<8>(flit::C_BIT as u64),
            o_shift: k::<8>(flit::O_SHIFT as u64),
            s_bit: k::<8>(flit::S_BIT as u64),
            class_shift: k::<8>(flit::CLASS_SHIFT as u64),
            s_mask: k::<W>(flit::set_s(0)),
            k_head: k::<KIND_W>(flit::KIND_HEAD),
            k_body: k::<KIND_W>(flit::KIND_BODY),
            k_tail: k::<KIND_W>(flit::KIND_TAIL),
            st_idle: Constant::new(state_code(InState::Idle)),
            st_active: Constant::new(state_code(InState::Active)),
            st_discard: Constant::new(state_code(InState::Discard)),
            st_diverted: Constant::new(state_code(InState::Diverted)),
            link_mask: k::<MASK_W>(0xF),
            one: k::<MASK_W>(1),
            e_body_at_idle: ec(RouterError::BodyAtIdle),
            e_for_me_after_split: ec(RouterError::HeadForMeAfterSplit),
            e_down_phase_up: ec(RouterError::DownPhaseUp),
            e_back_to_arrival: ec(RouterError::BackToArrival),
            e_no_output: ec(RouterError::NoOutput),
            e_bad_link: ec(RouterError::BadLink),
            e_trailing_at_consumer: ec(RouterError::TrailingAtConsumer),
            e_below_no_branch: ec(RouterError::BelowNoBranch),
            e_node_range: ec(RouterError::NodeOutOfRange),
            e_bad_class: ec(RouterError::BadClass),
            e_reserved_kind: ec(RouterError::ReservedKind),
            mesh: Constant::new(mesh == 1),
            m_here: Default::default(),
            m_d: Default::default(),
            _classes: classes,
            _n_tree: tree,
            _n_spam: spam as usize,
            _n_mesh: mesh,
            _n_setup: n_setup,
        }
    }
}

impl<const W: usize> Logic for Decode<W> {
    #[hdl_gen]
    fn update(&mut self) {
        // Header fields (flit.rs layout) of the flit entering the head slot: the
        // pre-decode below reads only these and the node's tables.
        self.hc.next = self.wflit.val().get_bit(self.c_bit.val().index());
        self.ho.next = self.wflit.val().get_bits::<O_W>(self.o_shift.val().index());
        self.hs.next = self.wflit.val().get_bit(self.s_bit.val().index());
        self.hcls.next = self
            .wflit
            .val()
            .get_bits::<CLASS_W>(self.class_shift.val().index());

        // The class the link checks and the pool read: at a link input the
        // link's (a constant per node), since every outcome that reads them
        // comes after the class check, which a header of another class
        // fails (area; `tree` module doc).
        self.lcls.next = self.hcls.val();
        if self.arr_is_link.val() {
            self.lcls.next = self.arr_cls.val();
        }
        for d in 0..4 {
            self.lok[d].next = self.link_v[d].val() & (self.link_cls[d].val() == self.lcls.val());
        }
        // The header's class exists.
        self.class_ok.next = false;
        for c in 0..self._classes {
            if self.hcls.val().index() == c {
                self.class_ok.next = true;
            }
        }
        // The routing sub-block's answer (`tree`, `spam`, `mesh`): each
        // input vector has one entry where the router has that block, none
        // where it does not, and then the defaults stand.
        for d in 0..4 {
            self.below[d].next = false;
            self.t_ch_v[d].next = false;
        }
        self.rt_v.next = false;
        self.rt_d.next = 0.into();
        self.rt_up.next = false;
        self.own_hit.next = false;
        self.node_ok.next = false;
        for k in 0..self._n_tree {
            self.node_ok.next = self.tr_node_ok[k].val();
            for d in 0..4 {
                self.below[d].next = self.tr_below[k].val().get_bit(d);
                self.t_ch_v[d].next = self.tr_child[k].val().get_bit(d);
            }
            self.rt_v.next = self.tr_v[k].val();
            self.rt_d.next = self.tr_d[k].val();
            self.rt_up.next = self.tr_up[k].val();
            self.own_hit.next = self.tr_own_hit[k].val();
        }
        self.sp_ev.next = false;
        self.sp_ed.next = 0.into();
        for k in 0..self._n_spam {
            self.sp_ev.next = self.sp_v_i[k].val();
            self.sp_ed.next = self.sp_d_i[k].val();
        }
        self.m_here.next = false;
        self.m_d.next = 0.into();
        for k in 0..self._n_mesh {
            self.m_here.next = self.m_here_i[k].val();
            self.m_d.next = self.m_d_i[k].val();
            self.own_hit.next = self.m_here_i[k].val();
            self.node_ok.next = self.m_ok_i[k].val();
        }
        self.arr_cls_ok.next =
            !self.arr_is_link.val() | (self.arr_v.val() & (self.arr_cls.val() == self.hcls.val()));

        // The port of a header for another node: the tree's, or with SPAM
        // and S=0 the SPAM table's (a missing entry: the worm would have to
        // go up again, DownPhaseUp).
        if self.mesh.val() {
            // The snake neighbour always fits, so R always gives a port.
            self.f_v.next = true;
            self.f_d.next = self.m_d.val();
            self.f_err.next = self.e_node_range.val();
            self.f_up.next = false;
        } else if self.spam.val() & !self.hs.val() {
            self.f_v.next = self.sp_ev.val();
            self.f_d.next = self.sp_ed.val();
            self.f_err.next = self.e_down_phase_up.val();
            self.f_up.next = false;
        } else {
            self.f_v.next = self.rt_v.val();
            self.f_d.next = self.rt_d.val();
            self.f_err.next = self.e_node_range.val();
            self.f_up.next = self.hs.val() & self.rt_up.val();
        }
        self.f_lok.next = false;
        for d in 0..4 {
            if self.f_d.val().index() == d {
                self.f_lok.next = self.lok[d].val();
            }
        }
        // routing::diversion: at its own node an O bit names a faulty port;
        // elsewhere the tree's port is faulty, unless it is the parent port
        // of an S=1 header (left to the DownPhaseUp check).
        self.dv_on.next = self.dv_en.val() & self.dv_out.val().any();
        self.dv_port.next = false;
        for d in 0..4 {
            if self.rt_d.val().index() == d {
                self.dv_port.next = self.dv_out.val().get_bit(d);
            }
        }
        if self.own_hit.val() {
            self.dv_hit.next = self.dv_on.val() & (self.ho.val() & self.dv_out.val()).any();
        } else {
            self.dv_hit.next = self.dv_on.val()
                & self.rt_v.val()
                & self.dv_port.val()
                & !(self.hs.val() & self.rt_up.val());
        }
        // O bits: links of the header's class; with SPAM tree child ports only.
        self.o_bad.next = (self.ho.val().get_bit(0)
            & !(self.lok[0].val() & (self.t_ch_v[0].val() | !self.spam.val())))
            | (self.ho.val().get_bit(1)
                & !(self.lok[1].val() & (self.t_ch_v[1].val() | !self.spam.val())))
            | (self.ho.val().get_bit(2)
                & !(self.lok[2].val() & (self.t_ch_v[2].val() | !self.spam.val())))
            | (self.ho.val().get_bit(3)
                & !(self.lok[3].val() & (self.t_ch_v[3].val() | !self.spam.val())));
        self.o_bad_h.next =
            (self.ho.val().get_bit(0) & !self.dv_out.val().get_bit(0) & !self.lok[0].val())
                | (self.ho.val().get_bit(1) & !self.dv_out.val().get_bit(1) & !self.lok[1].val())
                | (self.ho.val().get_bit(2) & !self.dv_out.val().get_bit(2) & !self.lok[2].val())
                | (self.ho.val().get_bit(3) & !self.dv_out.val().get_bit(3) & !self.lok[3].val());
        // The first-HEAD outcome (router::decide, then routing::first_head,
        // checks in its order), but for the setup delay and the
        // consumption channel, which the head decides from registers.
        self.p_err.next = false;
        self.p_code.next = 0.into();
        self.p_links.next = 0.into();
        self.p_cons.next = false;
        self.p_div.next = false;
        self.p_strip.next = false;
        if !self.class_ok.val() | !self.arr_cls_ok.val() {
            self.p_err.next = true;
            self.p_code.next = self.e_bad_class.val();
        } else if !self.node_ok.val() {
            self.p_err.next = true;
            self.p_code.next = self.e_node_range.val();
        } else if self.dv_hit.val() {
            // routing::diversion: HEAD kept; the class's channel, plus the
            // healthy O ports at a split here.
            if self.own_hit.val() {
                if self.o_bad_h.val() {
                    self.p_err.next = true;
                    self.p_code.next = self.e_bad_link.val();
                } else {
                    self.p_links.next = self.ho.val() & !self.dv_out.val();
                    self.p_cons.next = true;
                    self.p_div.next = true;
                }
            } else {
                self.p_cons.next = true;
                self.p_div.next = true;
            }
        } else if self.own_hit.val() {
            if !self.hc.val() & (self.ho.val() == 0) {
                self.p_err.next = true;
                self.p_code.next = self.e_no_output.val();
            } else if self.o_bad.val() {
                self.p_err.next = true;
                self.p_code.next = self.e_bad_link.val();
            } else {
                self.p_strip.next = true;
                self.p_cons.next = self.hc.val();
                self.p_links.next = self.ho.val();
            }
        } else if !self.f_v.val() {
            self.p_err.next = true;
            self.p_code.next = self.f_err.val();
        } else if self.f_up.val() {
            self.p_err.next = true;
            self.p_code.next = self.e_down_phase_up.val();
        } else if self.arr_is_link.val() & (self.f_d.val() == self.arr_d.val()) {
            self.p_err.next = true;
            self.p_code.next = self.e_back_to_arrival.val();
        } else if !self.f_lok.val() {
            self.p_err.next = true;
            self.p_code.next = self.e_bad_link.val();
        } else {
            self.p_links.next = self.one4.val() << self.f_d.val();
        }
        // The worm register (`worm`): a first flit's fields for the flits
        // after it; a TAIL makes the next flit to enter a first one.
        self.w_first.next = self.worm.val().get_bit(0);
        self.w_links.next = self.worm.val().get_bits::<O_W>(1);
        self.w_multi.next = self.worm.val().get_bit(5);
        self.w_lmulti.next = self.worm.val().get_bit(6);
        self.w_cls.next = self.worm.val().get_bits::<CLASS_W>(7);
        // A worm that a link input keeps has that link's class (a first
        // HEAD of another class is `BadClass`, and its input discards the
        // worm without reading this): the constant instead of the stored
        // bits, which synthesis then drops (area).
        if self.arr_is_link.val() {
            self.w_cls.next = self.arr_cls.val();
        }
        self.w_tail.next = self.wflit.val().get_bits::<KIND_W>(0) == self.k_tail.val();
        // Its reservation's size: a consumption channel is reserved when
        // the class has a pool (the choice is 0 only for an empty pool).
        self.w_pool.next = 0.into();
        for c in 0..self._classes {
            if self.lcls.val().index() == c {
                self.w_pool.next = self.pool[c].val();
            }
        }
        self.p_pool.next = 0.into();
        if self.p_cons.val() {
            self.p_pool.next = self.w_pool.val();
        }
        self.n_cons.next = self.p_pool.val().any();
        for j in 0..4 {
            self.p_pb[j].next = self.p_pool.val().get_bit(j);
        }
        self.p_rq.next =
            (self.wflit.val().get_bits::<KIND_W>(0) == self.k_head.val()) & !self.p_err.val();
        self.n_lmulti.next = (self.p_links.val().get_bit(0)
            & (self.p_links.val().get_bit(1)
                | self.p_links.val().get_bit(2)
                | self.p_links.val().get_bit(3)))
            | (self.p_links.val().get_bit(1)
                & (self.p_links.val().get_bit(2) | self.p_links.val().get_bit(3)))
            | (self.p_links.val().get_bit(2) & self.p_links.val().get_bit(3));
        self.n_multi.next = self.n_lmulti.val() | (self.n_cons.val() & self.p_links.val().any());
        self.p_rl.next = self.p_links.val() & self.reach.val();
        self.worm_n.next = self.worm.val().replace_bit(0, self.w_tail.val());
        if self.w_first.val() {
            self.worm_n.next = (bit_cast::<WORM_W, O_W>(self.p_rl.val()) << 1)
                | (bit_cast::<WORM_W, CLASS_W>(self.hcls.val()) << 7);
            self.worm_n.next = self
                .worm_n
                .val()
                .replace_bit(0, self.w_tail.val())
                .replace_bit(5, self.n_multi.val())
                .replace_bit(6, self.n_lmulti.val());
        }
        // The trailing-HEAD outcome (routing::trailing_head, checks in its
        // order) against the worm's first HEAD: its class (`in_class`
        // then), its links (the link bits of `in_reserved` then) and their
        // count.
        self.t_mres.next = false;
        for d in 0..4 {
            if self.m_d.val().index() == d {
                self.t_mres.next = self.w_links.val().get_bit(d) & !self.m_here.val();
            }
        }
        self.t_err.next = true;
        self.t_code.next = 0.into();
        self.t_links.next = 0.into();
        self.t_split.next = false;
        if (self.hcls.val() != self.w_cls.val()) | !self.class_ok.val() {
            self.t_code.next = self.e_bad_class.val();
        } else if !self.node_ok.val() {
            self.t_code.next = self.e_node_range.val();
        } else if self.own_hit.val() & self.hs.val() & !self.mesh.val() {
            self.t_code.next = self.e_for_me_after_split.val();
        } else if self.mesh.val() & (self.w_links.val() == 0) {
            // mesh::trailing_head: no reserved link.
            self.t_code.next = self.e_trailing_at_consumer.val();
        } else if self.w_multi.val() {
            // Split point, S set.
            self.t_split.next = true;
            self.t_err.next = false;
            if self.mesh.val() {
                // mesh::trailing_head: the one reserved link (a path worm,
                // {C=1, one O bit}), else the reserved link of the routing
                // function.
                if !self.w_lmulti.val() {
                    self.t_links.next = self.w_links.val();
                } else if self.t_mres.val() {
                    self.t_links.next = self.one4.val() << self.m_d.val();
                } else {
                    self.t_err.next = true;
                    self.t_code.next = self.e_below_no_branch.val();
                }
            } else if self.w_links.val().get_bit(0) & self.below[0].val() {
                self.t_links.next = self.one4.val();
            } else if self.w_links.val().get_bit(1) & self.below[1].val() {
                self.t_links.next = self.one4.val() << 1;
            } else if self.w_links.val().get_bit(2) & self.below[2].val() {
                self.t_links.next = self.one4.val() << 2;
            } else if self.w_links.val().get_bit(3) & self.below[3].val() {
                self.t_links.next = self.one4.val() << 3;
            } else {
                self.t_err.next = true;
                self.t_code.next = self.e_below_no_branch.val();
            }
        } else if self.w_links.val() == 0 {
            self.t_code.next = self.e_trailing_at_consumer.val();
        } else {
            self.t_err.next = false;
        }
        // Packed in the SIDE_W layout: the first-HEAD outcome for a first
        // flit, else the trailing one. The code is 0 without an error and
        // the links are 0 with one.
        if self.w_first.val() {
            self.side_v.next = (bit_cast::<SIDE_W, ERR_CODE_W>(self.p_code.val()) << 1)
                | (bit_cast::<SIDE_W, O_W>(self.p_links.val()) << 1);
            self.side_v.next = self
                .side_v
                .val()
                .replace_bit(0, self.p_err.val())
                .replace_bit(5, self.p_pb[0].val());
        } else {
            self.side_v.next = (bit_cast::<SIDE_W, ERR_CODE_W>(self.t_code.val()) << 1)
                | (bit_cast::<SIDE_W, O_W>(self.t_links.val()) << 1);
            self.side_v.next = self
                .side_v
                .val()
                .replace_bit(0, self.t_err.val())
                .replace_bit(5, self.t_split.val());
        }
        self.side.next = self
            .side_v
            .val()
            .replace_bit(6, self.p_div.val())
            .replace_bit(7, self.p_strip.val())
            .replace_bit(8, self.below[0].val())
            .replace_bit(9, self.below[1].val())
            .replace_bit(10, self.below[2].val())
            .replace_bit(11, self.below[3].val())
            .replace_bit(12, self.p_pb[1].val())
            .replace_bit(13, self.p_pb[2].val())
            .replace_bit(14, self.p_pb[3].val())
            .replace_bit(15, self.p_rq.val());

        // The head: its pre-decode, kind, S bit and class.
        self.q_err.next = self.hside.val().get_bit(0);
        self.q_code.next = self.hside.val().get_bits::<ERR_CODE_W>(1);
        self.q_links.next = self.hside.val().get_bits::<O_W>(1);
        self.q_cons.next = self.hside.val().get_bit(5);
        self.q_div.next = self.hside.val().get_bit(6);
        self.q_strip.next = self.hside.val().get_bit(7);
        for d in 0..4 {
            self.q_below[d].next = self.hside.val().get_bit(8 + d);
        }
        self.kind.next = self.head.val().get_bits::<KIND_W>(0);
        self.h_cls.next = self
            .head
            .val()
            .get_bits::<CLASS_W>(self.class_shift.val().index());
        self.hclass.next = self.h_cls.val();
        self.q_ph.next = self.hside.val().get_bits::<3>(12);
        self.q_p0.next = self.hside.val().get_bit(5);
        self.q_pool.next = bit_cast::<CONS_W, 3>(self.q_ph.val()) << 1;
        self.q_pool.next = self.q_pool.val().replace_bit(0, self.q_p0.val());
        // Consumption: the lowest free channel of the pool, else the lowest
        // of the pool (a priority chain over channels 0..3 = outputs 4..7).
        self.c_free.next = self.q_pool.val() & !self.owned.val();
        if self.c_free.val().any() {
            self.c_pick.next = self.c_free.val();
        } else {
            self.c_pick.next = self.q_pool.val();
        }
        if self.c_pick.val().get_bit(0) {
            self.t_cons.next = self.one.val() << 4;
        } else if self.c_pick.val().get_bit(1) {
            self.t_cons.next = self.one.val() << 5;
        } else if self.c_pick.val().get_bit(2) {
            self.t_cons.next = self.one.val() << 6;
        } else if self.c_pick.val().get_bit(3) {
            self.t_cons.next = self.one.val() << 7;
        } else {
            self.t_cons.next = 0.into();
        }
        // Setup delay: emitted only with a delay (`_n_setup` = 1); the
        // comparison with `setup_cycles` is the router's register `in_sok`.
        self.s_wait.next = false;
        for k in 0..self._n_setup {
            self.s_wait.next = !self.sok[k].val();
        }
        self.hd_ok.next = self.nonempty.val() & self.hside.val().get_bit(15);
        // More than one output reserved: a split point.
        self.r_seen[0].next = false;
        self.r_two[0].next = false;
        for k in 0..7 {
            self.r_seen[k + 1].next = self.r_seen[k].val() | self.reserved.val().get_bit(k);
        }
        for k in 0..8 {
            self.r_two[k + 1].next =
                self.r_two[k].val() | (self.r_seen[k].val() & self.reserved.val().get_bit(k));
        }
        self.multi.next = self.r_two[8].val();
        // The request is always the head's (read only with `rq`).
        self.req.next = self.t_cons.val() | bit_cast::<MASK_W, O_W>(self.q_links.val());
        // What the router core reads only under a condition is decided
        // without it (area: the conditions were a second
        // copy of the state machine below in front of each of these
        // outputs; docs/hardware.md 3n). The core reads `strip` and
        // `divert` only with a grant, which needs `rq` (an idle input, a
        // well-formed first HEAD at the head, setup done); `code` and
        // `drop_state` only with `err` or `drop`; `send_outs`, `send_flit`
        // and `release_tail` only when the flit goes, which needs `send`.
        // Where they are read each equals what the state machine gives:
        // the flit that goes is a TAIL exactly when it releases, an error
        // or a drop goes back to `Idle` exactly at a TAIL (a TAIL at an
        // idle input, or one dropped by an input that holds nothing), an
        // error's code is the stored one at a HEAD and otherwise fixed by
        // the kind, and only an `Active` input's HEAD with a split outcome
        // sends elsewhere than to its reservation.
        self.strip.next = self.q_strip.val();
        self.divert.next = self.q_div.val();
        self.release_tail.next = self.kind.val() == self.k_tail.val();
        self.drop_state.next = self.st_discard.val();
        if self.kind.val() == self.k_tail.val() {
            self.drop_state.next = self.st_idle.val();
        }
        if self.kind.val() == self.k_head.val() {
            self.code.next = self.q_code.val();
        } else if (self.kind.val() == self.k_body.val()) | (self.kind.val() == self.k_tail.val()) {
            self.code.next = self.e_body_at_idle.val();
        } else {
            self.code.next = self.e_reserved_kind.val();
        }
        self.send_flit.next = self.head.val();
        self.send_outs.next = self.reserved.val();
        if (self.state.val() == self.st_active.val())
            & (self.kind.val() == self.k_head.val())
            & self.q_cons.val()
        {
            // routing::trailing_head's split, decided when the flit was
            // written (`worm`): its one link, S set. In a trailing flit's
            // outcome the bit `q_cons` reads is "split" (`SIDE_W`).
            self.send_flit.next = self.head.val() | self.s_mask.val();
            self.send_outs.next = bit_cast::<MASK_W, O_W>(self.q_links.val());
        }
        // The state machine (router::decide): whether the head is sent,
        // dropped or malformed, or waits out the setup delay.
        self.send.next = false;
        self.drop.next = false;
        self.err.next = false;
        self.setup_wait.next = false;

        if self.nonempty.val() {
            if self.state.val() == self.st_idle.val() {
                if self.kind.val() == self.k_head.val() {
                    // The pre-decode's outcome, after the setup delay; the
                    // request is `req`, and the arbiter's `rq` is 1
                    // exactly when this HEAD may request.
                    if self.s_wait.val() {
                        self.setup_wait.next = true;
                    } else if self.q_err.val() {
                        self.err.next = true;
                    }
                } else {
                    // BODY or TAIL (BodyAtIdle), or a reserved kind.
                    self.err.next = true;
                }
            } else if self.state.val() == self.st_active.val() {
                if self.kind.val() == self.k_head.val() {
                    // routing::trailing_head, decided when the flit was
                    // written: an error, else sent (above: to its split
                    // link, or to everything reserved).
                    if self.q_err.val() {
                        self.err.next = true;
                    } else {
                        self.send.next = true;
                    }
                } else if (self.kind.val() == self.k_body.val())
                    | (self.kind.val() == self.k_tail.val())
                {
                    self.send.next = true;
                } else {
                    self.err.next = true;
                }
            } else if self.dv_on.val() & (self.state.val() == self.st_diverted.val()) {
                // routing::diverted_head: a HEAD below a reserved link
                // follows it (S set at a split), any other HEAD goes to the
                // reserved channel; BODY/TAIL to every reserved output.
                // Gated by the constant so that a router without faulty
                // ports (which never enters `Diverted`) synthesises without
                // this branch.
                if self.kind.val() == self.k_head.val() {
                    self.send.next = true;
                    if self.multi.val() {
                        self.send_flit.next = self.head.val() | self.s_mask.val();
                    }
                    if self.reserved.val().get_bit(0) & self.q_below[0].val() {
                        self.send_outs.next = self.one.val();
                    } else if self.reserved.val().get_bit(1) & self.q_below[1].val() {
                        self.send_outs.next = self.one.val() << 1;
                    } else if self.reserved.val().get_bit(2) & self.q_below[2].val() {
                        self.send_outs.next = self.one.val() << 2;
                    } else if self.reserved.val().get_bit(3) & self.q_below[3].val() {
                        self.send_outs.next = self.one.val() << 3;
                    } else {
                        self.send_flit.next = self.head.val();
                        self.send_outs.next = self.reserved.val() & !self.link_mask.val();
                    }
                } else if (self.kind.val() == self.k_body.val())
                    | (self.kind.val() == self.k_tail.val())
                {
                    self.send.next = true;
                } else {
                    self.err.next = true;
                }
            } else if self.kind.val() == self.k_tail.val() {
                // Discard: the TAIL releases what the worm holds, or is
                // dropped at an input that holds nothing.
                if self.reserved.val() == 0 {
                    self.drop.next = true;
                } else {
                    self.send.next = true;
                }
            } else {
                self.drop.next = true;
            }
        }
    }
}
