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
    /// Tree / channel class (of the first worm).
    pub class: u8,
    /// Per worm, its header flits in order. Tree and SPAM messages are one
    /// worm; a path-based multicast is one worm per routing list, each sent
    /// (with its own start-up) carrying the same identity BODY.
    pub heads: Vec<Vec<Flit>>,
    /// Cycle the message was created (arrived at the NI).
    pub created: u64,
    /// Cycle its first flit entered the router; `u64::MAX` until then.
    pub injected: u64,
    /// Per destination (same order as `dests`): cycle its TAIL was consumed.
    pub delivered: Vec<u64>,
    pub done_count: u32,
}

impl Message {
    /// Flits of worm `w`: its HEADs plus the data flits.
    pub fn total_flits(&self, w: usize) -> u32 {
        self.heads[w].len() as u32 + self.length
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
