//! The Roskind–Tarjan pairs are not binary and not rooted like DSTM's, yet
//! the same router must carry them: every scheme of §6 delivers a random
//! mixed load exactly, without deadlock or router errors.

use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

#[test]
fn every_tarjan_pair_carries_traffic_cleanly() {
    for scheme in ["tarjan-best:3:40", "tarjan-average:3:40", "tarjan-path"] {
        let sets: Vec<String> = vec![
            "network.topology=\"torus:6x6\"".into(),
            format!("network.construction=\"{scheme}\""),
            "traffic.rate=0.004".into(),
            "traffic.multicast_fraction=0.3".into(),
            "run.warmup=200".into(),
            "run.cycles=4000".into(),
        ];
        let sc = Scenario::from_toml("", &sets, "test").unwrap();
        let mut net = Network::new(&sc).unwrap();
        let r = net.run(&mut |_| true);
        assert!(
            !r.deadlock && r.stop_reason == "drained",
            "{scheme}: {}",
            r.summary()
        );
        assert!(r.injected_messages > 300, "{scheme}");
        assert_eq!(r.delivered_messages, r.injected_messages, "{scheme}");
        assert_eq!(
            r.router_errors
                + r.duplicate_deliveries
                + r.misdelivered
                + r.corrupted_flits
                + r.truncated_messages,
            0,
            "{scheme}"
        );
    }
}
