//! The network interface of one node (docs/architecture.md §4): an injection queue,
//! the start-up latency, one sender per injection channel, and one sink per
//! consumption channel that checks every flit against the scoreboard.
//!
//! The sender is a registered output like a router's: `out_flit/out_valid`
//! move into the router's injection FIFO when that FIFO's `ready` is 1.

use crate::flit::{Flit, FlitFormat};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendState {
    Idle,
    /// Paying the start-up latency until this cycle.
    Startup {
        until: u64,
    },
    /// Next flit index to load.
    Sending {
        next: u32,
    },
    /// Driving scripted raw worm `worm` (`network::raw`); next flit index.
    Raw {
        worm: u32,
        next: u32,
    },
}

/// An entry of the injection queue: a message, or a re-injection of one
/// (local fault information, \[DSTM\] §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    pub msg: u32,
    /// Worm of `msg` (a path-based message has several).
    pub worm: u32,
    /// Index into `Network::relays` (its own header flits on the good tree),
    /// `None` for the message as submitted.
    pub relay: Option<u32>,
}

/// One injection channel.
#[derive(Debug, Clone)]
pub struct Sender {
    pub state: SendState,
    pub msg: u32,
    /// The job being sent is this re-injection (see [`Job`]).
    pub relay: Option<u32>,
    /// Worm of `msg` being sent.
    pub worm: u32,
    pub out_flit: Flit,
    pub out_valid: bool,
    pub out_msg: u32,
}

impl Default for Sender {
    fn default() -> Self {
        Sender {
            state: SendState::Idle,
            msg: u32::MAX,
            relay: None,
            worm: 0,
            out_flit: 0,
            out_valid: false,
            out_msg: u32::MAX,
        }
    }
}

/// One consumption channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SinkState {
    /// The next data flit must be the identity BODY.
    #[default]
    Expect,
    /// Receiving message `msg`; `index` data flits seen so far. `divert`:
    /// a diverted worm (its HEADs are in `Ni::divert_heads`), re-injected
    /// at its TAIL instead of counted as a delivery.
    Receiving { msg: u32, index: u32, divert: bool },
    /// A worm a router diverted here because its branch met a faulty link
    /// (local fault information, \[DSTM\] §7): collecting its HEAD flits.
    DivertHeads,
    /// A damaged worm: ignore up to its TAIL.
    Skipping,
}

#[derive(Debug, Clone, Default)]
pub struct Ni {
    pub queue: VecDeque<Job>,
    /// With `timing.startup_serial`: the cycle the start-up engine is free.
    pub startup_free: u64,
    pub senders: Vec<Sender>,
    pub sinks: Vec<SinkState>,
    /// Per consumption channel: the HEAD flits of the diverted worm being
    /// received (empty otherwise).
    pub divert_heads: Vec<Vec<Flit>>,
    /// On the list of busy NIs.
    pub busy: bool,
    /// Per injection channel: scripted raw worms due on it (indices into
    /// `Network::raw`), sent between two of the channel's worms.
    pub raw: Vec<VecDeque<u32>>,
}

impl Ni {
    pub fn new(injection: usize, consumption: usize) -> Ni {
        Ni {
            queue: VecDeque::new(),
            startup_free: 0,
            senders: vec![Sender::default(); injection],
            sinks: vec![SinkState::Expect; consumption],
            divert_heads: vec![Vec::new(); consumption],
            busy: false,
            raw: vec![VecDeque::new(); injection],
        }
    }

    pub fn idle(&self) -> bool {
        self.queue.is_empty()
            && self.raw.iter().all(VecDeque::is_empty)
            && self
                .senders
                .iter()
                .all(|s| s.state == SendState::Idle && !s.out_valid)
    }
}

/// Flit `idx` of a message: its HEADs, the identity BODY (the tag), payload
/// BODYs, the TAIL.
pub fn message_flit(fmt: &FlitFormat, heads: &[Flit], length: u32, tag: u64, idx: u32) -> Flit {
    let h = heads.len() as u32;
    if idx < h {
        return heads[idx as usize];
    }
    let d = idx - h;
    if d == 0 {
        fmt.body(tag)
    } else if d + 1 < length {
        fmt.body(crate::flit::payload_word(tag, d))
    } else {
        fmt.tail(crate::flit::payload_word(tag, d))
    }
}
