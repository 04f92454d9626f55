//! Testbench: scenario regressions and co-simulation of the native model
//! with its rust-hdl twin (ARCHITECTURE §2).

pub mod lockstep;
pub mod vectors;
