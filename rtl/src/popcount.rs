//! The number of inputs that raised a malformed-flit error this cycle, for
//! the router's saturating `err_count` (docs/architecture.md §3, malformed input).
//!
//! Why a block of its own (timing): written in the router
//! kernel as a running sum over the inputs, yosys maps each step to an
//! `SB_CARRY` chain and the chain of chains became the router's critical
//! path after the decode moved into the FIFO write. The count is a function
//! of at most `MAX_INPUTS` bits, so it is emitted as one `case` table that
//! abc reduces to two LUT levels. As in [`crate::arbiter`], the simulation
//! ([`Logic::update`]) and the Verilog ([`Logic::hdl`]) are written from the
//! same input count by hand, because `#[hdl_gen]` cannot loop over a truth
//! table.

use crate::arbiter::vdef;
use rust_hdl::prelude::*;
use std::fmt::Write;

/// Width of the count (0..=8 inputs).
pub const COUNT_W: usize = 4;

#[derive(LogicBlock)]
pub struct Popcount {
    /// One bit per input.
    pub bit: Vec<Signal<In, Bit>>,
    /// How many of them are set.
    pub count: Signal<Out, Bits<COUNT_W>>,
    _n: usize,
}

impl Popcount {
    pub fn new(n: usize) -> Self {
        assert!(
            (1..1 << COUNT_W).contains(&n) && n <= 8,
            "popcount of {n} bits"
        );
        Popcount {
            bit: vdef(n),
            count: Default::default(),
            _n: n,
        }
    }
}

impl Logic for Popcount {
    fn update(&mut self) {
        let c = self.bit.iter().filter(|b| b.val()).count() as u64;
        self.count.next = c.into();
    }

    fn connect(&mut self) {
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self._n;
        let cat: Vec<String> = (0..n).rev().map(|i| format!("bit${i}")).collect();
        let mut v = String::new();
        let _ = writeln!(v, "always @(*) begin");
        let _ = writeln!(v, "  case ({{{}}})", cat.join(", "));
        for x in 0u32..1 << n {
            let _ = writeln!(v, "    {n}'d{x}: count = {COUNT_W}'d{};", x.count_ones());
        }
        let _ = writeln!(v, "    default: count = {COUNT_W}'d0;");
        let _ = writeln!(v, "  endcase");
        let _ = writeln!(v, "end");
        Verilog::Custom(v)
    }
}
