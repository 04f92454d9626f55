//! The crossbar in front of the output registers (docs/architecture.md §3
//! "Replication"): output o takes the flit of the input its one-hot owner
//! register `sel[o]` names, 0 when it has no owner.
//!
//! Why this shape (area and timing): an output only ever
//! loads its owner's flit (an input sends only to outputs it reserved), so
//! the select is the registered owner itself, not the handshake. Each output
//! bit is an AND-OR of at most `MAX_INPUTS` (select, flit bit) pairs of
//! registers, which an iCE40 maps to three LUT4s for five inputs (the
//! `if`-chain over `go[i] & send_outs[i][o]` it replaces took four to five,
//! with the late `go` inside it); the handshake only enables the register.
//! An owner bit that the node's `t_owners` table makes a constant 0 (a
//! pair of input and output that never meet, `routing::possible_owners`)
//! drops its pair: a two-class DSTM torus router's outputs take three
//! inputs each, two LUT4s a bit (docs/hardware.md 3l).
//! The AND-OR needs `#[hdl_gen]` to index a two-level table (output, input),
//! which it cannot (docs/architecture.md §2: two array levels), so, as in
//! [`crate::arbiter`], the simulation ([`Logic::update`]) and the Verilog
//! ([`Logic::hdl`]) are written by hand from the same port counts.

use crate::arbiter::vdef;
use crate::hw::SEL_W;
use rust_hdl::prelude::*;
use std::fmt::Write;

#[derive(LogicBlock)]
pub struct Crossbar<const W: usize> {
    /// Per output: its owner, one-hot over the inputs (at most one bit set).
    pub sel: Vec<Signal<In, Bits<SEL_W>>>,
    /// Per input: the flit it sends.
    pub flit: Vec<Signal<In, Bits<W>>>,
    /// Per output: the owner's flit, 0 without an owner.
    pub out: Vec<Signal<Out, Bits<W>>>,
}

impl<const W: usize> Crossbar<W> {
    pub fn new(n_in: usize, n_out: usize) -> Self {
        assert!(n_in <= SEL_W, "crossbar of {n_in} inputs");
        Crossbar {
            sel: vdef(n_out),
            flit: vdef(n_in),
            out: vdef(n_out),
        }
    }
}

impl<const W: usize> Logic for Crossbar<W> {
    fn update(&mut self) {
        for (o, out) in self.out.iter_mut().enumerate() {
            let s = self.sel[o].val().to_u64();
            let mut v = 0u64;
            for (i, f) in self.flit.iter().enumerate() {
                if s >> i & 1 != 0 {
                    v |= f.val().to_u64();
                }
            }
            out.next = v.into();
        }
    }

    fn connect(&mut self) {
        for o in self.out.iter_mut() {
            o.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog(self.flit.len(), self.out.len(), W))
    }
}

/// The body of the crossbar module with `n_in` inputs, `n_out` outputs and
/// `w`-bit flits (ports `sel$o`, `flit$i`, `out$o`).
pub fn verilog(n_in: usize, n_out: usize, w: usize) -> String {
    let mut v = String::new();
    let _ = writeln!(v, "always @(*) begin");
    for o in 0..n_out {
        let terms: Vec<String> = (0..n_in)
            .map(|i| format!("({{{w}{{sel${o}[{i}]}}}} & flit${i})"))
            .collect();
        let _ = writeln!(v, "  out${o} = {};", terms.join(" | "));
    }
    let _ = writeln!(v, "end");
    v
}
