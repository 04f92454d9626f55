//! Invalidation transactions on the running network (`network::coherence`
//! defines them): the miss at its arrival, and the answers to each
//! delivery, per destination — the invalidation at the home, an ack at
//! each sharer, the count of acks at the requester.

use super::coherence::{Role, Transaction};
use super::Network;
use crate::topology::NodeId;

impl Network {
    /// A write miss generated at `u`: draws its home and sharers and
    /// queues the miss; its message number.
    pub(super) fn start_transaction(&mut self, u: NodeId) -> u32 {
        let n = self.v.topo.nodes();
        let tr = &self.scenario.traffic;
        let (length, length_max) = (tr.length, tr.length_max);
        let c = self.coherence.as_ref().expect("invalidation traffic");
        let rng = &mut self.rngs[u as usize];
        let (home, sharers) = c.draw(n, u, rng);
        let length = super::draw_length(rng, length, length_max);
        let k = sharers.len() as u32;
        let miss = self
            .submit(u, vec![home], length, None)
            .expect("a miss is a valid unicast");
        let c = self.coherence.as_mut().expect("invalidation traffic");
        let t = c.transactions.len() as u32;
        c.transactions.push(Transaction {
            requester: u,
            home,
            sharers,
            created: self.fabric.cycle,
            acks_left: k,
            done: None,
        });
        c.roles.insert(miss, (Role::Miss, t));
        miss
    }

    /// The per-destination delivery hook: message `msg` reached `node`,
    /// its TAIL delivered at `at`.
    pub(super) fn delivered_to(&mut self, msg: u32, node: NodeId, at: u64) {
        if let Some(c) = &mut self.coherence {
            if c.roles.contains_key(&msg) {
                c.pending.push((msg, node, at));
            }
        }
    }

    /// Answers this cycle's deliveries: a miss at its home sends the
    /// invalidation, an invalidation at a sharer sends its ack, an ack
    /// counts towards its transaction.
    pub(super) fn advance_transactions(&mut self) {
        let c = self.coherence.as_mut().expect("invalidation traffic");
        if c.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut c.pending);
        let tr = &self.scenario.traffic;
        let (length, length_max) = (tr.length, tr.length_max);
        for &(msg, node, at) in &pending {
            let c = self.coherence.as_mut().expect("invalidation traffic");
            let (role, t) = c.roles[&msg];
            match role {
                Role::Miss => {
                    c.roles.remove(&msg);
                    let sharers = c.transactions[t as usize].sharers.clone();
                    let length =
                        super::draw_length(&mut self.rngs[node as usize], length, length_max);
                    let inv = self
                        .submit(node, sharers, length, None)
                        .expect("an invalidation is a valid multicast");
                    let c = self.coherence.as_mut().expect("invalidation traffic");
                    c.roles.insert(inv, (Role::Invalidation, t));
                }
                Role::Invalidation => {
                    let to = c.transactions[t as usize].requester;
                    let length =
                        super::draw_length(&mut self.rngs[node as usize], length, length_max);
                    let ack = self
                        .submit(node, vec![to], length, None)
                        .expect("an ack is a valid unicast");
                    let c = self.coherence.as_mut().expect("invalidation traffic");
                    c.roles.insert(ack, (Role::Ack, t));
                }
                Role::Ack => {
                    c.roles.remove(&msg);
                    let x = &mut c.transactions[t as usize];
                    x.acks_left -= 1;
                    if x.acks_left == 0 {
                        x.done = Some(at);
                    }
                }
            }
        }
        // An invalidation leaves the table once every sharer has it.
        let c = self.coherence.as_mut().expect("invalidation traffic");
        for &(msg, _, _) in &pending {
            if self.msgs[msg as usize].complete() {
                c.roles.remove(&msg);
            }
        }
    }
}
