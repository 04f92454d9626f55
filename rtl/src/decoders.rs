//! The header decoders of all inputs of one router, and the fan-out of the
//! router's per-node table ports to them. Each input has
//! the decode skeleton (`crate::decode::Decode`) and the routing sub-block
//! of the router's routing function (`crate::decode::{tree, spam, mesh}`);
//! this block wires the two together, the skeleton
//! reading the block's answer on the flit being written.
//!
//! Why a block of its own: each decoder needs the node's tables, which
//! arrive on router ports. Passing `t_own$c` to decoder `i` is a path with
//! two array levels (`dec[i].own[c]`), which rust-hdl's `#[hdl_gen]`
//! accepts but emits as wrong Verilog (docs/architecture.md §2, rust-hdl pitfalls). Here the wiring is
//! written out by hand, once as Rust copies for simulation ([`Logic::update`])
//! and once as Verilog assignments ([`Logic::hdl`]), both from
//! `Decoders::wires`'s order; the router core sees one array level
//! (`dec.req[i]`).

use crate::arbiter::vdef;
use crate::decode::mesh::{GridRoute, HamRoute};
use crate::decode::spam::SpamRoute;
use crate::decode::tree::TreeRoute;
use crate::decode::{Decode, CONS_W, SIDE_W, WORM_W};
use crate::hw::*;
use crate::tables::TableShape;
use rust_hdl::prelude::*;
use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};

#[derive(LogicBlock)]
pub struct Decoders<const W: usize> {
    /// Per input, from the router core: FIFO head, FIFO non-empty, the
    /// input's `state`, `reserved`, worm register, its setup counter's state
    /// (`Decode::sok`).
    pub head: Vec<Signal<In, Bits<W>>>,
    /// Per input: the flit entering the FIFO's head slot, its pre-decode
    /// (to the FIFO) and the head's pre-decode (from the FIFO), see
    /// `Decode::side`.
    pub wflit: Vec<Signal<In, Bits<W>>>,
    /// Per input with a tree block (none in a mesh router): `wflit`'s
    /// high-zero bit (`InputFifo::enter_hz`).
    pub whz: Vec<Signal<In, Bit>>,
    pub side: Vec<Signal<Out, Bits<SIDE_W>>>,
    pub hside: Vec<Signal<In, Bits<SIDE_W>>>,
    pub nonempty: Vec<Signal<In, Bit>>,
    pub state: Vec<Signal<In, Bits<STATE_W>>>,
    pub reserved: Vec<Signal<In, Bits<MASK_W>>>,
    /// Per input: the worm register and its next value (`Decode::worm`).
    pub worm: Vec<Signal<In, Bits<WORM_W>>>,
    /// Per input: `Decode::reach`.
    pub reach: Vec<Signal<In, Bits<O_W>>>,
    pub worm_n: Vec<Signal<Out, Bits<WORM_W>>>,
    /// Per input with a setup delay, empty without: `Decode::sok`.
    pub sok: Vec<Signal<In, Bit>>,
    /// Per input: `Decode::hd_ok`.
    pub hd_ok: Vec<Signal<Out, Bit>>,
    /// Consumption channels owned at the start of the cycle (all inputs).
    pub owned: Signal<In, Bits<CONS_W>>,
    /// Per input, to the router core: the decoder's action (see `Decode`).
    pub setup_wait: Vec<Signal<Out, Bit>>,
    pub req: Vec<Signal<Out, Bits<MASK_W>>>,
    pub strip: Vec<Signal<Out, Bit>>,
    pub divert: Vec<Signal<Out, Bit>>,
    pub hclass: Vec<Signal<Out, Bits<CLASS_W>>>,
    pub send: Vec<Signal<Out, Bit>>,
    pub send_flit: Vec<Signal<Out, Bits<W>>>,
    pub send_outs: Vec<Signal<Out, Bits<MASK_W>>>,
    pub release_tail: Vec<Signal<Out, Bit>>,
    pub drop: Vec<Signal<Out, Bit>>,
    pub drop_state: Vec<Signal<Out, Bits<STATE_W>>>,
    pub err: Vec<Signal<Out, Bit>>,
    pub code: Vec<Signal<Out, Bits<ERR_CODE_W>>>,
    /// The node's tables (`crate::tables`, same names and indices).
    pub own: Vec<Signal<In, Bits<W>>>,
    pub par_v: Vec<Signal<In, Bit>>,
    pub par_d: Vec<Signal<In, Bits<2>>>,
    pub ch_v: Vec<Signal<In, Bit>>,
    pub ch_lo: Vec<Signal<In, Bits<W>>>,
    pub ch_hi: Vec<Signal<In, Bits<W>>>,
    pub link_v: Vec<Signal<In, Bit>>,
    pub link_cls: Vec<Signal<In, Bits<CLASS_W>>>,
    pub arr_v: Vec<Signal<In, Bit>>,
    pub arr_cls: Vec<Signal<In, Bits<CLASS_W>>>,
    pub dv_out: Vec<Signal<In, Bits<O_W>>>,
    pub pool: Vec<Signal<In, Bits<CONS_W>>>,
    pub sp_v: Vec<Signal<In, Bit>>,
    pub sp_d: Vec<Signal<In, Bits<2>>>,
    pub m_own: Vec<Signal<In, Bits<W>>>,
    pub m_nbr_v: Vec<Signal<In, Bit>>,
    pub m_nbr: Vec<Signal<In, Bits<W>>>,
    /// Decoder skeleton of input i.
    pub d: Vec<Decode<W>>,
    /// The routing sub-block of input i (`crate::decode`): one vector per
    /// routing function, with an entry per input where the router uses
    /// that function and none otherwise (a SPAM router has `tree` and
    /// `spam`).
    pub tree: Vec<TreeRoute<W>>,
    pub spam: Vec<SpamRoute<W>>,
    pub ham: Vec<HamRoute<W>>,
    pub grid: Vec<GridRoute<W>>,
    _sh: TableShape,
}

impl<const W: usize> Decoders<W> {
    pub fn new(cfg: &RouterConfig, p: &RouterParams) -> Self {
        let sh = TableShape::new(cfg, p);
        let (n, c, s) = (sh.inputs, sh.classes, sh.spam_n);
        let mesh = p.routing.is_mesh();
        let grid = matches!(p.routing, RoutingKind::Dor | RoutingKind::NegativeFirst);
        let n_setup = (p.setup_cycles > 0) as usize;
        // Network-wide mesh constants (address split, label count), read
        // only by the mesh blocks; the per-node ones arrive on table ports.
        let mc = || {
            cfg.mesh
                .as_ref()
                .expect("mesh routing without mesh constants")
        };
        if p.routing == RoutingKind::Spam {
            assert!(cfg.spam.is_some(), "SPAM routing without a SPAM table");
        }
        Decoders {
            head: vdef(n),
            wflit: vdef(n),
            whz: vdef(n * (!mesh) as usize),
            side: vdef(n),
            hside: vdef(n),
            nonempty: vdef(n),
            state: vdef(n),
            reserved: vdef(n),
            worm: vdef(n),
            reach: vdef(n),
            worm_n: vdef(n),
            sok: vdef(n * n_setup),
            hd_ok: vdef(n),
            owned: Default::default(),
            setup_wait: vdef(n),
            req: vdef(n),
            strip: vdef(n),
            divert: vdef(n),
            hclass: vdef(n),
            send: vdef(n),
            send_flit: vdef(n),
            send_outs: vdef(n),
            release_tail: vdef(n),
            drop: vdef(n),
            drop_state: vdef(n),
            err: vdef(n),
            code: vdef(n),
            own: vdef(sh.tree_classes),
            par_v: vdef(sh.tree_classes),
            par_d: vdef(sh.tree_classes),
            ch_v: vdef(4 * sh.tree_classes),
            ch_lo: vdef(4 * sh.tree_classes),
            ch_hi: vdef(4 * sh.tree_classes),
            link_v: vdef(4),
            link_cls: vdef(4),
            arr_v: vdef(n),
            arr_cls: vdef(n),
            dv_out: vdef(1),
            pool: vdef(n * c),
            sp_v: vdef(n * s),
            sp_d: vdef(n * s),
            m_own: vdef(sh.mesh),
            m_nbr_v: vdef(sh.nbr),
            m_nbr: vdef(sh.nbr),
            d: (0..n).map(|i| Decode::new(cfg, p, i)).collect(),
            tree: (0..n * (!mesh) as usize)
                .map(|i| TreeRoute::new(c, cfg.node_count, i))
                .collect(),
            spam: (0..n * (p.routing == RoutingKind::Spam) as usize)
                .map(|_| SpamRoute::new(s))
                .collect(),
            ham: (0..n * (p.routing == RoutingKind::Hamiltonian) as usize)
                .map(|_| HamRoute::new(mc()))
                .collect(),
            grid: (0..n * grid as usize)
                .map(|_| GridRoute::new(mc(), p.routing == RoutingKind::NegativeFirst))
                .collect(),
            _sh: sh,
        }
    }

    /// Every wire as (destination, source) Verilog names, in the order
    /// `update` copies them.
    fn wires(&self) -> Vec<(String, String)> {
        let TableShape {
            inputs: n,
            classes: c,
            spam_n: s,
            ..
        } = self._sh;
        let mut w = Vec::new();
        for i in 0..n {
            for p in [
                "head", "wflit", "hside", "worm", "reach", "nonempty", "state", "reserved",
            ] {
                w.push((format!("d${i}${p}"), format!("{p}${i}")));
            }
            w.push((format!("d${i}$owned"), "owned".to_string()));
            for p in [
                "side",
                "worm_n",
                "setup_wait",
                "req",
                "strip",
                "divert",
                "hclass",
                "send",
                "send_flit",
                "send_outs",
                "release_tail",
                "drop",
                "drop_state",
                "err",
                "code",
            ] {
                w.push((format!("{p}${i}"), format!("d${i}${p}")));
            }
            if !self.sok.is_empty() {
                w.push((format!("d${i}$sok$0"), format!("sok${i}")));
            }
            w.push((format!("hd_ok${i}"), format!("d${i}$hd_ok")));
            // The routing sub-blocks: `Node` (and class) in, the answer
            // out, their node tables.
            if !self.tree.is_empty() {
                w.push((format!("tree${i}$wflit"), format!("wflit${i}")));
                w.push((format!("tree${i}$hz"), format!("whz${i}")));
                w.push((format!("tree${i}$arr_cls"), format!("arr_cls${i}")));
                w.push((format!("tree${i}$dv_out"), "dv_out$0".to_string()));
                for (t, len) in [
                    ("own", c),
                    ("par_v", c),
                    ("par_d", c),
                    ("ch_v", 4 * c),
                    ("ch_lo", 4 * c),
                    ("ch_hi", 4 * c),
                ] {
                    for j in 0..len {
                        w.push((format!("tree${i}${t}${j}"), format!("{t}${j}")));
                    }
                }
                for (dst, src) in [
                    ("tr_below", "below"),
                    ("tr_child", "child"),
                    ("tr_v", "rt_v"),
                    ("tr_d", "rt_d"),
                    ("tr_up", "up"),
                    ("tr_own_hit", "own_hit"),
                    ("tr_node_ok", "node_ok"),
                ] {
                    w.push((format!("d${i}${dst}$0"), format!("tree${i}${src}")));
                }
            }
            if !self.spam.is_empty() {
                w.push((format!("spam${i}$wflit"), format!("wflit${i}")));
                for t in ["sp_v", "sp_d"] {
                    for j in 0..s {
                        w.push((format!("spam${i}${t}${j}"), format!("{t}${}", i * s + j)));
                    }
                }
                w.push((format!("d${i}$sp_v_i$0"), format!("spam${i}$ev")));
                w.push((format!("d${i}$sp_d_i$0"), format!("spam${i}$ed")));
            }
            for (blk, present) in [
                ("ham", !self.ham.is_empty()),
                ("grid", !self.grid.is_empty()),
            ] {
                if !present {
                    continue;
                }
                w.push((format!("{blk}${i}$wflit"), format!("wflit${i}")));
                w.push((format!("{blk}${i}$m_own"), "m_own$0".to_string()));
                if blk == "ham" {
                    for t in ["m_nbr_v", "m_nbr"] {
                        for j in 0..self._sh.nbr {
                            w.push((format!("ham${i}${t}${j}"), format!("{t}${j}")));
                        }
                    }
                }
                for (dst, src) in [("m_ok_i", "ok"), ("m_here_i", "here"), ("m_d_i", "d")] {
                    w.push((format!("d${i}${dst}$0"), format!("{blk}${i}${src}")));
                }
            }
            for (t, len) in [("link_v", 4), ("link_cls", 4)] {
                for j in 0..len {
                    w.push((format!("d${i}${t}${j}"), format!("{t}${j}")));
                }
            }
            w.push((format!("d${i}$dv_out"), "dv_out$0".to_string()));
            // Input tables: this input's entries.
            for t in ["arr_v", "arr_cls"] {
                w.push((format!("d${i}${t}"), format!("{t}${i}")));
            }
            for j in 0..c {
                w.push((format!("d${i}$pool${j}"), format!("pool${}", i * c + j)));
            }
        }
        w
    }
}

impl<const W: usize> Logic for Decoders<W> {
    fn update(&mut self) {
        let TableShape {
            inputs: n,
            classes: c,
            spam_n: s,
            ..
        } = self._sh;
        for i in 0..n {
            let d = &mut self.d[i];
            d.head.next = self.head[i].val();
            d.wflit.next = self.wflit[i].val();
            d.hside.next = self.hside[i].val();
            self.side[i].next = d.side.val();
            d.nonempty.next = self.nonempty[i].val();
            d.state.next = self.state[i].val();
            d.reserved.next = self.reserved[i].val();
            d.worm.next = self.worm[i].val();
            d.reach.next = self.reach[i].val();
            self.worm_n[i].next = d.worm_n.val();
            if !self.sok.is_empty() {
                d.sok[0].next = self.sok[i].val();
            }
            self.hd_ok[i].next = d.hd_ok.val();
            d.owned.next = self.owned.val();
            self.setup_wait[i].next = d.setup_wait.val();
            self.req[i].next = d.req.val();
            self.strip[i].next = d.strip.val();
            self.divert[i].next = d.divert.val();
            self.hclass[i].next = d.hclass.val();
            self.send[i].next = d.send.val();
            self.send_flit[i].next = d.send_flit.val();
            self.send_outs[i].next = d.send_outs.val();
            self.release_tail[i].next = d.release_tail.val();
            self.drop[i].next = d.drop.val();
            self.drop_state[i].next = d.drop_state.val();
            self.err[i].next = d.err.val();
            self.code[i].next = d.code.val();
            for j in 0..4 {
                d.link_v[j].next = self.link_v[j].val();
                d.link_cls[j].next = self.link_cls[j].val();
            }
            d.dv_out.next = self.dv_out[0].val();
            d.arr_v.next = self.arr_v[i].val();
            d.arr_cls.next = self.arr_cls[i].val();
            for j in 0..c {
                d.pool[j].next = self.pool[i * c + j].val();
            }
            // The routing sub-blocks, as `wires` lists them.
            if let Some(t) = self.tree.get_mut(i) {
                t.wflit.next = self.wflit[i].val();
                t.hz.next = self.whz[i].val();
                t.arr_cls.next = self.arr_cls[i].val();
                t.dv_out.next = self.dv_out[0].val();
                for j in 0..c {
                    t.own[j].next = self.own[j].val();
                    t.par_v[j].next = self.par_v[j].val();
                    t.par_d[j].next = self.par_d[j].val();
                }
                for j in 0..4 * c {
                    t.ch_v[j].next = self.ch_v[j].val();
                    t.ch_lo[j].next = self.ch_lo[j].val();
                    t.ch_hi[j].next = self.ch_hi[j].val();
                }
                d.tr_below[0].next = t.below.val();
                d.tr_child[0].next = t.child.val();
                d.tr_v[0].next = t.rt_v.val();
                d.tr_d[0].next = t.rt_d.val();
                d.tr_up[0].next = t.up.val();
                d.tr_own_hit[0].next = t.own_hit.val();
                d.tr_node_ok[0].next = t.node_ok.val();
            }
            if let Some(b) = self.spam.get_mut(i) {
                b.wflit.next = self.wflit[i].val();
                for j in 0..s {
                    b.sp_v[j].next = self.sp_v[i * s + j].val();
                    b.sp_d[j].next = self.sp_d[i * s + j].val();
                }
                d.sp_v_i[0].next = b.ev.val();
                d.sp_d_i[0].next = b.ed.val();
            }
            if let Some(b) = self.ham.get_mut(i) {
                b.wflit.next = self.wflit[i].val();
                b.m_own.next = self.m_own[0].val();
                for j in 0..self._sh.nbr {
                    b.m_nbr_v[j].next = self.m_nbr_v[j].val();
                    b.m_nbr[j].next = self.m_nbr[j].val();
                }
                d.m_ok_i[0].next = b.ok.val();
                d.m_here_i[0].next = b.here.val();
                d.m_d_i[0].next = b.d.val();
            }
            if let Some(b) = self.grid.get_mut(i) {
                b.wflit.next = self.wflit[i].val();
                b.m_own.next = self.m_own[0].val();
                d.m_ok_i[0].next = b.ok.val();
                d.m_here_i[0].next = b.here.val();
                d.m_d_i[0].next = b.d.val();
            }
        }
    }

    fn connect(&mut self) {
        for d in self.d.iter_mut() {
            d.head.connect();
            d.wflit.connect();
            d.hside.connect();
            d.nonempty.connect();
            d.state.connect();
            d.reserved.connect();
            d.worm.connect();
            d.reach.connect();
            for s in d.sok.iter_mut() {
                s.connect();
            }
            d.owned.connect();
            d.dv_out.connect();
            d.arr_v.connect();
            d.arr_cls.connect();
            for s in d.link_v.iter_mut() {
                s.connect();
            }
            for s in d.link_cls.iter_mut() {
                s.connect();
            }
            for s in d.pool.iter_mut() {
                s.connect();
            }
            for s in d
                .tr_v
                .iter_mut()
                .chain(d.tr_up.iter_mut())
                .chain(d.tr_own_hit.iter_mut())
                .chain(d.tr_node_ok.iter_mut())
                .chain(d.sp_v_i.iter_mut())
                .chain(d.m_ok_i.iter_mut())
                .chain(d.m_here_i.iter_mut())
            {
                s.connect();
            }
            for s in d.tr_below.iter_mut().chain(d.tr_child.iter_mut()) {
                s.connect();
            }
            for s in d
                .tr_d
                .iter_mut()
                .chain(d.sp_d_i.iter_mut())
                .chain(d.m_d_i.iter_mut())
            {
                s.connect();
            }
        }
        for t in self.tree.iter_mut() {
            t.wflit.connect();
            t.hz.connect();
            t.arr_cls.connect();
            t.dv_out.connect();
            for s in t
                .own
                .iter_mut()
                .chain(t.ch_lo.iter_mut())
                .chain(t.ch_hi.iter_mut())
            {
                s.connect();
            }
            for s in t.par_v.iter_mut().chain(t.ch_v.iter_mut()) {
                s.connect();
            }
            for s in t.par_d.iter_mut() {
                s.connect();
            }
        }
        for b in self.spam.iter_mut() {
            b.wflit.connect();
            for s in b.sp_v.iter_mut() {
                s.connect();
            }
            for s in b.sp_d.iter_mut() {
                s.connect();
            }
        }
        for b in self.ham.iter_mut() {
            b.wflit.connect();
            b.m_own.connect();
            for s in b.m_nbr_v.iter_mut() {
                s.connect();
            }
            for s in b.m_nbr.iter_mut() {
                s.connect();
            }
        }
        for b in self.grid.iter_mut() {
            b.wflit.connect();
            b.m_own.connect();
        }
        for s in self
            .setup_wait
            .iter_mut()
            .chain(self.hd_ok.iter_mut())
            .chain(self.strip.iter_mut())
            .chain(self.divert.iter_mut())
            .chain(self.send.iter_mut())
            .chain(self.release_tail.iter_mut())
            .chain(self.drop.iter_mut())
            .chain(self.err.iter_mut())
        {
            s.connect();
        }
        for s in self.req.iter_mut().chain(self.send_outs.iter_mut()) {
            s.connect();
        }
        for s in self.side.iter_mut() {
            s.connect();
        }
        for s in self.worm_n.iter_mut() {
            s.connect();
        }
        for s in self.hclass.iter_mut() {
            s.connect();
        }
        for s in self.send_flit.iter_mut() {
            s.connect();
        }
        for s in self.drop_state.iter_mut() {
            s.connect();
        }
        for s in self.code.iter_mut() {
            s.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        use ast::{VerilogExpression as E, VerilogStatement as S};
        Verilog::Combinatorial(
            self.wires()
                .into_iter()
                .map(|(dst, src)| S::Assignment(E::Signal(dst), E::Signal(src)))
                .collect(),
        )
    }
}
