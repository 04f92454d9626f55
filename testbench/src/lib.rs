//! Testbench: scenario regressions and co-simulation of the native model
//! with its rust-hdl twin (docs/architecture.md §2) and with the generated Verilog
//! under iverilog and Verilator.

pub mod gate;
pub mod golden;
pub mod lockstep;
pub mod signals;
pub mod vcd_compare;
pub mod vectors;
