//! Running a collective (`network::collective` defines it): its messages
//! created at the start cycle, its completion counted as they finish.

use super::collective::BoundParams;
use super::Network;
use crate::scenario::{Scenario, Validated};

/// The figures of a validated scenario.
pub fn bound_params(v: &Validated, s: &Scenario) -> BoundParams {
    BoundParams {
        topo: v.topo,
        startup: s.timing.startup_cycles,
        serial: s.timing.startup_serial,
        setup: v.params.setup_cycles as u64,
        depth: v.params.depth,
        injection: v.params.injection,
        consumption: v.params.consumption,
        length: s.traffic.length as u64,
    }
}

impl Network {
    /// Creates the collective's messages when its start cycle comes.
    pub(super) fn start_collective(&mut self) {
        let topo = self.v.topo;
        let c = self.collective.as_ref().expect("a collective");
        if c.started || self.fabric.cycle < c.start {
            return;
        }
        let length = c.length;
        let msgs = c.messages(&topo);
        let ids: Vec<u32> = msgs
            .into_iter()
            .map(|(s, d)| {
                self.submit(s, d, length, None)
                    .expect("validated collective messages")
            })
            .collect();
        let c = self.collective.as_mut().expect("a collective");
        c.started = true;
        c.remaining = ids.len() as u32;
        c.msgs = ids;
    }

    /// The completion hook: `msg` reached its last destination.
    pub(super) fn collective_message_done(&mut self, msg: u32) {
        let Some(c) = &mut self.collective else {
            return;
        };
        if c.msgs.binary_search(&msg).is_ok() {
            c.remaining -= 1;
            if c.remaining == 0 {
                c.completed = self.msgs[msg as usize].finished();
            }
        }
    }
}
