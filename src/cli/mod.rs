//! Subcommands, one module each.

// First: its `out!`/`outln!` macros are used by every subcommand.
#[macro_use]
pub mod output;

pub mod bench;
pub mod bench_verilator;
pub mod crosscheck;
pub mod ftree;
pub mod heatmap;
pub mod interrupt;
pub mod measure;
pub mod mtree;
pub mod plot;
pub mod replay;
pub mod route;
pub mod run;
pub mod shard;
pub mod sweep;
pub mod sweep_out;
pub mod tarjan;
pub mod trees;
pub mod verify;
pub mod verilog;
