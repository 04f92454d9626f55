//! wormcast-rtl: the synthesizable rust-hdl twin of the native wormcast
//! router (docs/architecture.md §2, §3; \[DSTM\] §3) and Verilog generation for one
//! router or a whole fabric (docs/architecture.md §7).
//!
//! Blocks, named after the hardware: [`fifo`] (input buffer and registered
//! ready), [`decode`] (header decode and tree routing, one per input),
//! [`arbiter`] (atomic reservation, rotating priority with masking),
//! [`crossbar`] (owner-selected flits into the outputs),
//! [`router`] (output registers, input state, error register) and
//! [`fabric`] (routers wired into a torus, NI ports at the top).
//! Contracts (flit layout, port numbering, tables, error codes) come from
//! `wormcast-sim`, so the two models cannot drift.

pub mod arbiter;
pub mod boards;
pub mod compare;
pub mod crossbar;
pub mod decode;
pub mod decoders;
pub mod drive;
pub mod fabric;
pub mod fabric_cfg;
pub mod fifo;
pub mod fpga_top;
pub mod generate;
pub mod hw;
pub mod names;
pub mod popcount;
pub mod router;
pub mod tables;
pub mod verilated;
pub mod verilog_text;

pub use generate::{generate_fabric, generate_router};
pub use router::{Fault, Router};
