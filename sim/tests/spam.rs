//! SPAM baseline routing (native model): legal minimal tables, exact
//! delivery under random traffic, the consumption pool, and the header
//! setup delay (which applies to every routing kind).

use std::collections::VecDeque;
use wormcast_sim::config::RoutingKind;
use wormcast_sim::network::Network;
use wormcast_sim::router::spam::{self, Phase};
use wormcast_sim::scenario::{DestCount, Scenario};
use wormcast_sim::topology::{Dir, NodeId, Topology};

/// Independent brute force: forward BFS over (node, phase) states from
/// (u, p), moves allowed when the link type is ≥ the phase.
fn brute(t: &wormcast_sim::trees::SpanningTree, u: NodeId, p: Phase, target: NodeId) -> u32 {
    let n = t.topo.nodes() as usize;
    let mut dist = vec![u32::MAX; n * 3];
    let mut q = VecDeque::from([(u, p)]);
    dist[u as usize * 3 + p as usize] = 0;
    while let Some((x, ph)) = q.pop_front() {
        let dx = dist[x as usize * 3 + ph as usize];
        if x == target {
            return dx;
        }
        for d in Dir::ALL {
            let Some(lp) = spam::link_phase(t, x, d, &[]) else {
                continue;
            };
            if lp < ph {
                continue;
            }
            let y = t.topo.neighbor(x, d).unwrap();
            let s = y as usize * 3 + lp as usize;
            if dist[s] == u32::MAX {
                dist[s] = dx + 1;
                q.push_back((y, lp));
            }
        }
    }
    u32::MAX
}

#[test]
fn tables_give_legal_minimal_paths() {
    for (k, m, root) in [(4, 4, 0), (5, 4, 7), (3, 5, 2), (6, 6, 21)] {
        let topo = Topology::torus(k, m).unwrap();
        let t = spam::bfs_tree(&topo, root, &[]).unwrap();
        // BFS tree: tree depth = torus distance from the root.
        for u in 0..topo.nodes() {
            assert_eq!(t.depth[u as usize], topo.distance(root, u));
        }
        let tabs = spam::tables(&t, &[]);
        for u in 0..topo.nodes() {
            for target in (0..topo.nodes()).filter(|&x| x != u) {
                for p in Phase::ALL {
                    let want = brute(&t, u, p, target);
                    // Follow the tables, in the phase given by each input port.
                    let mut x = u;
                    let mut phase = p;
                    let mut hops = 0;
                    let mut input_phase_ok = true;
                    while x != target && hops <= want {
                        let e = tabs[x as usize].next[t.number[target as usize] as usize]
                            [phase as usize];
                        if e == spam::NO_PORT {
                            break;
                        }
                        let d = Dir::from_index(e as usize);
                        let lp = spam::link_phase(&t, x, d, &[]).unwrap();
                        assert!(lp >= phase, "illegal phase order at {x}");
                        let y = topo.neighbor(x, d).unwrap();
                        // The arrival port's static phase is the link's type.
                        input_phase_ok &= tabs[y as usize].in_phase[d.opposite().index()] == lp;
                        x = y;
                        phase = lp;
                        hops += 1;
                    }
                    assert!(input_phase_ok);
                    if want == u32::MAX {
                        assert_ne!(p, Phase::Up, "up phase always reaches");
                        assert_ne!(x, target);
                    } else {
                        assert_eq!(x, target, "{k}x{m} {u}->{target} {p:?}");
                        assert_eq!(hops, want, "{k}x{m} {u}->{target} {p:?}");
                    }
                }
            }
        }
    }
}

fn spam_scenario(topo: &str, rate: f64, seed: u64) -> Scenario {
    let mut s = Scenario::default();
    s.network.topology = topo.parse().unwrap();
    s.network.routing = "spam".parse().unwrap();
    s.network.construction = "bfs".into();
    s.traffic.rate = rate;
    s.traffic.seed = seed;
    s.traffic.length = 8;
    s.traffic.multicast_fraction = 0.3;
    s.traffic.destinations = DestCount::Range([2, 10]);
    s.run.warmup = 200;
    s.run.cycles = 3000;
    s.run.drain_cycles = 200_000;
    s
}

fn check_exact(s: &Scenario) -> wormcast_sim::network::stats::Report {
    let mut net = Network::new(s).unwrap();
    assert_eq!(net.v.params.routing, RoutingKind::Spam);
    assert_eq!(net.v.params.classes, 1);
    let r = net.run(&mut |_| true);
    assert!(!r.deadlock, "{}: deadlock", s.network.topology);
    assert_eq!(r.router_errors, 0);
    assert_eq!(r.stop_reason, "drained");
    assert_eq!(r.injected_messages, r.delivered_messages);
    assert_eq!(r.lost_messages + r.unfinished_messages, 0);
    assert_eq!(r.duplicate_deliveries + r.misdelivered, 0);
    assert_eq!(r.corrupted_flits + r.truncated_messages, 0);
    r
}

#[test]
fn random_traffic_delivered_exactly() {
    let mut seed = 11;
    for topo in ["torus:4x4", "torus:5x6", "torus:8x8", "torus:7x5"] {
        for rate in [0.005, 0.03] {
            seed += 1;
            let s = spam_scenario(topo, rate, seed);
            let r = check_exact(&s);
            assert!(r.delivered_messages > 50, "{topo} {rate}");
        }
    }
}

#[test]
fn spam_on_tree_zero_of_a_construction() {
    let mut s = spam_scenario("torus:6x6", 0.01, 5);
    s.network.construction = "dstm2".into();
    check_exact(&s);
}

#[test]
fn high_load_16x16_no_deadlock() {
    let mut s = spam_scenario("torus:16x16", 0.02, 9);
    s.traffic.length = 16;
    s.traffic.multicast_fraction = 0.1;
    s.traffic.destinations = DestCount::Fixed(48);
    s.run.warmup = 0;
    s.run.cycles = 1500;
    let r = check_exact(&s);
    assert!(r.saturated, "the load is meant to saturate SPAM");
}

#[test]
fn two_worms_consumed_at_once() {
    let mut s = spam_scenario("torus:4x4", 0.0, 1);
    s.traffic.pattern = "scripted".parse().unwrap();
    s.timing.startup_cycles = 0;
    let msg = |src: &str| {
        toml::from_str::<wormcast_sim::scenario::ScriptedMessage>(&format!(
            "cycle = 0\nsource = \"{src}\"\ndestinations = [\"1,1\"]\nlength = 64"
        ))
        .unwrap()
    };
    s.traffic.messages = vec![msg("0,1"), msg("2,1")];
    let mut net = Network::new(&s).unwrap();
    let dest = net.v.topo.id(1, 1) as usize;
    let mut both = 0;
    for _ in 0..2000 {
        net.step();
        let o = &net.fabric.state[dest].out;
        both += (o[4].valid && o[5].valid) as u32;
        if net.all_done() {
            break;
        }
    }
    assert!(net.all_done());
    assert!(
        both > 30,
        "both consumption channels busy together {both} cycles"
    );
    assert_eq!(net.score.duplicates + net.score.corrupted, 0);
}

/// Cycle at which a worm's first data flit reaches the target's consumption
/// channel, and the number of hops its path takes, for a unicast from 0,0.
fn unicast_arrival(routing: &str, setup: u32, x: u32) -> (u64, u64) {
    let mut s = Scenario::default();
    s.network.topology = "torus:8x8".parse().unwrap();
    s.network.routing = routing.parse().unwrap();
    if routing == "spam" {
        s.network.construction = "bfs".into();
    }
    s.network.header_setup_cycles = setup;
    s.timing.startup_cycles = 0;
    s.traffic.pattern = "scripted".parse().unwrap();
    s.traffic.messages = vec![toml::from_str(&format!(
        "cycle = 0\nsource = \"0,0\"\ndestinations = [\"{x},0\"]\nlength = 4"
    ))
    .unwrap()];
    let mut net = Network::new(&s).unwrap();
    let dest = net.v.topo.id(x, 0);
    // Tree routing: the shorter tree; SPAM: the BFS tree is rooted at the
    // source, so its legal minimal path is the tree path.
    let hops = net.trees.iter().map(|t| t.distance(0, dest)).min().unwrap() as u64;
    for _ in 0..1000 {
        net.step();
        let o = &net.fabric.state[dest as usize].out;
        if o[4].valid || o[5].valid {
            return (net.cycle(), hops);
        }
    }
    panic!("no arrival");
}

#[test]
fn setup_delay_adds_per_hop() {
    for routing in ["tree", "spam"] {
        for x in [1, 3, 4] {
            let (a0, h) = unicast_arrival(routing, 0, x);
            for setup in [1u32, 4] {
                let (a, h2) = unicast_arrival(routing, setup, x);
                assert_eq!(h, h2);
                // Every router that decodes the first HEAD (the h - 1
                // intermediate ones, the source's and the target's) waits
                // `setup` cycles more: 3 + setup cycles per intermediate hop.
                assert_eq!(
                    a - a0,
                    setup as u64 * (h + 1),
                    "{routing} x={x} setup {setup}"
                );
            }
        }
    }
}

#[test]
fn malformed_and_pool_decisions() {
    use wormcast_sim::config::{RouterConfig, RouterParams};
    use wormcast_sim::flit::{FlitFormat, Head};
    use wormcast_sim::router::routing::first_head;
    use wormcast_sim::router::RouterError;
    let topo = Topology::torus(4, 4).unwrap();
    let t = spam::bfs_tree(&topo, 0, &[]).unwrap();
    let p = RouterParams {
        routing: RoutingKind::Spam,
        classes: 1,
        ..RouterParams::default()
    };
    let cfg = RouterConfig::for_spam(&topo, &t, &p, &[]).unwrap();
    let fmt = FlitFormat::default();
    let hd = |node: NodeId, c: bool, o: u8, s: bool| {
        fmt.head(Head {
            node: t.number[node as usize],
            c,
            o,
            s,
            class: 0,
        })
    };
    let inj = 4;
    // Consumption pool: the lowest free channel, else channel 0.
    let u = 5;
    let c = &cfg[u as usize];
    assert_eq!(
        first_head(c, &p, inj, hd(u, true, 0, false), 0),
        Ok((1 << 4, true, 0))
    );
    assert_eq!(
        first_head(c, &p, inj, hd(u, true, 0, false), 1 << 4),
        Ok((1 << 5, true, 0))
    );
    assert_eq!(
        first_head(c, &p, inj, hd(u, true, 0, false), 3 << 4),
        Ok((1 << 4, true, 0))
    );
    // O bits must name tree child ports: a cross link or the parent is bad.
    let mut checked = 0;
    for u in 0..topo.nodes() {
        let tab = t.table(u);
        for d in Dir::ALL {
            let f = hd(u, true, 1 << d.index(), false);
            let r = first_head(&cfg[u as usize], &p, inj, f, 0);
            if tab.child[d.index()].is_some() {
                assert_eq!(r, Ok((1 << 4 | 1 << d.index(), true, 0)));
            } else {
                assert_eq!(r, Err(RouterError::BadLink));
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    // A down-tree input: a target not below cannot be reached (S = 0) and an
    // S = 1 HEAD would have to go up.
    let mut down_tree_inputs = 0;
    for u in 1..topo.nodes() {
        let d = t.parent_port[u as usize].unwrap();
        let Some(target) = (0..topo.nodes()).find(|&x| !t.is_ancestor(u, x)) else {
            continue;
        };
        for s in [false, true] {
            let r = first_head(&cfg[u as usize], &p, d.index(), hd(target, true, 0, s), 0);
            assert_eq!(r, Err(RouterError::DownPhaseUp), "{u} -> {target} S={s}");
        }
        // From the injection port (phase up) the same HEAD is fine.
        assert!(first_head(&cfg[u as usize], &p, inj, hd(target, true, 0, false), 0).is_ok());
        down_tree_inputs += 1;
    }
    assert!(down_tree_inputs > 10);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    /// Random tori 4×4..8×8, random loads and multicast mixes, root anywhere:
    /// SPAM delivers every message exactly once, with no deadlock and no
    /// router error.
    #[test]
    fn random_spam_networks_deliver_exactly(
        k in 4u32..=8, m in 4u32..=8, seed in 0u64..1000,
        rate in 0.002f64..0.04, mc in 0.0f64..=1.0,
        rx in 0u32..8, ry in 0u32..8, setup in 0u32..3,
    ) {
        let mut s = spam_scenario(&format!("torus:{k}x{m}"), rate, seed);
        s.traffic.multicast_fraction = mc;
        s.traffic.destinations = DestCount::Range([2, (k * m / 2).min(12)]);
        s.network.r1 = format!("{},{}", rx % k, ry % m);
        s.network.header_setup_cycles = setup;
        s.run.cycles = 1500;
        check_exact(&s);
    }
}
