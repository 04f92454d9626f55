//! Subcommands, one module each.

pub mod bench;
pub mod route;
pub mod run;
pub mod trees;
pub mod verilog;
