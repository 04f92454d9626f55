//! Subcommands, one module each.

pub mod route;
pub mod run;
pub mod trees;
