//! Subcommands, one module each.

pub mod route;
pub mod trees;
