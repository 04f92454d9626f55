//! SPAM baseline routing (\[DSTM\] §2 and its ref. \[11\]). The per-router
//! table and its construction are part of the router contract
//! (`config::spam_table`, below the routing functions); the routing itself
//! is `router::routing::spam_first_head`. Re-exported here so existing
//! paths keep working.

pub use crate::config::spam_table::*;
