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

/// A re-injection of message `msg` by the NI of `node` after a router there
/// diverted one of its branches away from a faulty link (local fault
/// information, \[DSTM\] §7): the branch's remaining destinations encoded
/// on the good tree (`class`) with `node` as the source. The message
/// identity is unchanged, so the scoreboard counts the deliveries at the
/// final destinations.
#[derive(Debug, Clone)]
pub struct Relay {
    pub msg: u32,
    pub node: NodeId,
    pub class: u8,
    /// Sorted destinations of the re-injected worm.
    pub dests: Vec<NodeId>,
    pub heads: Vec<Flit>,
    /// Cycle the diverted worm's TAIL reached the NI.
    pub created: u64,
}
