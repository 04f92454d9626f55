//! wormcast-rtl: the synthesizable rust-hdl twin of the native wormcast
//! router (ARCHITECTURE §2, §3; paper 000 §3) and Verilog generation for one
//! router or a whole fabric (ARCHITECTURE §7).

pub mod arbiter;
pub mod decode;
pub mod fifo;
pub mod hw;
pub mod router;

pub use router::{Fault, Router};
pub mod drive;
pub mod fabric;
pub mod fabric_cfg;
pub mod names;
