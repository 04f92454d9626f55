//! Property: on random small tori (3×3 to 8×8), DSTM-1 and DSTM-2, random
//! scripted unicasts and multicasts (random sources, destination sets,
//! lengths, submission cycles, trees) are each delivered exactly once to
//! exactly their destinations, intact, with no deadlock and no router error.

use proptest::prelude::*;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::{DestCount, Scenario, ScriptedMessage};

#[derive(Debug, Clone)]
struct Msg {
    cycle: u64,
    source: u32,
    dests: Vec<u32>,
    length: u32,
    tree: Option<usize>,
}

fn case() -> impl Strategy<Value = (u32, u32, bool, u32, Vec<Msg>)> {
    (3u32..=8, 3u32..=8, any::<bool>(), 0u32..64).prop_flat_map(|(k, m, dstm2, r1)| {
        let n = k * m;
        let msg = (
            0u64..300,
            0..n,
            proptest::collection::vec(0..n, 1..=(n as usize - 1).min(12)),
            2u32..40,
            prop_oneof![Just(None), Just(Some(0usize)), Just(Some(1usize))],
        )
            .prop_map(move |(cycle, source, dests, length, tree)| {
                let mut dests: Vec<u32> = dests.into_iter().filter(|&d| d != source).collect();
                // A destination named twice is refused by validation.
                dests.sort_unstable();
                dests.dedup();
                if dests.is_empty() {
                    dests.push((source + 1) % n);
                }
                Msg {
                    cycle,
                    source,
                    dests,
                    length,
                    tree,
                }
            });
        (
            Just(k),
            Just(m),
            Just(dstm2),
            Just(r1 % n),
            proptest::collection::vec(msg, 1..80),
        )
    })
}

fn xy(k: u32, u: u32) -> String {
    format!("{},{}", u % k, u / k)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_message_delivered_exactly_once((k, m, dstm2, r1, msgs) in case()) {
        let mut s = Scenario::default();
        s.network.topology = format!("torus:{k}x{m}").parse().unwrap();
        s.network.construction = if dstm2 { "dstm2" } else { "dstm1" }.into();
        s.network.r1 = xy(k, r1);
        s.timing.startup_cycles = 3;
        s.traffic.pattern = "scripted".parse().unwrap();
        // The Poisson default [4, 12] is validated even for scripted traffic
        // and exceeds N-1 on 3x3 and 3x4 tori.
        s.traffic.destinations = DestCount::Fixed(1);
        s.traffic.messages = msgs
            .iter()
            .map(|x| ScriptedMessage {
                cycle: x.cycle,
                source: xy(k, x.source),
                destinations: x.dests.iter().map(|&d| xy(k, d)).collect(),
                length: x.length,
                tree: x.tree,
            })
            .collect();
        s.run.warmup = 0;
        s.run.cycles = 301;
        s.run.drain_cycles = 200_000;
        s.run.deadlock_threshold = 500;
        let mut net = Network::new(&s).unwrap();
        let r = net.run(&mut |_| true);
        prop_assert!(!r.deadlock, "{}", r.summary());
        prop_assert_eq!(&r.stop_reason, "drained", "{}", r.summary());
        prop_assert_eq!(net.msgs.len(), msgs.len());
        prop_assert_eq!(r.delivered_messages, msgs.len() as u64);
        prop_assert_eq!(r.lost_messages, 0);
        prop_assert_eq!(r.unfinished_messages, 0);
        prop_assert_eq!(r.duplicate_deliveries, 0);
        prop_assert_eq!(r.misdelivered, 0);
        prop_assert_eq!(r.corrupted_flits, 0);
        prop_assert_eq!(r.truncated_messages, 0);
        prop_assert_eq!(r.router_errors, 0);
        // Exactly its destinations: each delivered once (scoreboard), and
        // the set matches what was asked (messages are submitted in order
        // of their cycle, stably).
        let mut order = msgs.clone();
        order.sort_by_key(|x| x.cycle);
        for (x, msg) in order.iter().zip(&net.msgs) {
            prop_assert_eq!(msg.source, x.source);
            let mut want = x.dests.clone();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(&msg.dests, &want);
            prop_assert!(msg.delivered.iter().all(|&c| c != u64::MAX));
        }
    }
}
