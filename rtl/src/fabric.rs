//! A K×M torus of routers wired link to link (docs/architecture.md §4), with the
//! NI ports of every node at the top: injection `inj_flit/inj_valid` in and
//! `inj_ready` out, consumption `cons_flit/cons_valid` out and `cons_ready` in.
//!
//! Wiring follows `sim/src/fabric` exactly: router input `i < 4` is fed by
//! the neighbour's output on port `i`'s direction (`upstream`), output `o < 4`
//! sees the neighbour's input ready (`downstream`); a link without a class
//! (unused by every tree, or faulty) is not wired: its input sees
//! `valid = 0`, its output `ready = 0`. NI port `n·injection + k` is
//! injection channel `k` of node `n`; likewise for consumption.
//!
//! This is the rust-hdl simulation twin of a fabric (lockstep against the
//! native fabric); the fabric Verilog users get is written by
//! `crate::generate::fabric_module` from the same [`wires`], with one
//! shared router module. Each router here drives its own table ports with
//! its node's tables, as that Verilog ties them off.
//!
//! The wiring is per instance, which rust-hdl's `#[hdl_gen]` cannot express
//! (two array levels in one path, indices that are not loop variables), so
//! this block implements `Logic` by hand: `update` copies the wires in Rust,
//! `hdl` emits the same assignments as explicit Verilog.

use crate::arbiter::vdef;
use crate::router::{Fault, Router};
use crate::tables::NodeTables;
use rust_hdl::prelude::*;
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::fabric::Fabric as NativeFabric;
use wormcast_sim::topology::Topology;

#[derive(LogicBlock)]
pub struct Fabric<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub inj_flit: Vec<Signal<In, Bits<W>>>,
    pub inj_valid: Vec<Signal<In, Bit>>,
    pub inj_ready: Vec<Signal<Out, Bit>>,
    pub cons_flit: Vec<Signal<Out, Bits<W>>>,
    pub cons_valid: Vec<Signal<Out, Bit>>,
    pub cons_ready: Vec<Signal<In, Bit>>,
    /// Router of node n.
    pub r: Vec<Router<W>>,
    _up: Vec<[Option<(u32, u8)>; 4]>,
    _down: Vec<[Option<(u32, u8)>; 4]>,
    _inj: usize,
    _cons: usize,
    /// Per router: the tables its `t_*` ports are tied to.
    _tables: Vec<NodeTables>,
}

/// A `width`-bit Verilog constant (the widths of `crate::tables`).
fn literal<const W: usize>(width: usize, v: u64) -> ast::VerilogLiteral {
    match width {
        1 => (v != 0).into(),
        2 => Bits::<2>::from(v).into(),
        4 => Bits::<4>::from(v).into(),
        w if w == W => Bits::<W>::from(v).into(),
        w => panic!("no table of width {w}"),
    }
}

impl<const W: usize> Fabric<W> {
    pub fn new(topo: &Topology, params: &RouterParams, cfg: &[RouterConfig]) -> Self {
        Self::with_fault(topo, params, cfg, Fault::None)
    }

    pub fn with_fault(
        topo: &Topology,
        params: &RouterParams,
        cfg: &[RouterConfig],
        fault: Fault,
    ) -> Self {
        // The native fabric's wiring tables: one definition of who feeds whom.
        let native = NativeFabric::new(*topo, *params, cfg.to_vec());
        let n = topo.nodes() as usize;
        Fabric {
            clock: Default::default(),
            rst: Default::default(),
            inj_flit: vdef(n * params.injection),
            inj_valid: vdef(n * params.injection),
            inj_ready: vdef(n * params.injection),
            cons_flit: vdef(n * params.consumption),
            cons_valid: vdef(n * params.consumption),
            cons_ready: vdef(n * params.consumption),
            r: cfg
                .iter()
                .map(|c| Router::with_fault(c, params, fault))
                .collect(),
            _up: native.upstream.clone(),
            _down: native.downstream.clone(),
            _inj: params.injection,
            _cons: params.consumption,
            _tables: cfg
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    if fault == Fault::NoDiversion {
                        c.divert_out = 0;
                    }
                    NodeTables::new(&c, params)
                })
                .collect(),
        }
    }

    /// The wires as (destination, source) signal names, in one order for
    /// both simulation and Verilog. `None` source = constant 0.
    fn wires(&self) -> Vec<(String, Option<String>)> {
        wires(self.r.len(), &self._up, &self._down, self._inj, self._cons)
    }
}

/// The wiring of a fabric of `n` routers, from the native fabric's tables
/// (`upstream`, `downstream`), as (destination, source) names: `r$N$port`
/// for a router port, the bare name for a fabric port. `None` source =
/// constant 0. The one wiring list of both the rust-hdl fabric and the
/// generated fabric Verilog (`crate::generate`).
pub fn wires(
    n: usize,
    up: &[[Option<(u32, u8)>; 4]],
    down: &[[Option<(u32, u8)>; 4]],
    inj: usize,
    cons: usize,
) -> Vec<(String, Option<String>)> {
    let mut w = Vec::new();
    for n in 0..n {
        w.push((format!("r${n}$clock"), Some("clock".into())));
        w.push((format!("r${n}$rst"), Some("rst".into())));
        for i in 0..4 {
            let src = up[n][i];
            w.push((
                format!("r${n}$i_flit${i}"),
                src.map(|(u, o)| format!("r${u}$o_flit${o}")),
            ));
            w.push((
                format!("r${n}$i_valid${i}"),
                src.map(|(u, o)| format!("r${u}$o_valid${o}")),
            ));
            let dst = down[n][i];
            w.push((
                format!("r${n}$o_ready${i}"),
                dst.map(|(v, j)| format!("r${v}$i_ready${j}")),
            ));
        }
        for k in 0..inj {
            let p = n * inj + k;
            w.push((
                format!("r${n}$i_flit${}", 4 + k),
                Some(format!("inj_flit${p}")),
            ));
            w.push((
                format!("r${n}$i_valid${}", 4 + k),
                Some(format!("inj_valid${p}")),
            ));
            w.push((
                format!("inj_ready${p}"),
                Some(format!("r${n}$i_ready${}", 4 + k)),
            ));
        }
        for c in 0..cons {
            let p = n * cons + c;
            w.push((
                format!("cons_flit${p}"),
                Some(format!("r${n}$o_flit${}", 4 + c)),
            ));
            w.push((
                format!("cons_valid${p}"),
                Some(format!("r${n}$o_valid${}", 4 + c)),
            ));
            w.push((
                format!("r${n}$o_ready${}", 4 + c),
                Some(format!("cons_ready${p}")),
            ));
        }
    }
    w
}

impl<const W: usize> Logic for Fabric<W> {
    fn update(&mut self) {
        let clk = self.clock.val();
        let rst = self.rst.val();
        for n in 0..self.r.len() {
            self.r[n].clock.next = clk;
            self.r[n].rst.next = rst;
            for i in 0..4 {
                let (f, v) = match self._up[n][i] {
                    Some((u, o)) => {
                        let u = &self.r[u as usize];
                        (u.o_flit[o as usize].val(), u.o_valid[o as usize].val())
                    }
                    None => (Bits::<W>::default(), false),
                };
                self.r[n].i_flit[i].next = f;
                self.r[n].i_valid[i].next = v;
                let rd = match self._down[n][i] {
                    Some((d, j)) => self.r[d as usize].i_ready[j as usize].val(),
                    None => false,
                };
                self.r[n].o_ready[i].next = rd;
            }
            for k in 0..self._inj {
                let p = n * self._inj + k;
                self.r[n].i_flit[4 + k].next = self.inj_flit[p].val();
                self.r[n].i_valid[4 + k].next = self.inj_valid[p].val();
                self.inj_ready[p].next = self.r[n].i_ready[4 + k].val();
            }
            for c in 0..self._cons {
                let p = n * self._cons + c;
                self.cons_flit[p].next = self.r[n].o_flit[4 + c].val();
                self.cons_valid[p].next = self.r[n].o_valid[4 + c].val();
                self.r[n].o_ready[4 + c].next = self.cons_ready[p].val();
            }
        }
    }

    fn connect(&mut self) {
        for n in 0..self.r.len() {
            let r = &mut self.r[n];
            r.clock.connect();
            r.rst.connect();
            for s in r.i_flit.iter_mut() {
                s.connect();
            }
            for s in r.i_valid.iter_mut() {
                s.connect();
            }
            for s in r.o_ready.iter_mut() {
                s.connect();
            }
        }
        for s in self.inj_ready.iter_mut() {
            s.connect();
        }
        for s in self.cons_flit.iter_mut() {
            s.connect();
        }
        for s in self.cons_valid.iter_mut() {
            s.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        use ast::{VerilogExpression as E, VerilogStatement as S};
        let body = self
            .wires()
            .into_iter()
            .map(|(dst, src)| {
                let rhs = match src {
                    Some(s) => E::Signal(s),
                    None if dst.contains("$i_flit$") => E::Literal(Bits::<W>::default().into()),
                    None => E::Literal(false.into()),
                };
                S::Assignment(E::Signal(dst), rhs)
            })
            .chain(self._tables.iter().enumerate().flat_map(|(n, t)| {
                t.ports().map(move |(port, width, v)| {
                    S::Assignment(
                        E::Signal(format!("r${n}${port}")),
                        E::Literal(literal::<W>(width, v)),
                    )
                })
            }))
            .collect();
        Verilog::Combinatorial(body)
    }
}
