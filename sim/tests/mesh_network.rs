//! Path-based multidestination worms on the cycle model: every
//! worm of every scheme delivers exactly its destinations (proptest on random
//! meshes, sources and sets), heavy random load trips no deadlock detector,
//! and runs are deterministic.

use proptest::prelude::*;
use wormcast_sim::network::Network;
use wormcast_sim::pathbased::scheme::{encode, fits_routing, Scheme};
use wormcast_sim::scenario::{DestCount, Scenario};
use wormcast_sim::topology::{NodeId, Topology};
use wormcast_sim::treeworm::scheme::MeshScheme;

fn mesh_scenario(k: u32, m: u32, scheme: Scheme) -> Scenario {
    let mut s = Scenario::default();
    s.network.topology = format!("mesh:{k}x{m}").parse().unwrap();
    s.network.routing = scheme.routing().name().parse().unwrap();
    s.network.injection_channels = 4;
    s.network.consumption_channels = 4;
    s.traffic.multicast_scheme = scheme.name().parse().unwrap();
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A few concurrent messages of one scheme, each to a random set: every
    /// destination gets its message once, nobody else does, no router error.
    #[test]
    fn every_scheme_delivers_exactly(
        k in 3u32..=8, m in 3u32..=8, si in 0usize..Scheme::ALL.len(),
        msgs in prop::collection::vec((any::<u32>(), prop::collection::vec(any::<u32>(), 1..24), 2u32..12), 1..4),
        depth in 1usize..=3,
    ) {
        let scheme = Scheme::ALL[si];
        let mut s = mesh_scenario(k, m, scheme);
        s.traffic.pattern = "none".parse().unwrap();
        s.timing.startup_cycles = 0;
        s.network.buffer_depth = depth;
        let mut net = Network::new(&s).unwrap();
        let topo = net.v.topo;
        let n = topo.nodes();
        let mut ids = Vec::new();
        for (src, raw, len) in msgs {
            let src = if scheme.origin_only() { 0 } else { src % n };
            let mut dests: Vec<NodeId> = raw.iter().map(|r| r % n).filter(|&d| d != src).collect();
            dests.sort_unstable();
            dests.dedup();
            if dests.is_empty() {
                continue;
            }
            // Only multi-path (first hops off R) and xy-path (guiding-path
            // turns off XY) need waypoints; every other
            // scheme's worms follow their routing function between
            // destinations, as the papers assume.
            for w in scheme.worms(&topo, src, &dests).unwrap() {
                if scheme != Scheme::MultiPath && scheme != Scheme::XyPath {
                    prop_assert!(fits_routing(scheme.routing(), &topo, &w), "{:?}", w);
                }
                prop_assert!(encode(scheme.routing(), &topo, &w).len() >= w.dests.len());
            }
            ids.push((net.submit(src, dests.clone(), len, None).unwrap(), dests));
        }
        let mut cycles = 0;
        while !net.all_done() && cycles < 200_000 {
            net.step();
            cycles += 1;
        }
        prop_assert!(net.all_done(), "{:?} {}x{} did not drain", scheme, k, m);
        for (id, dests) in ids {
            let msg = &net.msgs[id as usize];
            prop_assert_eq!(&msg.dests, &dests);
            prop_assert!(msg.complete());
        }
        prop_assert_eq!(net.score.duplicates + net.score.misdelivered, 0);
        prop_assert_eq!(net.score.corrupted + net.score.truncated, 0);
        prop_assert!(net.fabric.state.iter().all(|st| st.err_count == 0));
    }
}

fn load_scenario(scheme: Scheme, k: u32, rate: f64, seed: u64) -> Scenario {
    let mut s = mesh_scenario(k, k, scheme);
    s.traffic.rate = rate;
    s.traffic.seed = seed;
    s.traffic.multicast_fraction = 0.5;
    s.traffic.destinations = DestCount::Range([2, 20]);
    s.traffic.length = 4;
    s.traffic.length_max = 24;
    s.timing.startup_cycles = 20;
    s.run.warmup = 0;
    s.run.cycles = 2500;
    s.run.drain_cycles = 200_000;
    s.run.deadlock_threshold = 400;
    s
}

/// Heavy random load (saturating) with every scheme the papers call
/// deadlock-free: no deadlock, everything delivered after the drain.
#[test]
fn heavy_load_no_deadlock() {
    for (i, scheme) in Scheme::ALL.into_iter().enumerate() {
        if scheme.origin_only() {
            continue; // single source only
        }
        let s = load_scenario(scheme, 8, 0.02, 100 + i as u64);
        let mut net = Network::new(&s).unwrap();
        let r = net.run(&mut |_| true);
        assert!(
            !r.deadlock,
            "{}: deadlock {:?}",
            scheme.name(),
            net.deadlock
        );
        assert_eq!(r.stop_reason, "drained", "{}", scheme.name());
        assert!(r.scoreboard_clean(), "{}", scheme.name());
        assert_eq!(r.router_errors, 0, "{}", scheme.name());
        assert_eq!(r.injected_messages, r.delivered_messages);
        assert!(r.delivered_messages > 500, "{}", scheme.name());
        assert!(
            r.saturated,
            "{}: the load is meant to saturate",
            scheme.name()
        );
    }
}

/// The same at buffer depths 1 and 4 on a 6×6 mesh, other seeds, longer
/// worms: shallow buffers stretch worms over more routers.
#[test]
fn heavy_load_no_deadlock_depths() {
    for depth in [1, 4] {
        for (i, scheme) in Scheme::ALL.into_iter().enumerate() {
            if scheme.origin_only() {
                continue;
            }
            let mut s = load_scenario(scheme, 6, 0.03, 300 + 10 * depth as u64 + i as u64);
            s.network.buffer_depth = depth;
            s.traffic.length_max = 40;
            s.run.cycles = 1500;
            let mut net = Network::new(&s).unwrap();
            let r = net.run(&mut |_| true);
            let what = format!("{} depth {depth}", scheme.name());
            assert!(!r.deadlock, "{what}: deadlock {:?}", net.deadlock);
            assert_eq!(r.stop_reason, "drained", "{what}");
            assert!(r.scoreboard_clean(), "{what}");
            assert_eq!(r.router_errors, 0, "{what}");
            assert!(r.saturated, "{what}: the load is meant to saturate");
        }
    }
}

/// LIN from the origin under scripted load: many multicasts at once.
#[test]
fn lin_scripted_burst() {
    let mut s = mesh_scenario(6, 6, Scheme::Lin);
    s.traffic.pattern = "none".parse().unwrap();
    let mut net = Network::new(&s).unwrap();
    let n = net.v.topo.nodes();
    for j in 0..20u32 {
        let dests: Vec<NodeId> = (1..n).filter(|d| (d * 7 + j) % 5 == 0).collect();
        net.submit(0, dests, 6, None).unwrap();
    }
    let mut c = 0;
    while !net.all_done() && c < 100_000 {
        net.step();
        c += 1;
    }
    assert!(net.all_done());
    assert!(net.msgs.iter().all(|m| m.complete()));
    assert_eq!(net.score, Default::default());
}

#[test]
fn deterministic() {
    let s = load_scenario(Scheme::BrcpPure, 6, 0.01, 7);
    let run = || {
        let mut net = Network::new(&s).unwrap();
        let mut r = net.run(&mut |_| true);
        r.wall_seconds = 0.0;
        r.router_cycles_per_second = 0.0;
        format!("{r:?}")
    };
    assert_eq!(run(), run());
}

/// The unicast of a scheme is one worm on its routing function.
#[test]
fn unicast_is_one_worm() {
    let topo = Topology::mesh(5, 4).unwrap();
    for scheme in Scheme::ALL {
        for (s, d) in [(0, 19), (19, 0), (7, 12), (12, 7)] {
            let w = scheme.worms(&topo, s, &[d]).unwrap();
            assert_eq!(w.len(), 1);
            assert_eq!(w[0].dests, vec![d]);
            assert!(fits_routing(scheme.routing(), &topo, &w[0]));
        }
    }
}

/// `Scheme::heads` gives a unicast its header without building the worm:
/// the same headers and class as `encode` of the worm `Scheme::worms`
/// builds, for every ordered pair of nodes and every scheme (so every mesh
/// routing function), on a square and a non-square mesh; the same errors
/// for a bad request.
#[test]
fn unicast_skips_the_route() {
    for (k, m) in [(5, 4), (4, 4), (3, 6)] {
        let topo = Topology::mesh(k, m).unwrap();
        let n = topo.nodes();
        for scheme in Scheme::ALL {
            for s in 0..n {
                for d in (0..n).filter(|&d| d != s) {
                    let w = scheme.worms(&topo, s, &[d]).unwrap();
                    let (heads, class) = scheme.heads(&topo, s, &[d]).unwrap();
                    assert_eq!(heads, vec![encode(scheme.routing(), &topo, &w[0])]);
                    assert_eq!(class, w[0].class, "{} {s}->{d}", scheme.name());
                }
            }
            for bad in [[0, 0], [0, n], [n, 1]] {
                let (s, d) = (bad[0], bad[1]);
                assert_eq!(
                    scheme.heads(&topo, s, &[d]).unwrap_err(),
                    scheme.worms(&topo, s, &[d]).unwrap_err()
                );
            }
        }
    }
}

/// \[BRCP\] Table 1: worms (= start-ups) per source for all-to-all
/// broadcast on an n×n mesh, max and mean over sources. Prints every value
/// (docs/results/mesh-brcp.md) and checks those the paper's formulas give.
#[test]
fn table1_startups_all_to_all() {
    for n in [4u32, 8, 16] {
        let topo = Topology::mesh(n, n).unwrap();
        let nf = n as f64;
        let paper = [
            (
                Scheme::BrcpPure,
                n,
                41.0 / 48.0 * nf - 3.0 / 8.0 - 1.0 / (6.0 * nf),
            ),
            (
                Scheme::BrcpMinimal,
                3 * n - 2,
                5.0 / 3.0 * nf - 2.0 + 4.0 / (3.0 * nf),
            ),
            (Scheme::DualPath, 2, 2.0 - 2.0 / (nf * nf)),
            (Scheme::ColumnPath, 2 * n, 2.0 * nf - 2.0),
        ];
        for (scheme, pmax, pmean) in paper {
            let counts: Vec<usize> = (0..topo.nodes())
                .map(|s| {
                    let d: Vec<NodeId> = (0..topo.nodes()).filter(|&v| v != s).collect();
                    scheme.multicast(&topo, s, &d).unwrap().worms.len()
                })
                .collect();
            let max = *counts.iter().max().unwrap();
            let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
            eprintln!(
                "table1 n={n} {}: max {max} (paper {pmax}), mean {mean:.4} (paper {pmean:.4})",
                scheme.name()
            );
            // Pure negative-first BRCP (Theorem 1's minimum) and the
            // Hamiltonian scheme match the paper exactly; minimal BRCP and
            // column-path differ by about one worm (docs/results/mesh-brcp.md).
            if matches!(scheme, Scheme::DualPath | Scheme::BrcpPure) {
                assert_eq!(max as u32, pmax);
                assert!((mean - pmean).abs() < 1e-9);
            }
        }
    }
}

/// Bad mesh scenario input: each error names its field; nothing panics.
#[test]
fn bad_mesh_input_names_the_field() {
    let load = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::from_toml("", &sets, "t.toml").and_then(|s| s.validate().map(|_| ()))
    };
    let mesh = "network.topology=mesh:6x6";
    for (sets, field) in [
        (vec!["network.routing=hamiltonian"], "network.routing"),
        (vec!["network.routing=negative_first"], "network.routing"),
        (vec![mesh, "network.routing=tree"], "network.topology"),
        (vec![mesh, "network.routing=spam"], "network.topology"),
        (vec![mesh, "network.routing=xy"], "network.routing"),
        (
            vec![
                mesh,
                "network.routing=dor",
                "traffic.multicast_scheme=brcp-pure",
            ],
            "traffic.multicast_scheme",
        ),
        (
            vec![
                mesh,
                "network.routing=hamiltonian",
                "traffic.multicast_scheme=xy-path",
            ],
            "traffic.multicast_scheme",
        ),
        (
            vec![
                mesh,
                "network.routing=hamiltonian",
                "traffic.multicast_scheme=nope",
            ],
            "traffic.multicast_scheme",
        ),
        (
            vec![
                mesh,
                "network.routing=hamiltonian",
                "traffic.multicast_scheme=lin",
            ],
            "traffic.multicast_scheme",
        ),
        (
            vec!["traffic.multicast_scheme=dual-path"],
            "traffic.multicast_scheme",
        ),
        (
            vec![
                mesh,
                "network.routing=dor",
                "traffic.length=20",
                "traffic.length_max=10",
            ],
            "traffic.length_max",
        ),
        (
            vec![
                mesh,
                "network.routing=dor",
                "network.faulty_links=[\"0,0,+x\"]",
            ],
            // Faults on a mesh need a fault-tolerant scheme.
            "traffic.multicast_scheme",
        ),
        (
            vec![
                "network.topology=mesh:64x64",
                "network.routing=dor",
                "network.flit_width=16",
            ],
            "network.flit_width",
        ),
    ] {
        let e = load(&sets).unwrap_err();
        assert_eq!(e.field, field, "{sets:?}: {e}");
    }
    // Scripted: a forced tree, and a LIN multicast away from the origin.
    let text = |extra: &str| {
        format!(
            "[network]\ntopology = \"mesh:4x4\"\nrouting = \"hamiltonian\"\n[traffic]\npattern = \"scripted\"\nmulticast_scheme = \"lin\"\n[[traffic.messages]]\ncycle = 0\n{extra}length = 4\n"
        )
    };
    for (extra, field) in [
        (
            "source = \"0,0\"\ndestinations = [\"1,1\"]\ntree = 0\n",
            "traffic.messages[0].tree",
        ),
        (
            "source = \"1,0\"\ndestinations = [\"1,1\", \"2,2\"]\n",
            "traffic.messages[0].source",
        ),
    ] {
        let e = Scenario::from_toml(&text(extra), &[], "t.toml")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.field, field);
    }
    // A LIN unicast from anywhere and a LIN multicast from 0,0 are fine.
    let ok = text("source = \"1,0\"\ndestinations = [\"1,1\"]\n");
    Scenario::from_toml(&ok, &[], "t.toml")
        .unwrap()
        .validate()
        .unwrap();
    // `auto` on a mesh picks the routing's default scheme.
    let s = Scenario::from_toml("", &[mesh.into(), "network.routing=dor".into()], "t").unwrap();
    assert_eq!(
        s.validate().unwrap().scheme,
        Some(MeshScheme::Path(Scheme::ColumnPath))
    );
    // The API: no destination, a forced tree, a destination off the mesh.
    let mut net = Network::new(&s).unwrap();
    assert_eq!(
        net.submit(0, vec![], 4, None).unwrap_err().field,
        "destinations"
    );
    assert_eq!(
        net.submit(0, vec![1], 4, Some(0)).unwrap_err().field,
        "tree"
    );
    assert_eq!(
        net.submit(0, vec![99], 4, None).unwrap_err().field,
        "destinations"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// XY-path (\[THESIS\] §3.3) worms from the origin, one message at a
    /// time on XY routing with waypoints at the guiding paths' turns: every
    /// destination receives the message exactly once.
    #[test]
    fn xy_path_worms_deliver_exactly_on_the_cycle_model(
        k in 2u32..=10, m in 2u32..=10,
        raw in prop::collection::vec(any::<u32>(), 1..30),
        len in 2u32..8,
    ) {
        let mut s = mesh_scenario(k, m, Scheme::XyPath);
        s.traffic.pattern = "none".parse().unwrap();
        s.timing.startup_cycles = 0;
        let mut net = Network::new(&s).unwrap();
        let n = net.v.topo.nodes();
        let mut dests: Vec<NodeId> = raw.iter().map(|r| r % n).filter(|&d| d != 0).collect();
        dests.sort_unstable();
        dests.dedup();
        prop_assume!(!dests.is_empty());
        let id = net.submit(0, dests.clone(), len, None).unwrap();
        let r = net.run(&mut |_| true);
        prop_assert_eq!(r.stop_reason.as_str(), "drained", "{}x{} {:?}", k, m, dests);
        let msg = &net.msgs[id as usize];
        prop_assert!(msg.delivered.iter().all(|&c| c != u64::MAX));
        prop_assert!(r.scoreboard_clean(), "{:?}", r);
        prop_assert_eq!(r.router_errors, 0);
    }
}

/// The thesis's worked example (10×10, s = 0,0, docs/references.md §B2: XY-path
/// traffic 18, longest path 12) delivered on the cycle model.
#[test]
fn xy_path_thesis_example_on_the_cycle_model() {
    let topo = Topology::mesh(10, 10).unwrap();
    let d: Vec<NodeId> = [(2, 0), (3, 1), (7, 2), (7, 5), (0, 4), (1, 3)]
        .iter()
        .map(|&(x, y)| topo.id(x, y))
        .collect();
    let m = Scheme::XyPath.multicast(&topo, 0, &d).unwrap();
    assert_eq!((m.traffic(), m.time()), (18, 12));
    let mut s = mesh_scenario(10, 10, Scheme::XyPath);
    s.traffic.pattern = "none".parse().unwrap();
    let mut net = Network::new(&s).unwrap();
    let mut sorted = d.clone();
    sorted.sort_unstable();
    net.submit(0, sorted, 16, None).unwrap();
    let r = net.run(&mut |_| true);
    assert_eq!(r.stop_reason, "drained");
    assert!(r.scoreboard_clean());
    assert_eq!(r.router_errors, 0);
    assert_eq!(r.delivered_messages, 1);
}

/// `Network::submit` (the API behind scripted traffic) refuses a message
/// too short for its identity BODY and TAIL instead of sending a worm the
/// NI cannot check.
#[test]
fn submit_rejects_a_one_flit_message() {
    let mut s = mesh_scenario(4, 4, Scheme::DualPath);
    s.traffic.pattern = "none".parse().unwrap();
    let mut net = Network::new(&s).unwrap();
    let e = net.submit(0, vec![5], 1, None).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("length", "1"));
    assert!(net.submit(0, vec![5], 2, None).is_ok());
}
