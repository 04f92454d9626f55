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

use super::stats::LatencyStats;
use serde::Serialize;
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

    /// The report's section for requests created in `[w0, w1)`.
    pub fn stats(&self, w0: u64, w1: u64, nodes: u64) -> ClosedLoopStats {
        let rtt: Vec<u64> = self
            .round_trips
            .iter()
            .filter(|&&(c, _)| (w0..w1).contains(&c))
            .map(|&(_, r)| r)
            .collect();
        let cycles = w1.saturating_sub(w0).max(1);
        ClosedLoopStats {
            window: self.window,
            reply_length: self.reply_length,
            transactions: rtt.len() as u64,
            transactions_per_node_cycle: rtt.len() as f64 / (nodes * cycles) as f64,
            round_trip: LatencyStats::of(rtt),
            held_arrivals: self.held_arrivals,
        }
    }
}

/// `closed_loop` in the report.
#[derive(Debug, Clone, Serialize)]
pub struct ClosedLoopStats {
    pub window: u32,
    pub reply_length: u32,
    /// Requests created in the measurement window and done.
    pub transactions: u64,
    pub transactions_per_node_cycle: f64,
    /// Request created to done (its reply delivered, or its last
    /// destination reached), cycles.
    pub round_trip: LatencyStats,
    /// Arrivals that found the window full and waited for a slot.
    pub held_arrivals: u64,
}
