//! The DSTM source side (paper 000): header encoding and the tree policy.

pub mod encode;
pub mod policy;

pub use encode::encode;
