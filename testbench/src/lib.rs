//! Testbench: scenario regressions and (later) co-simulation of the native model, rust-hdl and Verilog.
