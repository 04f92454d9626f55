//! Collectives (`traffic.collective`, `network::collective`): the run
//! stops when the collective completes, the completion time is never below
//! the lower bound on any topology or scheme, the bound's per-hop figures
//! are exactly the cycle model's for a free unicast, and bad keys are
//! refused by name. The bound's hand-checked values on small networks
//! are the unit tests of `network::collective`.

use wormcast_sim::network::collective::{lower_bound, CollectiveKind};
use wormcast_sim::network::collective_run::bound_params;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

mod common;
use common::scenario_with as scenario;

fn refused(sets: &[&str]) -> wormcast_sim::error::InputError {
    match scenario(sets).validate() {
        Err(e) => e,
        Ok(_) => panic!("{sets:?} was accepted"),
    }
}

/// The bound's unicast time is what the cycle model gives a lone unicast
/// on a minimal path (XY mesh), for every distance, depth, header setup
/// delay and start-up: the bound's per-hop costs are the router's.
#[test]
fn the_bound_unicast_time_is_the_cycle_models() {
    for depth in [1, 2, 4] {
        for setup in [0, 3] {
            for startup in [0, 10] {
                for length in [2, 9] {
                    let mut sc = scenario(&["traffic.pattern=\"none\"", "run.warmup=0"]);
                    sc.network.topology = "mesh:6x5".parse().unwrap();
                    sc.network.routing = "dor".parse().unwrap();
                    sc.network.buffer_depth = depth;
                    sc.network.header_setup_cycles = setup;
                    sc.timing.startup_cycles = startup;
                    sc.traffic.length = length;
                    let net0 = Network::new(&sc).unwrap();
                    let p = bound_params(&net0.v, &sc);
                    for d in [1, 4, 7, 29] {
                        let mut net = Network::new(&sc).unwrap();
                        let id = net.submit(0, vec![d], length, None).unwrap();
                        net.run(&mut |_| true);
                        let m = &net.msgs[id as usize];
                        let h = net.v.topo.distance(0, d) as u64;
                        assert_eq!(
                            m.finished().unwrap() - m.created,
                            p.unicast_time(h),
                            "depth {depth} setup {setup} startup {startup} length {length} to {d}"
                        );
                    }
                }
            }
        }
    }
}

/// Completion ≥ bound for every kind on tori and meshes, every scheme
/// family, several timings; the run stops at the completion, which is the
/// last delivery of the collective's messages.
#[test]
fn completion_is_never_below_the_bound() {
    let nets: [&[&str]; 7] = [
        &["network.topology=\"torus:4x4\""],
        &[
            "network.topology=\"torus:6x4\"",
            "network.construction=\"dstm2\"",
        ],
        &[
            "network.topology=\"torus:8x8\"",
            "network.routing=\"spam\"",
            "network.construction=\"bfs\"",
        ],
        &["network.topology=\"mesh:5x3\"", "network.routing=\"dor\""],
        &[
            "network.topology=\"mesh:6x6\"",
            "network.routing=\"hamiltonian\"",
        ],
        &[
            "network.topology=\"mesh:6x6\"",
            "network.routing=\"negative_first\"",
            "traffic.multicast_scheme=\"brcp-minimal\"",
        ],
        // (The thesis trees, e.g. `vh`, can deadlock under an all-gather's
        // replication: docs/results/multicast-workloads.md.)
        &[
            "network.topology=\"mesh:4x4\"",
            "network.routing=\"hamiltonian\"",
            "traffic.multicast_scheme=\"dual-path\"",
        ],
    ];
    let timings: [&[&str]; 3] = [
        &[],
        &[
            "timing.startup_cycles=0",
            "network.buffer_depth=1",
            "traffic.length=4",
        ],
        &[
            "timing.startup_serial=true",
            "network.injection_channels=2",
            "network.header_setup_cycles=2",
            "network.consumption_channels=4",
        ],
    ];
    let mut ratios = Vec::new();
    for net in nets {
        for timing in timings {
            for (kind, root) in [
                ("broadcast", "1,2"),
                ("scatter", "2,1"),
                ("allgather", "0,0"),
            ] {
                let mut sets = vec![
                    "traffic.pattern=\"none\"".to_string(),
                    "run.warmup=100".to_string(),
                    format!("traffic.collective=\"{kind}\""),
                ];
                if kind != "allgather" {
                    sets.push(format!("traffic.root=\"{root}\""));
                }
                sets.extend(net.iter().chain(timing.iter()).map(|s| s.to_string()));
                let sc = Scenario::from_toml("", &sets, "t").unwrap();
                let mut n = Network::new(&sc).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
                let r = n.run(&mut |_| true);
                assert!(r.scoreboard_clean() && !r.deadlock, "{sets:?}");
                assert_eq!(r.stop_reason, "collective complete", "{sets:?}");
                let c = r.collective.unwrap();
                let col = n.collective.as_ref().unwrap();
                let last = col
                    .msgs
                    .iter()
                    .map(|&m| n.msgs[m as usize].finished().unwrap())
                    .max();
                assert_eq!(c.completion_cycle, last);
                assert_eq!(r.cycles, last.unwrap(), "{sets:?}: stops at the completion");
                let t = c.completion_time.unwrap();
                assert!(
                    t >= c.lower_bound.cycles,
                    "{sets:?}: completed in {t} < bound {:?}",
                    c.lower_bound
                );
                ratios.push(c.ratio.unwrap());
            }
        }
    }
    // The bound is a bound, not a guess: some cases come close.
    let best = ratios.iter().copied().fold(f64::MAX, f64::min);
    assert!(best < 1.2, "best ratio {best}");
}

/// The report's bound is the library's, and the collective's message
/// counts and destinations are its definition.
#[test]
fn messages_follow_the_definition() {
    for (kind, n_msgs, dests) in [
        ("broadcast", 1, 15),
        ("scatter", 15, 1),
        ("allgather", 16, 15),
    ] {
        let k = format!("traffic.collective=\"{kind}\"");
        let sc = scenario(&[
            "network.topology=\"torus:4x4\"",
            "traffic.pattern=\"none\"",
            &k,
        ]);
        let mut net = Network::new(&sc).unwrap();
        let r = net.run(&mut |_| true);
        let c = net.collective.as_ref().unwrap();
        assert_eq!(c.msgs.len(), n_msgs, "{kind}");
        assert!(c
            .msgs
            .iter()
            .all(|&m| net.msgs[m as usize].dests.len() == dests));
        assert!(c.msgs.iter().all(|&m| net.msgs[m as usize].created == 2000));
        let want = lower_bound(c.kind, 0, &bound_params(&net.v, &sc));
        assert_eq!(r.collective.unwrap().lower_bound, want);
        assert_eq!(c.kind, kind.parse::<CollectiveKind>().unwrap());
    }
    // Background traffic runs alongside; the run still ends at the
    // collective's completion.
    let sc = scenario(&["traffic.collective=\"broadcast\"", "traffic.rate=0.005"]);
    let mut net = Network::new(&sc).unwrap();
    let r = net.run(&mut |_| true);
    assert_eq!(r.stop_reason, "collective complete");
    assert!(net.msgs.len() > 1);
}

#[test]
fn bad_collective_keys_are_refused_by_name() {
    let e = refused(&["traffic.collective=\"allgather\"", "traffic.root=\"1,1\""]);
    assert_eq!(e.field, "traffic.root");
    let e = refused(&["traffic.root=\"1,1\""]);
    assert_eq!(e.field, "traffic.root");
    let e = refused(&["traffic.collective=\"scatter\"", "traffic.root=\"9,9\""]);
    assert_eq!(e.field, "traffic.root");
    assert!(e.allowed.contains("0 <= x < 8"), "{e}");
    let e = refused(&["traffic.collective=\"scatter\"", "traffic.length_max=30"]);
    assert_eq!(e.field, "traffic.length_max");
    let e = refused(&["traffic.collective=\"scatter\"", "traffic.batch=3"]);
    assert_eq!(e.field, "traffic.batch");
    let e = refused(&[
        "traffic.collective=\"allgather\"",
        "network.topology=\"mesh:6x6\"",
        "network.routing=\"hamiltonian\"",
        "traffic.multicast_scheme=\"lin\"",
        "traffic.pattern=\"none\"",
    ]);
    assert_eq!(e.field, "traffic.collective");
    assert!(e.allowed.contains("lin"), "{e}");
    let e = refused(&[
        "traffic.collective=\"broadcast\"",
        "network.topology=\"mesh:6x6\"",
        "network.routing=\"dor\"",
        "network.faulty_nodes=[\"2,2\"]",
        "traffic.multicast_scheme=\"ft-s1\"",
    ]);
    assert_eq!(e.field, "traffic.collective");
    let e =
        Scenario::from_toml("", &["traffic.collective=\"gather\"".to_string()], "t").unwrap_err();
    assert_eq!(e.field, "traffic.collective");
    assert!(e.allowed.contains("broadcast, allgather, scatter"), "{e}");
}
