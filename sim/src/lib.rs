//! wormcast-sim: the native cycle model of the wormcast router, its fabrics,
//! and the source-side multicast algorithms.
//!
//! Layout follows docs/architecture.md §1: hardware contracts ([`flit`], [`config`],
//! [`topology`]) are defined once here and shared with the RTL.

// First, so that its `named_enum!` serves every module below (macros by
// example are visible only after their module).
#[macro_use]
pub mod error;
pub mod config;
pub mod crosscheck;
pub mod decimal;
pub mod dstm;
pub mod fabric;
pub mod flit;
pub mod ftmesh;
pub mod meshtree;
pub mod network;
pub mod onchip;
pub mod parallel;
pub mod pathbased;
pub mod ports;
pub mod router;
pub mod scenario;
pub mod topology;
pub mod trees;
pub mod treeworm;
pub mod verify;
pub mod walker;
pub mod waves;

pub use error::{InputError, InputResult};
