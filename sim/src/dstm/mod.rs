//! The DSTM source side (\[DSTM\]): header encoding and the tree policy.

pub mod encode;
pub mod policy;

pub use encode::encode;
