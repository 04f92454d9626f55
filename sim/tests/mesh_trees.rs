//! Tree multicast on the cycle model: the thesis trees (VH, DIAG,
//! DDS, MIN) and \[FTTREE\]'s fault-tolerant trees (Strategies 1–3, multiple
//! unicast) as worms on mesh routers. Every worm set delivers exactly its
//! destinations (scoreboard clean, no router error) on random fault-free and
//! faulty meshes; no flit ever enters a faulty or disabled node; runs are
//! deterministic; bad input is an `InputError`.

use proptest::prelude::*;
use wormcast_sim::ftmesh::{reachable, FaultyMesh};
use wormcast_sim::network::stats::Report;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;
use wormcast_sim::topology::{Dir, NodeId, Topology};
use wormcast_sim::treeworm::scheme::MeshScheme;

const TREES: [&str; 8] = [
    "vh",
    "diag",
    "dds",
    "min",
    "ft-s1",
    "ft-s2",
    "ft-s3",
    "ft-unicast",
];

fn scenario(k: u32, m: u32, scheme: &str, routing: &str, faults: &[(u32, u32)]) -> Scenario {
    let mut s = Scenario::default();
    s.network.topology = format!("mesh:{k}x{m}").parse().unwrap();
    s.network.routing = routing.parse().unwrap();
    s.network.injection_channels = 4;
    s.network.consumption_channels = 4;
    s.network.faulty_nodes = faults.iter().map(|(x, y)| format!("{x},{y}")).collect();
    s.traffic.multicast_scheme = scheme.parse().unwrap();
    s
}

/// No flit left or entered an excluded node: the routers' per-output
/// counters of every link touching one are 0.
fn no_flit_through_excluded(net: &Network) -> bool {
    let topo = net.v.topo;
    (0..topo.nodes()).all(|u| {
        Dir::ALL.into_iter().all(|d| {
            let touches =
                net.v.excluded(u) || topo.neighbor(u, d).is_some_and(|v| net.v.excluded(v));
            !touches || net.fabric.sent[u as usize][d.index()] == 0
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A few messages of one tree scheme on a random mesh (faulty for the
    /// ft-* schemes), first one after another (each drained before the next
    /// starts), then all at once. One at a time: each destination gets its
    /// message once, nobody else does, no router error, no flit through a
    /// faulty/disabled node. All at once: the same, unless the deadlock
    /// detector finds a worm cycle (tree worms hold several branches, so
    /// they can deadlock; see `two_dds_trees_deadlock`).
    #[test]
    fn tree_schemes_deliver_exactly(
        k in 3u32..=8, m in 3u32..=8, si in 0usize..TREES.len(), nf in any::<bool>(),
        raw_faults in prop::collection::vec((any::<u32>(), any::<u32>()), 0..6),
        msgs in prop::collection::vec((any::<u32>(), prop::collection::vec(any::<u32>(), 1..20), 2u32..10), 1..4),
        depth in 1usize..=3,
    ) {
        let name = TREES[si];
        let ft = name.starts_with("ft");
        let topo = Topology::mesh(k, m).unwrap();
        let mut faults: Vec<(u32, u32)> = if ft {
            raw_faults.iter().map(|&(x, y)| (x % k, y % m)).collect()
        } else {
            Vec::new()
        };
        let fm = FaultyMesh::new(topo, &faults).unwrap();
        let healthy: Vec<NodeId> =
            (0..topo.nodes()).filter(|&u| !fm.is_blocked(topo.coord(u))).collect();
        if healthy.len() < 2 {
            faults.clear();
        }
        let fm = FaultyMesh::new(topo, &faults).unwrap();
        let healthy: Vec<NodeId> =
            (0..topo.nodes()).filter(|&u| !fm.is_blocked(topo.coord(u))).collect();
        let routing = if nf { "negative_first" } else { "dor" };
        let mut s = scenario(k, m, name, routing, &faults);
        s.traffic.pattern = "none".parse().unwrap();
        s.timing.startup_cycles = 0;
        s.network.buffer_depth = depth;
        let h = healthy.len() as u32;
        let mut plan = Vec::new();
        for (src, raw, len) in msgs {
            let src = healthy[(src % h) as usize];
            let mut dests: Vec<NodeId> = raw
                .iter()
                .map(|r| healthy[(r % h) as usize])
                .filter(|&d| d != src && reachable(&fm, topo.coord(src), topo.coord(d)))
                .collect();
            dests.sort_unstable();
            dests.dedup();
            if dests.is_empty() {
                continue;
            }
            plan.push((src, dests, len));
        }
        for concurrent in [false, true] {
            let mut net = Network::new(&s).unwrap();
            let mut ids = Vec::new();
            let mut deadlock = false;
            for (i, (src, dests, len)) in plan.iter().enumerate() {
                ids.push((net.submit(*src, dests.clone(), *len, None).unwrap(), dests));
                let last = i + 1 == plan.len();
                let mut cycles = 0u64;
                // One message of a tree scheme can be several worms (paper
                // 002's strategies split the destinations), sent at once:
                // they load the mesh like concurrent messages and may
                // deadlock one another (`lone_ft_s1_message_of_five_worms_deadlocks`).
                // A lone single-worm message must drain.
                let worms = net.msgs[ids[i].0 as usize].heads.len();
                while (last || !concurrent) && !net.all_done() && cycles < 200_000 {
                    net.step();
                    cycles += 1;
                    if (concurrent || worms > 1) && cycles.is_multiple_of(256) && net.check_deadlock() {
                        deadlock = true;
                        break;
                    }
                }
            }
            prop_assert!(net.all_done() || deadlock,
                "{} {}x{} faults {:?} did not drain (concurrent {})", name, k, m, faults, concurrent);
            prop_assert_eq!(ids.len(), plan.len());
            if !deadlock {
                for (id, dests) in ids {
                    let msg = &net.msgs[id as usize];
                    prop_assert_eq!(&msg.dests, dests);
                    prop_assert!(msg.complete());
                }
            }
            prop_assert_eq!(net.score.duplicates + net.score.misdelivered, 0);
            prop_assert_eq!(net.score.corrupted + net.score.truncated, 0);
            prop_assert!(net.fabric.state.iter().all(|st| st.err_count == 0));
            prop_assert!(no_flit_through_excluded(&net));
        }
    }
}

fn faulty_8x8(scheme: &str) -> Scenario {
    let faults = [(2, 2), (3, 3), (5, 1), (6, 6), (1, 5)];
    let mut s = scenario(8, 8, scheme, "dor", &faults);
    s.network.faulty_links = vec!["4,5,+x".parse().unwrap()];
    s.traffic.rate = 0.002;
    s.traffic.multicast_fraction = 0.5;
    s.traffic.destinations = wormcast_sim::scenario::DestCount::Range([2, 6]);
    s.traffic.seed = 5;
    s.run.warmup = 500;
    s.run.cycles = 4_000;
    s
}

/// Runs `s`; tree worms under concurrent load may deadlock (a result, not
/// a failure), but the run must then report the cycle, else drain.
fn run_to_drain_or_deadlock(s: &Scenario, name: &str) -> (Network, Report) {
    let mut net = Network::new(s).unwrap();
    let r = net.run(&mut |_| true);
    assert!(
        r.stop_reason == "drained" || (r.deadlock && !r.deadlock_cycle.is_empty()),
        "{name}: {}",
        r.summary()
    );
    (net, r)
}

/// Random traffic on a faulty 8×8 mesh: every ft scheme ends drained or in
/// a detected deadlock (a result, not a failure: docs/results/
/// mesh-trees-latency.md) with a clean scoreboard, cuts out the faulty and disabled nodes (here (2,2)+(3,3)
/// disable (2,3) and (3,2); the link fault takes (5,5), which with (6,6)
/// disables (5,6) and (6,5): 10 nodes), never sends a flit
/// through them, and drops (and counts) unreachable destinations.
#[test]
fn faulty_mesh_random_traffic() {
    for name in ["ft-s1", "ft-s2", "ft-s3", "ft-unicast"] {
        let s = faulty_8x8(name);
        let (net, r) = run_to_drain_or_deadlock(&s, name);
        assert!(r.scoreboard_clean(), "{name}: {}", r.summary());
        assert_eq!(r.router_errors, 0, "{name}");
        assert_eq!(r.excluded_nodes, 10, "{name}");
        assert!(r.delivered_messages > 20, "{name}: {}", r.summary());
        eprintln!("{name}: {}", r.summary());
        assert!(no_flit_through_excluded(&net), "{name}");
        for m in &net.msgs {
            assert!(!net.v.excluded(m.source));
            assert!(m.dests.iter().all(|&d| !net.v.excluded(d)));
        }
        if name == "ft-unicast" {
            assert!(r.worms_per_message > 1.5, "{}", r.worms_per_message);
        }
    }
}

/// Rates on a faulty mesh are per node that has traffic: the 54 healthy
/// nodes of `faulty_8x8` offer the configured rate (not rate × 54/64), and
/// the per-source minimum is over them only.
#[test]
fn faulty_mesh_rates_count_healthy_nodes() {
    let mut s = faulty_8x8("ft-unicast");
    s.traffic.rate = 0.0005;
    s.run.cycles = 20_000;
    let mut net = Network::new(&s).unwrap();
    let r = net.run(&mut |_| true);
    eprintln!("{}", r.summary());
    assert!(!r.deadlock);
    let rel = (r.offered_messages_per_node_cycle - 0.0005).abs() / 0.0005;
    assert!(rel < 0.10, "offered {}", r.offered_messages_per_node_cycle);
    assert!(r.source_throughput_min > 0.0, "{}", r.source_throughput_min);
}

/// Same scenario, same report (per-message seeds, seeded generators).
#[test]
fn deterministic() {
    let run = || {
        let mut net = Network::new(&faulty_8x8("ft-s1")).unwrap();
        let mut r = net.run(&mut |_| true);
        r.wall_seconds = 0.0;
        r.router_cycles_per_second = 0.0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(run(), run());
}

/// Thesis trees under load on a fault-free mesh: drained or a detected
/// deadlock (the thesis's trees are not deadlock-free as worms on XY
/// routers), never a wrong delivery or a router error.
#[test]
fn thesis_trees_under_load() {
    for name in ["vh", "diag", "dds", "min"] {
        let mut s = scenario(8, 8, name, "dor", &[]);
        s.traffic.rate = 0.003;
        s.traffic.multicast_fraction = 0.5;
        s.traffic.destinations = wormcast_sim::scenario::DestCount::Range([2, 10]);
        s.run.warmup = 500;
        s.run.cycles = 3_000;
        let (_, r) = run_to_drain_or_deadlock(&s, name);
        assert!(r.scoreboard_clean() && r.router_errors == 0, "{name}");
        assert!(r.delivered_messages > 20, "{name}: {}", r.summary());
    }
}

/// The smallest tree-worm deadlock the proptest found (3×5 mesh, DDS, XY):
/// message 0 from (1,1) to (0,4), (1,2) and message 1 from (0,1) to (1,2),
/// (1,1), (0,3), sent in the same cycle. Each alone drains; together each
/// holds one of the links (1,1)→(1,2), (0,1)→(0,2) the other needs next
/// (a two-worm cycle through the injection inputs of (1,1) and (0,1)).
#[test]
fn two_dds_trees_deadlock() {
    let mut s = scenario(3, 5, "dds", "dor", &[]);
    s.traffic.pattern = "none".parse().unwrap();
    s.timing.startup_cycles = 0;
    let topo = Topology::mesh(3, 5).unwrap();
    let id = |x, y| topo.id(x, y);
    let m0 = (id(1, 1), vec![id(0, 4), id(1, 2)], 3);
    let m1 = (id(0, 1), vec![id(1, 2), id(1, 1), id(0, 3)], 6);
    let run = |msgs: &[&(NodeId, Vec<NodeId>, u32)]| {
        let mut net = Network::new(&s).unwrap();
        for (src, d, len) in msgs {
            net.submit(*src, d.clone(), *len, None).unwrap();
        }
        for c in 1..5_000u64 {
            net.step();
            if c.is_multiple_of(256) && net.check_deadlock() {
                break;
            }
            if net.all_done() {
                break;
            }
        }
        net
    };
    assert!(run(&[&m0]).all_done());
    assert!(run(&[&m1]).all_done());
    let net = run(&[&m0, &m1]);
    let cycle = net.deadlock.expect("the two trees deadlock");
    let msgs: std::collections::BTreeSet<_> = cycle.iter().filter_map(|w| w.message).collect();
    assert_eq!(msgs.into_iter().collect::<Vec<_>>(), vec![0, 1]);
    assert!(cycle.iter().any(|w| w.router == (1, 1)) && cycle.iter().any(|w| w.router == (0, 1)));
    // The report names the node a waiting HEAD addresses, not only its mesh
    // address: message 0's HEAD for (0,4) is packed address 4 << 2 = 16.
    let w0 = cycle.iter().find(|w| w.message == Some(0)).unwrap();
    assert!(
        w0.head_flit.starts_with("HEAD node=16 (0,4) "),
        "{}",
        w0.head_flit
    );
}

fn err_field(s: &Scenario) -> String {
    match Network::new(s) {
        Ok(_) => "ok".into(),
        Err(e) => e.field,
    }
}

#[test]
fn bad_input() {
    let script = |s: &mut Scenario, src: &str, dests: &[&str]| {
        s.traffic.pattern = "scripted".parse().unwrap();
        s.traffic.messages = vec![wormcast_sim::scenario::ScriptedMessage {
            cycle: 0,
            source: src.into(),
            destinations: dests.iter().map(|d| d.to_string()).collect(),
            length: 4,
            tree: None,
        }];
    };
    // A faulty or disabled source / destination in a scripted message.
    let mut s = scenario(6, 6, "ft-s3", "dor", &[(1, 1), (2, 2)]);
    script(&mut s, "1,1", &["4,4"]);
    assert_eq!(err_field(&s), "traffic.messages[0].source");
    script(&mut s, "0,0", &["1,2"]); // disabled by (1,1)+(2,2)
    assert_eq!(err_field(&s), "traffic.messages[0].destinations");
    // A destination without a fault-free minimal path: reported, no panic.
    let mut s = scenario(6, 6, "ft-s2", "dor", &[(1, 0)]);
    script(&mut s, "0,0", &["3,0"]);
    assert_eq!(err_field(&s), "destinations");
    script(&mut s, "0,0", &["3,1"]);
    assert_eq!(err_field(&s), "ok");
    // The API: a faulty destination, an unreachable one.
    let mut s = scenario(6, 6, "ft-s1", "dor", &[(1, 0)]);
    s.traffic.pattern = "none".parse().unwrap();
    let mut net = Network::new(&s).unwrap();
    assert_eq!(
        net.submit(0, vec![1], 4, None).unwrap_err().field,
        "destinations"
    );
    assert_eq!(net.submit(1, vec![3], 4, None).unwrap_err().field, "source");
    assert_eq!(
        net.submit(0, vec![3], 4, None).unwrap_err().field,
        "destinations"
    );
    // Off-mesh or self destinations, for a thesis tree and an ft tree.
    for name in ["vh", "ft-s3"] {
        let mut s = scenario(4, 4, name, "dor", &[]);
        s.traffic.pattern = "none".parse().unwrap();
        let mut net = Network::new(&s).unwrap();
        assert!(net.submit(0, vec![99], 4, None).is_err(), "{name}");
        assert!(net.submit(5, vec![5], 4, None).is_err(), "{name}");
        assert!(net.submit(0, vec![], 4, None).is_err(), "{name}");
        assert!(net.submit(0, vec![5, 6], 4, None).is_ok(), "{name}");
    }
    // Faults need a fault-tolerant scheme; tree schemes need dor or
    // negative_first; faulty nodes are for meshes; bad coordinates.
    let s = scenario(6, 6, "diag", "dor", &[(3, 3)]);
    assert_eq!(err_field(&s), "traffic.multicast_scheme");
    let s = scenario(6, 6, "column-path", "dor", &[(3, 3)]);
    assert_eq!(err_field(&s), "traffic.multicast_scheme");
    let s = scenario(6, 6, "vh", "hamiltonian", &[]);
    assert_eq!(err_field(&s), "traffic.multicast_scheme");
    let s = scenario(6, 6, "ft-s3", "hamiltonian", &[(3, 3)]);
    assert_eq!(err_field(&s), "network.routing");
    let mut s = Scenario::default();
    s.network.faulty_nodes = vec!["1,1".into()];
    assert_eq!(err_field(&s), "network.faulty_nodes");
    let s = scenario(6, 6, "ft-s3", "dor", &[(9, 1)]);
    assert_eq!(err_field(&s), "network.faulty_nodes");
    let mut s = scenario(6, 6, "ft-s3", "dor", &[]);
    s.network.faulty_nodes = vec!["x".into()];
    assert_eq!(err_field(&s), "network.faulty_nodes");
    s.network.faulty_nodes.clear();
    s.network.faulty_links = vec!["5,0,+x".parse().unwrap()];
    assert_eq!(err_field(&s), "network.faulty_links");
    // Several faulty links are fine on a mesh (a torus keeps its one).
    s.network.faulty_links = vec![
        "0,0,+x".parse().unwrap(),
        "3,3,+y".parse().unwrap(),
        "4,1,-x".parse().unwrap(),
    ];
    assert_eq!(err_field(&s), "ok");
    // Faults that leave fewer than two healthy nodes.
    let all: Vec<(u32, u32)> = (0..3).flat_map(|x| (0..3).map(move |y| (x, y))).collect();
    let s = scenario(3, 3, "ft-s3", "dor", &all);
    assert_eq!(err_field(&s), "network.faulty_nodes");
    // Names: every tree scheme parses for dor and negative_first.
    for name in TREES {
        for r in ["dor", "negative_first"] {
            let s = scenario(5, 5, name, r, &[]);
            assert_eq!(err_field(&s), "ok", "{name} {r}");
        }
    }
    assert!(MeshScheme::all().iter().any(|k| k.name() == "ft-unicast"));
}

/// The case a random proptest run found (CI, 2026-11-25): one `ft-s1`
/// message on a 6×7 mesh with faulty nodes (4,1) and (0,0), from (1,0) to
/// eleven nodes, is five tree worms sent at once from four injection
/// channels. With depth-1 buffers they deadlock one another, and the
/// runtime detector finds the cycle; the same destinations sent as one
/// worm per message, one after another, all drain. Tree worms of one
/// message load the mesh like concurrent messages (docs/decisions.md,
/// "Several tree worms of one message").
#[test]
fn lone_ft_s1_message_of_five_worms_deadlocks() {
    let mut s = scenario(6, 7, "ft-s1", "dor", &[(4, 1), (0, 0)]);
    s.traffic.pattern = "none".parse().unwrap();
    s.timing.startup_cycles = 0;
    s.network.buffer_depth = 1;
    let topo = Topology::mesh(6, 7).unwrap();
    let at = |x, y| topo.node_at(x, y, "test").unwrap();
    let dests: Vec<NodeId> = [
        (4, 0),
        (1, 1),
        (0, 2),
        (3, 2),
        (4, 2),
        (2, 3),
        (3, 3),
        (3, 4),
        (4, 5),
        (5, 5),
        (2, 6),
    ]
    .iter()
    .map(|&(x, y)| at(x, y))
    .collect();
    let mut net = Network::new(&s).unwrap();
    let id = net.submit(at(1, 0), dests.clone(), 4, None).unwrap();
    assert_eq!(net.msgs[id as usize].heads.len(), 5, "five worms");
    let mut found = false;
    for c in 1..=20_000u64 {
        net.step();
        if c.is_multiple_of(256) && net.check_deadlock() {
            found = true;
            break;
        }
    }
    assert!(
        found && !net.all_done(),
        "the five worms deadlock and the detector reports it"
    );
    assert!(net.fabric.state.iter().all(|st| st.err_count == 0));
    // One destination at a time: every worm drains alone.
    let mut net = Network::new(&s).unwrap();
    for d in dests {
        let id = net.submit(at(1, 0), vec![d], 4, None).unwrap();
        let mut c = 0;
        while !net.all_done() && c < 20_000 {
            net.step();
            c += 1;
        }
        assert!(
            net.msgs[id as usize].complete(),
            "unicast to {:?} drains",
            topo.coord(d)
        );
    }
}
