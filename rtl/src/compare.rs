//! Magnitude comparators on node labels, written as logic rather than as
//! `<=` (area; docs/hardware.md 3s).
//!
//! Why a block of its own: yosys turns every `<`, `<=`, `>`, `>=` into an
//! `$alu` subtraction before any logic optimisation sees it, and
//! `synth_xilinx` maps each one to a `CARRY4` chain with a LUT a bit for its
//! propagate and generate signals; ABC cannot look through a carry chain.
//! The tree routing block's child-range compares take a 4-bit label and a
//! tied-off bound: as logic each is a function of the four label bits,
//! which abc merges with the class's choice among them into about one LUT6
//! a child port; as a chain each is a `CARRY4` and about four LUTs.
//! Written as a ripple of
//! AND/OR/XOR terms, the compare stays ordinary logic and abc folds it with
//! the constants into the LUTs around it (docs/hardware.md 3s: the tree
//! block's compares alone took the default router from 1 027 to 989
//! `synth_xilinx` LUTs).
//!
//! Pair j compares the low `lw` bits of `a[j]` and `b[j]`; callers mask
//! both operands to the address width first (labels never have higher bits,
//! [`crate::decode::tree::TreeRoute`]), so this is `a[j] <= b[j]`. As in
//! [`crate::popcount`], the simulation ([`Logic::update`]) and the Verilog
//! ([`Logic::hdl`]) are written by hand from the same widths, because
//! `#[hdl_gen]` cannot emit a bitwise ripple over a run-time width.

use crate::arbiter::vdef;
use rust_hdl::prelude::*;
use std::fmt::Write;

#[derive(LogicBlock)]
pub struct LeBank<const W: usize> {
    pub a: Vec<Signal<In, Bits<W>>>,
    pub b: Vec<Signal<In, Bits<W>>>,
    /// Per pair: `a[j]` <= `b[j]` on the low `lw` bits.
    pub le: Vec<Signal<Out, Bit>>,
    _lw: usize,
}

impl<const W: usize> LeBank<W> {
    /// `pairs` comparators on the low `lw` bits (1..=`W`).
    pub fn new(pairs: usize, lw: usize) -> Self {
        assert!((1..=W).contains(&lw), "comparator of {lw} bits in {W}");
        LeBank {
            a: vdef(pairs),
            b: vdef(pairs),
            le: vdef(pairs),
            _lw: lw,
        }
    }
}

impl<const W: usize> Logic for LeBank<W> {
    fn update(&mut self) {
        let m = if self._lw >= 64 {
            u64::MAX
        } else {
            (1u64 << self._lw) - 1
        };
        for (j, le) in self.le.iter_mut().enumerate() {
            le.next = self.a[j].val().to_u64() & m <= self.b[j].val().to_u64() & m;
        }
    }

    fn connect(&mut self) {
        for le in self.le.iter_mut() {
            le.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog(self.le.len(), self._lw))
    }
}

/// The body of the bank with `pairs` comparators of `lw` bits (ports
/// `a$j`, `b$j`, `le$j`): from the least significant bit up, `a <= b` so
/// far is "a's bit 0 and b's bit 1, or the bits equal and `a <= b` below".
pub fn verilog(pairs: usize, lw: usize) -> String {
    let mut v = String::new();
    let _ = writeln!(v, "always @(*) begin");
    for j in 0..pairs {
        let mut e = "1'b1".to_string();
        for k in 0..lw {
            e = format!("((~a${j}[{k}] & b${j}[{k}]) | (~(a${j}[{k}] ^ b${j}[{k}]) & {e}))");
        }
        let _ = writeln!(v, "  le${j} = {e};");
    }
    let _ = writeln!(v, "end");
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Verilog text evaluated as the ripple it spells, for every pair
    /// of 3-bit values (the same recurrence as `verilog`).
    #[test]
    fn ripple_is_le() {
        for x in 0u64..8 {
            for y in 0u64..8 {
                let mut r = true;
                for k in 0..3 {
                    let (a, b) = (x >> k & 1 == 1, y >> k & 1 == 1);
                    r = (!a & b) | (!(a ^ b) & r);
                }
                assert_eq!(r, x <= y, "{x} <= {y}");
            }
        }
        assert!(verilog(1, 2).contains("le$0 = ((~a$0[1] & b$0[1])"));
    }
}
