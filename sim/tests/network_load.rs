//! A 16×16 torus driven past saturation, and run determinism.

use wormcast_sim::network::stats::Report;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

fn run(s: &Scenario) -> (Network, Report) {
    let mut net = Network::new(s).unwrap();
    let r = net.run(&mut |_| true);
    (net, r)
}

/// 200 000 cycles budget (warm-up 10 k + window 40 k + drain up to 150 k)
/// at an offered load well past saturation: the network saturates, then
/// drains completely — nothing deadlocks, nothing is lost, duplicated,
/// misdelivered, corrupted or truncated, and no router raised an error.
#[test]
fn torus16_past_saturation_drains_clean() {
    let mut s = Scenario::default();
    s.network.topology = "torus:16x16".parse().unwrap();
    s.traffic.rate = RATE;
    s.traffic.seed = 7;
    s.run.warmup = 10_000;
    s.run.cycles = 40_000;
    s.run.drain_cycles = 150_000;
    let t = std::time::Instant::now();
    let (net, r) = run(&s);
    // Measured: drained at cycle 95 621, offered 0.00120 vs accepted 0.00061
    // msgs/node/cycle, about 5.5 s wall.
    assert!(t.elapsed().as_secs() < 120);
    assert!(r.saturated, "{}", r.summary());
    assert!(
        r.accepted_messages_per_node_cycle < 0.8 * r.offered_messages_per_node_cycle,
        "well past saturation"
    );
    assert!(!r.deadlock, "{}", r.summary());
    assert_eq!(r.stop_reason, "drained", "{}", r.summary());
    assert!(r.cycles <= 200_000);
    assert_eq!(r.delivered_messages, net.msgs.len() as u64);
    assert_eq!(r.injected_messages, net.msgs.len() as u64);
    assert_eq!(r.lost_messages, 0);
    assert_eq!(r.unfinished_messages, 0);
    assert_eq!(r.duplicate_deliveries, 0);
    assert_eq!(r.misdelivered, 0);
    assert_eq!(r.corrupted_flits, 0);
    assert_eq!(r.truncated_messages, 0);
    assert_eq!(r.router_errors, 0);
    assert!(net.msgs.iter().all(|m| m.complete()));
    assert!(net.all_done());
}

/// About twice the measured saturation throughput (0.0006 msgs/node/cycle).
const RATE: f64 = 0.0012;

/// Forty times the saturation rate for the full 200 000 cycles: the queues
/// can never drain, but the fabric keeps moving — no deadlock, no router
/// error, and every flit that arrives is a correct, first delivery.
#[test]
fn torus16_far_past_saturation_200k_cycles() {
    let mut s = Scenario::default();
    s.network.topology = "torus:16x16".parse().unwrap();
    s.traffic.rate = 0.02;
    s.traffic.seed = 7;
    s.run.warmup = 10_000;
    s.run.cycles = 40_000;
    s.run.drain_cycles = 150_000;
    let t = std::time::Instant::now();
    let (net, r) = run(&s);
    // Measured: about 17 s wall.
    assert!(t.elapsed().as_secs() < 180);
    assert!(r.saturated);
    assert!(!r.deadlock, "{}", r.summary());
    assert_eq!(r.cycles, 200_000);
    assert_eq!(r.stop_reason, "end of drain");
    assert!(r.delivered_messages > 10_000);
    assert_eq!(
        r.delivered_messages + r.unfinished_messages,
        net.msgs.len() as u64
    );
    assert_eq!(r.lost_messages, 0);
    assert_eq!(r.duplicate_deliveries + r.misdelivered, 0);
    assert_eq!(r.corrupted_flits + r.truncated_messages, 0);
    assert_eq!(r.router_errors, 0);
}

fn json_without_wall(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    let o = v.as_object_mut().unwrap();
    assert!(o.remove("wall_seconds").is_some());
    assert!(o.remove("router_cycles_per_second").is_some());
    v
}

/// Same scenario and seed → identical JSON report (but the wall-clock
/// figures); another seed → a different one.
#[test]
fn same_seed_same_report_other_seed_differs() {
    let mut s = Scenario::default();
    s.network.topology = "torus:8x8".parse().unwrap();
    s.traffic.rate = 0.03;
    s.traffic.seed = 11;
    s.run.warmup = 2_000;
    s.run.cycles = 10_000;
    s.run.drain_cycles = 20_000;
    let (_, a) = run(&s);
    let (_, b) = run(&s);
    assert_eq!(json_without_wall(&a), json_without_wall(&b));
    s.traffic.seed = 12;
    let (_, c) = run(&s);
    assert_ne!(json_without_wall(&a), json_without_wall(&c));
    assert_ne!(
        a.injected_messages + a.latency.max,
        c.injected_messages + c.latency.max
    );
}
