//! `wormcast verify`: the verdict expected for each scheme (free or a cycle), each
//! checked on the static model and, for every cycle, by the replay of its
//! witness on the cycle model.

use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;
use wormcast_sim::verify::{self, Verdict};

fn scenario(sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml("", &sets, "test").expect("valid test scenario")
}

fn check(sets: &[&str]) -> Verdict {
    verify::verify(&scenario(sets), 1, 64).expect("verify runs")
}

fn assert_free(sets: &[&str]) {
    let v = check(sets);
    assert!(
        v.deadlock_free(),
        "{sets:?} should be deadlock-free:\n{}",
        verify::render_text(&v)
    );
    assert!(v.visits > 0 && v.edges > 0, "an empty model proves nothing");
}

/// A cycle whose witness deadlocks the cycle model, with the runtime
/// detector stopping on witness worms only.
fn assert_confirmed(sets: &[&str]) -> Verdict {
    let v = check(sets);
    assert!(!v.deadlock_free(), "{sets:?} should have a cycle");
    let c = &v.cycles[0];
    assert!(
        c.replay.confirmed,
        "{sets:?}: the witness should replay as a deadlock:\n{}",
        verify::render_text(&v)
    );
    assert!(!c.replay.detector.is_empty());
    // The emitted scenario (what --emit-scenario writes) deadlocks on its own.
    let s = verify::witness::scenario(&scenario(sets), &c.witness, &c.replay.offsets);
    let text = toml::to_string(&s).expect("scenario serialises");
    let back = Scenario::from_toml(&text, &[], "emitted").expect("emitted scenario is valid");
    let mut net = Network::new(&back).expect("emitted scenario builds");
    net.run(&mut |_| true);
    assert!(
        net.deadlock.is_some(),
        "{sets:?}: the emitted scenario must deadlock"
    );
    v
}

const TORUS: [&str; 3] = ["torus:4x4", "torus:5x5", "torus:8x8"];

#[test]
fn dstm_and_tarjan_pairs_with_a_consumption_channel_per_tree_are_free() {
    for t in TORUS {
        for c in [
            "dstm1",
            "dstm2",
            "tarjan-best",
            "tarjan-average",
            "tarjan-path",
        ] {
            assert_free(&[
                &format!("network.topology=\"{t}\""),
                &format!("network.construction=\"{c}\""),
            ]);
        }
    }
}

#[test]
fn one_shared_consumption_channel_closes_a_cycle_that_deadlocks() {
    for t in TORUS {
        for c in ["dstm1", "dstm2", "tarjan-best"] {
            let v = assert_confirmed(&[
                &format!("network.topology=\"{t}\""),
                &format!("network.construction=\"{c}\""),
                "network.consumption_channels=1",
            ]);
            assert!(v.cycles[0]
                .steps
                .iter()
                .any(|s| s.waits_for.starts_with("consumption")));
        }
    }
}

#[test]
fn spam_is_free() {
    for t in TORUS {
        for c in ["bfs", "dstm1"] {
            assert_free(&[
                &format!("network.topology=\"{t}\""),
                "network.routing=spam",
                &format!("network.construction=\"{c}\""),
            ]);
        }
    }
}

#[test]
fn a_single_faulty_link_with_local_information_stays_free() {
    for link in ["3,4,+x", "0,0,+y", "7,7,-x"] {
        for info in ["local", "global"] {
            assert_free(&[
                "network.topology=\"torus:8x8\"",
                &format!("network.faulty_links=[\"{link}\"]"),
                &format!("network.fault_info={info}"),
            ]);
        }
    }
}

fn mesh(routing: &str, scheme: &str, consumption: u32, side: u32) -> Vec<String> {
    vec![
        format!("network.topology=\"mesh:{side}x{side}\""),
        format!("network.routing={routing}"),
        format!("network.consumption_channels={consumption}"),
        "network.injection_channels=4".into(),
        format!("traffic.multicast_scheme={scheme}"),
    ]
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

#[test]
fn path_based_schemes_with_their_consumption_grouping_are_free() {
    for side in [4, 6, 8] {
        for scheme in ["dual-path", "multi-path", "ocms", "otms"] {
            assert_free(&refs(&mesh("hamiltonian", scheme, 2, side)));
        }
        for scheme in ["brcp-minimal", "brcp-pure"] {
            assert_free(&refs(&mesh("negative_first", scheme, 2, side)));
        }
        assert_free(&refs(&mesh("dor", "column-path", 4, side)));
    }
}

#[test]
fn path_worms_with_one_consumption_channel_deadlock() {
    for side in [4, 6] {
        for scheme in ["dual-path", "multi-path"] {
            assert_confirmed(&refs(&mesh("hamiltonian", scheme, 1, side)));
        }
    }
}

#[test]
fn thesis_trees_as_worms_on_xy_routers_deadlock() {
    for scheme in ["vh", "diag", "dds", "min"] {
        let v = assert_confirmed(&refs(&mesh("dor", scheme, 4, 5)));
        // What the static model adds to a channel-dependency graph: a
        // branch held by its blocked sibling.
        assert!(
            v.cycles[0]
                .steps
                .iter()
                .any(|s| s.holder_blocked == "sibling")
                || v.cycles[0].witness.iter().any(|w| w.destinations.len() > 1),
            "{scheme}: {}",
            verify::render_text(&v)
        );
    }
}

#[test]
fn the_shipped_deadlock_examples_are_found_and_replayed() {
    for f in [
        "deadlock-shared-consumption.toml",
        "deadlock-mesh-one-consumption.toml",
        "deadlock-mesh-dds-trees.toml",
    ] {
        let text = std::fs::read_to_string(format!("../examples/{f}")).expect("example exists");
        let sc = Scenario::from_toml(&text, &[], f).expect("example parses");
        let v = verify::verify(&sc, 1, 64).expect("verify runs");
        assert!(!v.deadlock_free(), "{f}");
        assert!(
            v.cycles[0].replay.confirmed,
            "{f}: {}",
            verify::render_text(&v)
        );
    }
}

mod agreement {
    //! Over random small configurations, a "free"
    //! verdict survives long saturated runs, and a cycle found is either
    //! confirmed by a replay that deadlocks or reported as unconfirmed.
    use super::*;
    use proptest::prelude::*;

    fn config() -> impl Strategy<Value = Vec<String>> {
        // Square: the Tarjan Hamilton-path order is defined for N×N only.
        let torus = (
            3u32..=6,
            prop::sample::select(vec!["dstm1", "dstm2", "tarjan-best", "tarjan-path"]),
            prop::sample::select(vec!["tree", "spam"]),
            1usize..=2,
        )
            .prop_map(|(k, c, r, cons)| {
                vec![
                    format!("network.topology=\"torus:{k}x{k}\""),
                    format!("network.construction=\"{c}\""),
                    format!("network.routing={r}"),
                    format!("network.consumption_channels={cons}"),
                ]
            });
        let mesh = (
            3u32..=6,
            3u32..=6,
            prop::sample::select(vec![
                ("hamiltonian", "dual-path"),
                ("hamiltonian", "multi-path"),
                ("negative_first", "brcp-minimal"),
                ("dor", "column-path"),
                ("dor", "dds"),
            ]),
            1usize..=4,
        )
            .prop_map(|(k, m, (r, s), cons)| {
                vec![
                    format!("network.topology=\"mesh:{k}x{m}\""),
                    format!("network.routing={r}"),
                    format!("traffic.multicast_scheme={s}"),
                    format!("network.consumption_channels={cons}"),
                    "network.injection_channels=4".into(),
                ]
            });
        prop_oneof![torus, mesh]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
        #[test]
        fn verdicts_agree_with_simulation(mut sets in config(), seed in 1u64..1000) {
            let refs: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
            let v = verify::verify(&scenario(&refs), 1, 32).expect("verify runs");
            if v.deadlock_free() {
                // Saturated: far above every configuration's saturation
                // point, half multicasts, long worms, a tight detector.
                sets.extend([
                    "traffic.rate=0.05".to_string(),
                    "traffic.multicast_fraction=0.5".into(),
                    "traffic.destinations=[2, 6]".into(),
                    "traffic.length=12".into(),
                    format!("traffic.seed={seed}"),
                    "timing.startup_cycles=0".into(),
                    "run.warmup=0".into(),
                    "run.cycles=4000".into(),
                    "run.drain_cycles=0".into(),
                    "run.deadlock_threshold=300".into(),
                ]);
                let refs: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
                let mut net = Network::new(&scenario(&refs)).expect("network builds");
                net.run(&mut |_| true);
                prop_assert!(net.deadlock.is_none(), "{:?} proved free but deadlocked: {:?}", sets, net.deadlock);
                prop_assert!(net.fabric.router_steps > 0);
            } else {
                let c = &v.cycles[0];
                if c.replay.confirmed {
                    let s = verify::witness::scenario(&scenario(&refs), &c.witness, &c.replay.offsets);
                    let mut net = Network::new(&s).expect("witness builds");
                    net.run(&mut |_| true);
                    prop_assert!(net.deadlock.is_some(), "{:?}: a confirmed witness must deadlock again", sets);
                } else {
                    prop_assert!(!c.replay.reason.is_empty());
                }
            }
        }
    }
}

mod conformance {
    //! The worm shapes the model assumes (docs/verify.md §2: the tree
    //! phases, and on meshes each scheme's progress rule) are claims about
    //! the encoders. Here they are checked against what the encoders send:
    //! random messages, each alone on an empty network, and every
    //! reservation it makes (router, input, outputs granted together) must
    //! be an option of a visit the automaton reaches from the source.
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::{HashMap, HashSet};
    use wormcast_sim::router::NO_OWNER;
    use wormcast_sim::topology::Dir;
    use wormcast_sim::verify::automaton::{Input, Res, VisitId};

    fn conforms(sets: &[String], messages: usize, seed: u64) {
        let base = scenario(&refs(sets));
        let (an, _) = verify::analyse(&base).expect("analysis runs");
        let a = &an.automaton;
        let topo = an.topo;
        let n = topo.nodes();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut checked = 0;
        for _ in 0..messages {
            let s = rng.gen_range(0..n);
            let k = rng.gen_range(1..=6);
            let mut dests: Vec<u32> = (0..k)
                .map(|_| rng.gen_range(0..n))
                .filter(|&d| d != s)
                .collect();
            dests.sort_unstable();
            dests.dedup();
            if dests.is_empty() {
                continue;
            }
            let worm = verify::witness::Worm {
                source: topo.coord(s),
                destinations: dests.iter().map(|&d| topo.coord(d)).collect(),
                tree: None,
            };
            let sc = verify::witness::scenario(&base, &[worm], &[0]);
            // A destination set the scheme cannot serve (faulty mesh) is
            // bad input for a scripted message: not a worm to check.
            let Ok(mut net) = Network::new(&sc) else {
                continue;
            };
            let outs = net.v.params.outputs();
            let mut last: HashMap<(u32, usize), u16> = HashMap::new();
            let mut events: Vec<(u32, usize, u16)> = Vec::new();
            net.run(&mut |nw| {
                let mut now: HashMap<(u32, usize), u16> = HashMap::new();
                for r in 0..n {
                    let st = &nw.fabric.state[r as usize];
                    for o in 0..outs {
                        if st.out[o].owner != NO_OWNER {
                            *now.entry((r, st.out[o].owner as usize)).or_default() |= 1 << o;
                        }
                    }
                }
                for (&key, &m) in &now {
                    if last.get(&key).copied().unwrap_or(0) == 0 {
                        events.push((key.0, key.1, m));
                    }
                }
                last = now;
                true
            });
            assert!(net.deadlock.is_none());
            // Match in time order, from the source's injection visits.
            let mut cands: HashMap<(u32, Input), HashSet<VisitId>> = HashMap::new();
            let roots: HashSet<VisitId> = a
                .roots
                .iter()
                .copied()
                .filter(|&v| a.visits[v as usize].node == s)
                .collect();
            cands.insert((s, Input::Inj), roots);
            for (r, i, mask) in events {
                let input = if i < 4 {
                    Input::Link(Dir::from_index(i))
                } else {
                    Input::Inj
                };
                let want: Vec<(usize, Option<Dir>)> = (0..outs)
                    .filter(|o| mask >> o & 1 == 1)
                    .map(|o| (o, (o < 4).then(|| Dir::from_index(o))))
                    .collect();
                let here = cands.get(&(r, input)).cloned().unwrap_or_default();
                let mut matched = false;
                for &v in &here {
                    for opt in &a.options[v as usize] {
                        let covers = want.iter().all(|&(o, d)| {
                            opt.iter().any(|x| match (x.res, d) {
                                (Res::Link(_, xd), Some(d)) => xd == d,
                                (Res::Cons(_, pool), None) => pool >> (o - 4) & 1 == 1,
                                _ => false,
                            })
                        });
                        if !covers {
                            continue;
                        }
                        matched = true;
                        for x in opt {
                            if let (Res::Link(_, d), Some(nx)) = (x.res, x.next) {
                                if mask >> d.index() & 1 == 1 {
                                    let w = topo.neighbor(r, d).unwrap();
                                    cands
                                        .entry((w, Input::Link(d.opposite())))
                                        .or_default()
                                        .insert(nx);
                                }
                            }
                        }
                    }
                }
                assert!(
                    matched,
                    "{sets:?}: message {:?} reserves outputs {mask:#010b} at router {:?} from input {i}, which no visit of the model allows",
                    (topo.coord(s), dests.iter().map(|&d| topo.coord(d)).collect::<Vec<_>>()),
                    topo.coord(r)
                );
            }
            checked += 1;
        }
        assert!(
            checked * 2 > messages,
            "{sets:?}: too few messages checked ({checked})"
        );
    }

    #[test]
    fn torus_worms_are_paths_of_the_model() {
        for r in ["tree", "spam"] {
            conforms(
                &[
                    "network.topology=\"torus:6x6\"".into(),
                    format!("network.routing={r}"),
                ],
                60,
                1,
            );
        }
    }

    #[test]
    fn mesh_worms_are_paths_of_the_model() {
        for (routing, schemes, cons) in [
            (
                "hamiltonian",
                &["dual-path", "multi-path", "ocms", "otms"][..],
                2,
            ),
            ("negative_first", &["brcp-minimal", "brcp-pure"][..], 2),
            ("dor", &["column-path", "vh", "diag", "dds", "min"][..], 4),
        ] {
            for s in schemes {
                conforms(&mesh(routing, s, cons, 6), 60, 2);
            }
        }
    }

    #[test]
    fn fault_tolerant_trees_are_paths_of_the_model() {
        for s in ["ft-s1", "ft-s2", "ft-s3", "ft-unicast"] {
            let mut sets = mesh("dor", s, 4, 7);
            sets.push("network.faulty_nodes=[\"3,3\"]".into());
            conforms(&sets, 60, 3);
        }
    }
}
