//! The input buffer: a ring of at most `MAX_DEPTH` flits, a fixed array so
//! router states are `Copy` and the kernel never allocates per cycle.

use crate::config::MAX_DEPTH;
use crate::flit::Flit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fifo {
    pub slot: [Flit; MAX_DEPTH],
    /// Index of the oldest flit.
    pub rd: u8,
    /// Number of flits held.
    pub count: u8,
}

impl Fifo {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn peek(&self) -> Option<Flit> {
        (self.count > 0).then(|| self.slot[self.rd as usize])
    }

    /// The `k`-th oldest flit.
    pub fn get(&self, k: usize) -> Flit {
        self.slot[(self.rd as usize + k) % MAX_DEPTH]
    }

    pub fn pop(&mut self) {
        debug_assert!(self.count > 0);
        self.rd = ((self.rd as usize + 1) % MAX_DEPTH) as u8;
        self.count -= 1;
    }

    /// Appends a flit; the caller guarantees room (`ready` protocol), a full
    /// FIFO at `depth` is a kernel bug.
    pub fn push(&mut self, f: Flit, depth: usize) {
        assert!(
            (self.count as usize) < depth,
            "FIFO overflow: ready protocol violated"
        );
        let wr = (self.rd as usize + self.count as usize) % MAX_DEPTH;
        self.slot[wr] = f;
        self.count += 1;
    }
}
