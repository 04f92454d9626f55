//! The header decoders of all inputs of one router, and the fan-out of the
//! router's per-node table ports to them (issue 12 item 1).
//!
//! Why a block of its own: each decoder needs the node's tables, which
//! arrive on router ports. Passing `t_own$c` to decoder `i` is a path with
//! two array levels (`dec[i].own[c]`), which rust-hdl's `#[hdl_gen]`
//! accepts but emits as wrong Verilog (RUST_HDL.md). Here the wiring is
//! written out by hand, once as Rust copies for simulation ([`Logic::update`])
//! and once as Verilog assignments ([`Logic::hdl`]), both from
//! [`Decoders::wires`]'s order; the router core sees one array level
//! (`dec.req[i]`).

use crate::arbiter::vdef;
use crate::decode::{Decode, CONS_W, SIDE_W};
use crate::hw::*;
use crate::tables::TableShape;
use rust_hdl::prelude::*;
use wormcast_sim::config::{RouterConfig, RouterParams};

#[derive(LogicBlock)]
pub struct Decoders<const W: usize> {
    /// Per input, from the router core: FIFO head, FIFO non-empty, the
    /// input's `state`, `reserved`, `class` and setup counter.
    pub head: Vec<Signal<In, Bits<W>>>,
    /// Per input: the flit entering the FIFO, its pre-decode (to the FIFO)
    /// and the head's pre-decode (from the FIFO), see `Decode::side`.
    pub wflit: Vec<Signal<In, Bits<W>>>,
    pub side: Vec<Signal<Out, Bits<SIDE_W>>>,
    pub hside: Vec<Signal<In, Bits<SIDE_W>>>,
    pub nonempty: Vec<Signal<In, Bit>>,
    pub state: Vec<Signal<In, Bits<STATE_W>>>,
    pub reserved: Vec<Signal<In, Bits<MASK_W>>>,
    pub wclass: Vec<Signal<In, Bits<CLASS_W>>>,
    pub setup: Vec<Signal<In, Bits<SETUP_W>>>,
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
    /// Decoder of input i.
    pub d: Vec<Decode<W>>,
    _sh: TableShape,
}

impl<const W: usize> Decoders<W> {
    pub fn new(cfg: &RouterConfig, p: &RouterParams) -> Self {
        let sh = TableShape::new(cfg, p);
        let (n, c, s) = (sh.inputs, sh.classes, sh.spam_n);
        Decoders {
            head: vdef(n),
            wflit: vdef(n),
            side: vdef(n),
            hside: vdef(n),
            nonempty: vdef(n),
            state: vdef(n),
            reserved: vdef(n),
            wclass: vdef(n),
            setup: vdef(n),
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
            own: vdef(c),
            par_v: vdef(c),
            par_d: vdef(c),
            ch_v: vdef(4 * c),
            ch_lo: vdef(4 * c),
            ch_hi: vdef(4 * c),
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
                "head", "wflit", "hside", "nonempty", "state", "reserved", "wclass", "setup",
            ] {
                w.push((format!("d${i}${p}"), format!("{p}${i}")));
            }
            w.push((format!("d${i}$owned"), "owned".to_string()));
            for p in [
                "side",
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
            // Node tables: the same entry for every decoder.
            for (t, len) in [
                ("own", c),
                ("par_v", c),
                ("par_d", c),
                ("ch_v", 4 * c),
                ("ch_lo", 4 * c),
                ("ch_hi", 4 * c),
                ("link_v", 4),
                ("link_cls", 4),
                ("m_own", self._sh.mesh),
                ("m_nbr_v", self._sh.nbr),
                ("m_nbr", self._sh.nbr),
            ] {
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
            for t in ["sp_v", "sp_d"] {
                for j in 0..s {
                    w.push((format!("d${i}${t}${j}"), format!("{t}${}", i * s + j)));
                }
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
            d.wclass.next = self.wclass[i].val();
            d.setup.next = self.setup[i].val();
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
            for j in 0..c {
                d.own[j].next = self.own[j].val();
                d.par_v[j].next = self.par_v[j].val();
                d.par_d[j].next = self.par_d[j].val();
            }
            for j in 0..4 * c {
                d.ch_v[j].next = self.ch_v[j].val();
                d.ch_lo[j].next = self.ch_lo[j].val();
                d.ch_hi[j].next = self.ch_hi[j].val();
            }
            for j in 0..4 {
                d.link_v[j].next = self.link_v[j].val();
                d.link_cls[j].next = self.link_cls[j].val();
            }
            for j in 0..self._sh.nbr {
                d.m_nbr_v[j].next = self.m_nbr_v[j].val();
                d.m_nbr[j].next = self.m_nbr[j].val();
            }
            for j in 0..self._sh.mesh {
                d.m_own[j].next = self.m_own[j].val();
            }
            d.dv_out.next = self.dv_out[0].val();
            d.arr_v.next = self.arr_v[i].val();
            d.arr_cls.next = self.arr_cls[i].val();
            for j in 0..c {
                d.pool[j].next = self.pool[i * c + j].val();
            }
            for j in 0..s {
                d.sp_v[j].next = self.sp_v[i * s + j].val();
                d.sp_d[j].next = self.sp_d[i * s + j].val();
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
            d.wclass.connect();
            d.setup.connect();
            d.owned.connect();
            d.dv_out.connect();
            for s in d.m_own.iter_mut() {
                s.connect();
            }
            d.arr_v.connect();
            d.arr_cls.connect();
            for s in d.own.iter_mut() {
                s.connect();
            }
            for s in d.par_v.iter_mut() {
                s.connect();
            }
            for s in d.par_d.iter_mut() {
                s.connect();
            }
            for s in d.ch_v.iter_mut() {
                s.connect();
            }
            for s in d.ch_lo.iter_mut().chain(d.ch_hi.iter_mut()) {
                s.connect();
            }
            for s in d.link_v.iter_mut().chain(d.m_nbr_v.iter_mut()) {
                s.connect();
            }
            for s in d.link_cls.iter_mut() {
                s.connect();
            }
            for s in d.m_nbr.iter_mut() {
                s.connect();
            }
            for s in d.pool.iter_mut() {
                s.connect();
            }
            for s in d.sp_v.iter_mut() {
                s.connect();
            }
            for s in d.sp_d.iter_mut() {
                s.connect();
            }
        }
        for s in self
            .setup_wait
            .iter_mut()
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
