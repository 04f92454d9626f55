//! The deadlock detector (docs/architecture.md §3): it catches a real deadlock
//! early and names the worms in the wait-for cycle, and it does not mistake
//! the long blocks of a saturated network for one.

use wormcast_sim::network::stats::Report;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::{DestCount, Scenario};

/// Two crossing multicasts on a 4×4 DSTM-1 torus, one per tree, both to
/// {x, y}. Tree 0 reaches x (1 hop from its source) long before y (3 hops);
/// tree 1 reaches y first (1 hop) and x later (3 hops). With one
/// consumption channel shared by both trees each worm holds the channel the
/// other needs next.
const S1: u32 = 0;
const S2: u32 = 7;
const X: u32 = 1;
const Y: u32 = 4;

fn crossing(consumption: usize) -> (Network, Report) {
    let mut s = Scenario::default();
    s.network.topology = "torus:4x4".parse().unwrap();
    s.network.consumption_channels = consumption;
    s.timing.startup_cycles = 0;
    s.traffic.pattern = "none".parse().unwrap();
    s.traffic.destinations = DestCount::Fixed(1);
    s.run.warmup = 0;
    s.run.cycles = 1;
    s.run.drain_cycles = 100_000;
    s.run.deadlock_threshold = 16;
    let mut net = Network::new(&s).unwrap();
    let (t0, t1) = (&net.trees[0], &net.trees[1]);
    assert_eq!((t0.distance(S1, X), t0.distance(S1, Y)), (1, 3));
    assert_eq!((t1.distance(S2, Y), t1.distance(S2, X)), (1, 3));
    net.submit(S1, vec![X, Y], 64, Some(0)).unwrap();
    net.submit(S2, vec![X, Y], 64, Some(1)).unwrap();
    let r = net.run(&mut |_| true);
    (net, r)
}

#[test]
fn shared_consumption_channel_deadlock_is_caught() {
    let (net, r) = crossing(1);
    assert!(r.deadlock, "{}", r.summary());
    assert_eq!(r.stop_reason, "deadlock");
    // Stopped early: within tens of cycles, not at the end of the drain.
    assert!(r.cycles <= 64, "detected at cycle {}", r.cycles);
    // Statistics are still produced.
    assert_eq!(r.injected_messages, 2);
    assert_eq!(r.delivered_messages, 0);
    assert_eq!(r.unfinished_messages, 2);
    assert_eq!(r.lost_messages, 0);
    assert_eq!(r.router_errors, 0);
    assert!(r.router_steps > 0);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["deadlock"], true);
    // The report lists the worms of the cycle and what each waits for.
    let c = &r.deadlock_cycle;
    assert!(c.len() >= 2, "{c:?}");
    let msgs: std::collections::BTreeSet<_> = c.iter().filter_map(|w| w.message).collect();
    assert_eq!(msgs.into_iter().collect::<Vec<_>>(), vec![0, 1], "{c:?}");
    for (k, w) in c.iter().enumerate() {
        let next = &c[(k + 1) % c.len()];
        assert_eq!(
            w.waits_for_router, next.router,
            "entry {k} closes on the next"
        );
        assert_eq!(w.waits_for_input, next.input);
        assert_eq!(w.waits_for_message, next.message);
        assert!(!w.head_flit.is_empty() && !w.state.is_empty());
    }
    // Both worms are blocked on a consumption channel at x or y.
    let topo = net.v.topo;
    let at: Vec<_> = c.iter().map(|w| topo.id(w.router.0, w.router.1)).collect();
    assert!(at.contains(&X) || at.contains(&Y), "{c:?}");
    assert!(r.summary().contains("deadlock: router"));
}

/// Control: the same two multicasts with DSTM's two consumption channels
/// (one per tree) are delivered.
#[test]
fn two_consumption_channels_no_deadlock() {
    let (_, r) = crossing(2);
    assert!(!r.deadlock, "{}", r.summary());
    assert_eq!(r.stop_reason, "drained");
    assert_eq!(r.delivered_messages, 2);
    assert_eq!(
        r.truncated_messages + r.corrupted_flits + r.duplicate_deliveries,
        0
    );
}

/// At saturation inputs legitimately block for a long time: with the
/// smallest threshold many long blocks are counted, none is a deadlock.
#[test]
fn long_blocks_at_saturation_are_not_deadlocks() {
    let mut s = Scenario::default();
    s.network.topology = "torus:8x8".parse().unwrap();
    s.traffic.rate = 0.05;
    s.traffic.seed = 3;
    s.run.warmup = 1_000;
    s.run.cycles = 10_000;
    s.run.drain_cycles = 0;
    s.run.deadlock_threshold = 16;
    let mut net = Network::new(&s).unwrap();
    let r = net.run(&mut |_| true);
    assert!(r.saturated, "{}", r.summary());
    assert!(!r.deadlock, "{}", r.summary());
    assert!(r.long_blocks > 100, "{}", r.summary());
    assert_eq!(r.cycles, 11_000);
    assert_eq!(
        r.stop_reason, "end of window",
        "no drain: the run ends with the window"
    );
    assert_eq!(r.router_errors + r.duplicate_deliveries + r.misdelivered, 0);
    assert_eq!(r.corrupted_flits + r.truncated_messages, 0);
}

/// Random multicast load on a 4×4 torus with one shared consumption channel
/// (`examples/deadlock-shared-consumption.toml`). The cycle runs through
/// inputs whose FIFOs are empty while their worms hold outputs and wait for
/// the rest of themselves upstream; a detector without those edges saw only
/// long blocks here while the network sat wedged for the whole drain.
#[test]
fn deadlock_through_empty_held_inputs_is_caught() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/deadlock-shared-consumption.toml"
    ))
    .unwrap();
    let sc = wormcast_sim::scenario::Scenario::from_toml(&text, &[], "example").unwrap();
    let mut net = wormcast_sim::network::Network::new(&sc).unwrap();
    let r = net.run(&mut |_| true);
    assert!(r.deadlock, "{}", r.summary());
    assert!(r.cycles < 2_000, "caught late: cycle {}", r.cycles);
    let cyc = &r.deadlock_cycle;
    assert!(cyc.len() >= 2);
    assert!(
        cyc.iter().any(|w| w.head_flit.starts_with("empty")),
        "{cyc:?}"
    );
    for k in 0..cyc.len() {
        let next = &cyc[(k + 1) % cyc.len()];
        assert_eq!(
            (cyc[k].waits_for_router, cyc[k].waits_for_input.as_str()),
            (next.router, next.input.as_str())
        );
    }
}

/// The deadlock report in the summary is plain text
/// (`msg 0`, `router (1,0)`), not Rust debug text (`msg Some(0)`).
#[test]
fn deadlock_summary_has_no_debug_text() {
    let (_, r) = crossing(1);
    let s = r.summary();
    assert!(s.contains("deadlock: router ("), "{s}");
    for debug in ["Some(", "None", "Range(", "Fixed("] {
        assert!(!s.contains(debug), "{debug} in\n{s}");
    }
    assert!(s.contains(" msg 0 ") || s.contains(" msg 1 "), "{s}");
}
