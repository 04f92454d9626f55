//! Subcommands, one module each.

pub mod bench;
pub mod route;
pub mod run;
pub mod tarjan;
pub mod trees;
