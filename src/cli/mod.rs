//! Subcommands, one module each.

pub mod bench;
pub mod crosscheck;
pub mod ftree;
pub mod interrupt;
pub mod mtree;
pub mod plot;
pub mod route;
pub mod run;
pub mod sweep;
pub mod tarjan;
pub mod trees;
pub mod verilog;
