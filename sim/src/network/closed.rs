//! Closed-loop injection (`traffic.window`): each node has at most W
//! requests outstanding, as a core with W miss-status registers or a DMA
//! engine with W credits.
//!
//! A generated message is a *request*. It is done when its reply arrives
//! back at its source (`traffic.reply_length` > 0: the destination of a
//! unicast request answers at once with a unicast of that length), or, for
//! a multicast or without replies, when its last destination has it.
//! Each done request frees a slot; an arrival of the injection process that
//! finds the window full is held and created when a slot frees, so the
//! offered rate is capped by the loop itself, as in a real machine. The
//! report gives the round-trip latency (request created to done) and the
//! transactions completed per node per cycle.

use std::collections::HashMap;

/// What a message is to the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Request,
    /// The reply to request `.0`.
    Reply(u32),
}

#[derive(Debug, Clone)]
pub struct ClosedLoop {
    pub window: u32,
    pub reply_length: u32,
    pub outstanding: Vec<u32>,
    /// Arrivals waiting for a slot, per node.
    pub held: Vec<u64>,
    /// Requests and replies by message number.
    pub tag: HashMap<u32, Tag>,
    /// Messages completed this cycle, in completion order.
    pub completed: Vec<u32>,
    /// Per done request: (created, round trip in cycles).
    pub round_trips: Vec<(u64, u64)>,
    /// Arrivals that found the window full.
    pub held_arrivals: u64,
}

impl ClosedLoop {
    pub fn new(window: u32, reply_length: u32, nodes: usize) -> ClosedLoop {
        ClosedLoop {
            window,
            reply_length,
            outstanding: vec![0; nodes],
            held: vec![0; nodes],
            tag: HashMap::new(),
            completed: Vec::new(),
            round_trips: Vec::new(),
            held_arrivals: 0,
        }
    }
}
