//! A message and its scoreboard record: who sent it, to whom, when, and what
//! each destination received.

use crate::flit::Flit;
use crate::topology::NodeId;

#[derive(Debug, Clone)]
pub struct Message {
    pub source: NodeId,
    /// Sorted destinations.
    pub dests: Vec<NodeId>,
    /// Data flits: identity BODY, payload BODYs, TAIL.
    pub length: u32,
    /// Tree / channel class.
    pub class: u8,
    /// Header flits in order.
    pub heads: Vec<Flit>,
    /// Cycle the message was created (arrived at the NI).
    pub created: u64,
    /// Cycle its first flit entered the router; `u64::MAX` until then.
    pub injected: u64,
    /// Per destination (same order as `dests`): cycle its TAIL was consumed.
    pub delivered: Vec<u64>,
    pub done_count: u32,
}

impl Message {
    pub fn total_flits(&self) -> u32 {
        self.heads.len() as u32 + self.length
    }

    pub fn is_multicast(&self) -> bool {
        self.dests.len() > 1
    }

    pub fn complete(&self) -> bool {
        self.done_count as usize == self.dests.len()
    }

    /// Cycle the last destination consumed its TAIL.
    pub fn finished(&self) -> Option<u64> {
        self.complete()
            .then(|| self.delivered.iter().copied().max().unwrap_or(self.created))
    }
}
